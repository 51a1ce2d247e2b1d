package openfinance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/cryptosigner"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/google/uuid"

	"pixretry/pix"
)

// jwtMediaType is the media type of a signed body, request or answer ([security] item 4).
const jwtMediaType = "application/jwt"

// accept is the Accept header of every request: a signed answer, or an error in JSON ([spec]
// responses).
const accept = jwtMediaType + ", application/json"

// iatLeeway is how far a JWS's iat may be from now, either way ([security] item 8).
const iatLeeway = 60 * time.Second

// requestClaims are the claims of a request's JWS ([security] item 3).
type requestClaims struct {
	Aud  string `json:"aud"`
	Iss  string `json:"iss"`
	Jti  string `json:"jti"`
	Iat  int64  `json:"iat"`
	Data any    `json:"data"`
}

// signed returns data as the body of a request to endpoint: a compact JWS signed with PS256
// by d.Key, with kid d.KeyID and typ JWT in its header ([signing] Passo 2), and the claims aud
// endpoint, iss d.Issuer, a random jti (a UUIDv4) and iat time.Now() in seconds ([security]
// item 3). Every call signs anew, with a new jti and iat: the PSP refuses a jti it has seen
// in 24 hours ([security] item 9).
func (d *Dialect) signed(endpoint string, data any) (string, error) {
	key := jose.JSONWebKey{Key: cryptosigner.Opaque(d.Key), KeyID: d.KeyID}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.PS256, Key: key},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", fmt.Errorf("openfinance: signing with Key: %w", err)
	}
	payload, err := json.Marshal(requestClaims{Aud: endpoint, Iss: d.Issuer, Jti: uuid.NewString(),
		Iat: time.Now().Unix(), Data: data})
	if err != nil {
		return "", fmt.Errorf("openfinance: writing the claims: %w", err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("openfinance: signing with Key: %w", err)
	}
	return jws.CompactSerialize()
}

// post returns a POST to u of data, signed, under key. The aud of its claims is u without its
// query: the endpoint ([security] item 3).
func (d *Dialect) post(ctx context.Context, u *url.URL, key string, data any) (*http.Request, error) {
	endpoint := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}
	body, err := d.signed(endpoint.String(), data)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", jwtMediaType)
	req.Header.Set("x-idempotency-key", key)
	setHeaders(req)
	return req, nil
}

// get returns a GET of u.
func get(ctx context.Context, u *url.URL) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err == nil {
		setHeaders(req)
	}
	return req, err
}

// setHeaders sets the headers of every request: Accept, and a fresh x-fapi-interaction-id,
// which the initiator must send ([spec] parameter xFapiInteractionId).
func setHeaders(req *http.Request) {
	req.Header.Set("Accept", accept)
	req.Header.Set("x-fapi-interaction-id", uuid.NewString())
}

// answerClaims are the claims that d checks on a signed answer.
type answerClaims struct {
	Aud jwt.Audience     `json:"aud"`
	Iss string           `json:"iss"`
	Jti string           `json:"jti"`
	Iat *jwt.NumericDate `json:"iat"`
}

// verified returns the claims of a, a signed answer, as JSON, once it has checked them. The
// body is a compact JWS signed with PS256 by the key of d.PSPKeys that its kid names
// ([security] items 5 and 6). Its claims hold aud d.Issuer, iss d.PSPIssuer, a jti, and an iat
// within 60 seconds of now ([security] items 3 and 8). Any other body is an error wrapping
// [pix.ErrContract], and no [*pix.Error]: an answer the PSP may not have written says nothing
// of the payment, so the outcome stays unknown.
func (d *Dialect) verified(a pix.Answer) ([]byte, error) {
	jws, err := jose.ParseSignedCompact(string(a.Body), []jose.SignatureAlgorithm{jose.PS256})
	if err != nil {
		return nil, contractError("the %d answer is not a compact JWS signed with PS256: %v", a.Status, err)
	}
	payload, err := jws.Verify(d.PSPKeys)
	if err != nil {
		return nil, contractError("the %d answer's signature does not verify with PSPKeys: %v", a.Status, err)
	}
	var c answerClaims
	if err := json.Unmarshal(payload, &c); err != nil {
		return nil, contractError("the %d answer's claims are not JSON: %v", a.Status, err)
	}
	switch {
	case !c.Aud.Contains(d.Issuer):
		return nil, contractError("the %d answer is for aud %q, not Issuer %q", a.Status, c.Aud, d.Issuer)
	case c.Iss != d.PSPIssuer:
		return nil, contractError("the %d answer is from iss %q, not PSPIssuer %q", a.Status, c.Iss, d.PSPIssuer)
	case c.Jti == "":
		return nil, contractError("the %d answer has no jti", a.Status)
	case c.Iat == nil:
		return nil, contractError("the %d answer has no iat", a.Status)
	}
	if skew := time.Since(c.Iat.Time()); skew > iatLeeway || skew < -iatLeeway {
		return nil, contractError("the %d answer's iat %s is %v from now, more than %v", a.Status,
			c.Iat.Time().UTC().Format(time.RFC3339), skew, iatLeeway)
	}
	return payload, nil
}

// contractError returns an error wrapping pix.ErrContract that says what format says. Its
// arguments are written with %v, never wrapped: an error of the answer's parser is not an error
// of the connection, which pix would retry.
func contractError(format string, args ...any) error {
	return fmt.Errorf("openfinance: %w: "+format, append([]any{pix.ErrContract}, args...)...)
}
