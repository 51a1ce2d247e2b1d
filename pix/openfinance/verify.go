package openfinance

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"pixretry/pix"
)

// iatLeeway is how far a JWS's iat may be from now, either way ([security] item 8).
const iatLeeway = 60 * time.Second

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
