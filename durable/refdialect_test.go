package durable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"pixretry/pix"
)

// refDialect speaks the double's API as a PSP that looks payments up by its own ids would, as
// Open Finance does. The PSP's id of a payment is the endToEndId of its answers. A lookup
// needs that id and the payment's consent: without them there is none. A lookup's answer
// must be for that id. A payment carries its consent in a header, which the double ignores,
// and one without a consent is not written. So a Payer that forgets either id cannot learn
// what became of a payment past its key's deadline.
type refDialect struct{}

// consentHeader carries a payment's consent.
const consentHeader = "X-Consent-Id"

func (refDialect) NewKey() string { return uuid.NewString() }

func (refDialect) CheckKey(key string) error {
	if key == "" || len(key) > 64 {
		return fmt.Errorf("%w: key %q is not 1 to 64 bytes", pix.ErrInvalidPayment, key)
	}
	return nil
}

// KeyTTL is the double's: the tests' Configs take theirs from it.
func (refDialect) KeyTTL() time.Duration { return 24 * time.Hour }

func (refDialect) Pay(ctx context.Context, base *url.URL, key string, p pix.Payment) (*http.Request, error) {
	if p.ConsentID == "" {
		return nil, errors.New("refDialect: the payment has no consent")
	}
	body, err := json.Marshal(map[string]string{"valor": fmt.Sprintf("%d.%02d", p.AmountCents/100, p.AmountCents%100),
		"chave": p.PixKey, "infoPagador": p.Description})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base.JoinPath(paymentsPath).String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(consentHeader, p.ConsentID)
	return req, nil
}

func (refDialect) Paid(a pix.Answer, _ pix.Payment) (pix.Found, error) {
	return readStatus(a, http.StatusCreated)
}

func (refDialect) Look(ctx context.Context, base *url.URL, key string, ref pix.Ref) (*http.Request, error) {
	if ref.PaymentID == "" || ref.ConsentID == "" {
		return nil, fmt.Errorf("%w: payment id %q, consent %q", pix.ErrNoLookup, ref.PaymentID, ref.ConsentID)
	}
	u := base.JoinPath(paymentsPath)
	u.RawQuery = url.Values{lookupParam: {key}}.Encode()
	return http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
}

// Seen reads a lookup's answer, which must be for ref.PaymentID. A 404 payment_not_found
// proves that nothing was paid.
func (refDialect) Seen(a pix.Answer, ref pix.Ref) (pix.Found, error) {
	f, err := readStatus(a, http.StatusOK)
	if e, ok := errors.AsType[*pix.Error](err); ok && e.Status == http.StatusNotFound && e.Code == "payment_not_found" {
		return pix.Found{}, fmt.Errorf("%w: %w", pix.ErrNoSettlement, e)
	}
	if err == nil && f.Ref.PaymentID != ref.PaymentID {
		return pix.Found{}, fmt.Errorf("%w: the answer is for payment %s, not %s", pix.ErrContract, f.Ref.PaymentID,
			ref.PaymentID)
	}
	return f, err
}

// readStatus reads an answer of the double: a payment's status with done or 202, or else a
// problem, whose code keeps the double's meaning.
func readStatus(a pix.Answer, done int) (pix.Found, error) {
	if a.Status != done && a.Status != http.StatusAccepted {
		var problem struct{ Code, Detail string }
		json.Unmarshal(a.Body, &problem) // a body that is no problem leaves them empty
		return pix.Found{}, &pix.Error{Status: a.Status, Code: problem.Code, Detail: problem.Detail}
	}
	var b struct{ EndToEndID, Valor, Chave, InfoPagador, Status, Horario, Motivo string }
	if err := json.Unmarshal(a.Body, &b); err != nil {
		return pix.Found{}, fmt.Errorf("%w: %v", pix.ErrContract, err)
	}
	state, ok := map[string]pix.State{"REALIZADO": pix.Settled, "EM_PROCESSAMENTO": pix.Pending,
		"NAO_REALIZADO": pix.Rejected}[b.Status]
	at, err := time.Parse(time.RFC3339Nano, b.Horario)
	cents, valid := centsOf(b.Valor)
	if !ok || err != nil || !valid || b.EndToEndID == "" {
		return pix.Found{}, fmt.Errorf("%w: the %d says %+v", pix.ErrContract, a.Status, b)
	}
	return pix.Found{State: state, EndToEndID: b.EndToEndID, AmountCents: cents, PixKey: b.Chave,
		Description: b.InfoPagador, At: at, Reason: b.Motivo, Replayed: a.Header.Get("Idempotent-Replayed") == "true",
		Ref: pix.Ref{PaymentID: b.EndToEndID}}, nil
}

// centsOf reads a valor such as "150.00".
func centsOf(valor string) (int64, bool) {
	units, hundredths, ok := strings.Cut(valor, ".")
	u, err1 := strconv.ParseInt(units, 10, 64)
	h, err2 := strconv.ParseInt(hundredths, 10, 64)
	return u*100 + h, ok && err1 == nil && err2 == nil && len(hundredths) == 2
}

// refConfig is l's config with a Client that speaks refDialect.
func refConfig(l ledger) Config {
	cfg := l.config()
	cfg.Client.Dialect = refDialect{}
	return cfg
}

// consented returns payment(cents) under the consent named for id.
func consented(id string, cents int64) pix.Payment {
	p := payment(cents)
	p.ConsentID = "urn:consent:" + id
	return p
}
