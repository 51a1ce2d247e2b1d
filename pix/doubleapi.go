package pix

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/google/uuid"
)

// doubleAPI is the Dialect of a Client whose Dialect is nil: the API of this repository's
// double (psp -dialect pix), written in the OpenAPI document psp/control/openapi.json.
//
// The key is 1 to 255 visible ASCII characters, in the Idempotency-Key header. A payment is
// POST /v1/pix/payments with {"valor","chave","infoPagador"}. It answers 201 REALIZADO, or 202
// EM_PROCESSAMENTO for a payment that ends later, with Idempotent-Replayed: true on a replay;
// any other answer is a problem+json. A lookup is GET /v1/pix/payments?idempotency_key=KEY: a
// 200 REALIZADO or NAO_REALIZADO, a 202 pending, or a 404 payment_not_found that closes the
// key. The PSP keeps a key 24 hours.
type doubleAPI struct{}

// paymentsPath is where the double takes payments and lookups.
const paymentsPath = "v1/pix/payments"

func (doubleAPI) NewKey() string { return uuid.NewString() }

func (doubleAPI) CheckKey(key string) error { return validateKey(key) }

func (doubleAPI) KeyTTL() time.Duration { return defaultKeyTTL }

func (doubleAPI) Pay(ctx context.Context, base *url.URL, key string, p Payment) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base.JoinPath(paymentsPath).String(),
		bytes.NewReader(p.body()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

// Paid reads a 201 settled or a 202 pending. A 202 whose body is not a pending payment's is
// an Error that matches ErrContract.
func (doubleAPI) Paid(a Answer, p Payment) (Found, error) {
	switch a.Status {
	case http.StatusCreated:
		f, err := parseStatus(a.Status, a.Body)
		f.Replayed = a.Header.Get("Idempotent-Replayed") == "true"
		return f, err
	case http.StatusAccepted:
		f, err := parseStatus(a.Status, a.Body)
		if err == nil {
			err = f.isFor(a.Status, p)
		}
		if err != nil {
			return Found{}, fmt.Errorf("%w: %w", decodeError(a), err)
		}
		return f, nil
	}
	return Found{}, decodeError(a)
}

func (doubleAPI) Look(ctx context.Context, base *url.URL, key string, _ Ref) (*http.Request, error) {
	u := base.JoinPath(paymentsPath)
	u.RawQuery = url.Values{"idempotency_key": {key}}.Encode()
	return http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
}

// Seen reads a 200 settled or rejected, or a 202 pending. A 404 payment_not_found proves that
// nothing was paid under the key.
func (doubleAPI) Seen(a Answer, _ Ref) (Found, error) {
	switch a.Status {
	case http.StatusOK:
		return parseStatus(a.Status, a.Body)
	case http.StatusAccepted:
		f, err := parseStatus(a.Status, a.Body)
		if err != nil {
			return Found{}, fmt.Errorf("%w: %w", decodeError(a), err)
		}
		return f, nil
	}
	return Found{}, lookupError(decodeError(a))
}
