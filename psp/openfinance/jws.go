package openfinance

import (
	"errors"
	"math"
	"net/http"
	"slices"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The FAPI-BR rules on a signed request's claims ("Message Content Signing Considerations",
// items 8 and 9).
const (
	iatSkew   = 60 * time.Second // the most iat may differ from the PSP's clock, either way
	jtiWindow = 24 * time.Hour   // how long a jti may not be used again
)

// verify returns the payload of body, a compact JWS that one of the client keys signed with
// PS256 and names by its kid, or a 400 BAD_SIGNATURE saying why not (FAPI-BR "Message Content
// Signing Considerations", items 5 and 6).
func (k *keys) verify(body []byte) ([]byte, *apiError) {
	bad := func(format string, args ...any) ([]byte, *apiError) {
		return nil, errorf(http.StatusBadRequest, codeBadSignature, format, args...)
	}
	jws, err := jose.ParseSignedCompact(string(body), []jose.SignatureAlgorithm{jose.PS256})
	if alg, ok := errors.AsType[*jose.ErrUnexpectedSignatureAlgorithm](err); ok {
		return bad("the JWS must be signed with PS256, not %q", alg.Got)
	}
	if err != nil {
		return bad("the body is not a JWS in compact serialization")
	}
	kid := jws.Signatures[0].Protected.KeyID
	trusted := k.clients.Key(kid)
	if len(trusted) == 0 {
		return bad("the JWS's kid %q names no key the PSP trusts", kid)
	}
	payload, err := jws.Verify(trusted[0])
	if err != nil {
		return bad("the JWS's signature does not verify with the key %q", kid)
	}
	return payload, nil
}

// requestClaims are the claims of a signed request, as sent.
type requestClaims struct {
	Aud  jsontext.Value `json:"aud"`
	Iss  jsontext.Value `json:"iss"`
	Iat  jsontext.Value `json:"iat"`
	Jti  jsontext.Value `json:"jti"`
	Data jsontext.Value `json:"data"`
}

// claims checks the claims of payload, a verified request's, at now: aud must be the
// endpoint's URL, iss the initiator's organisationId, iat within 60 seconds of now, and jti
// a string not seen in 24 hours. It returns the data claim, or a 403 INVALID_CLIENT (the spec's
// description, items 1.2.4 and 2.1.4), or a 529 if the jti store is full. It records the jti
// only when the others pass.
func (s *Server) claims(payload []byte, endpoint string, now time.Time) (jsontext.Value, *apiError) {
	refuse := func(format string, args ...any) (jsontext.Value, *apiError) {
		return nil, errorf(http.StatusForbidden, codeInvalidClient, format, args...)
	}
	var c requestClaims
	if json.Unmarshal(payload, &c) != nil {
		return refuse("the JWS's payload is not a JSON object of claims")
	}
	var iss, jti string
	switch {
	case !audienceHas(c.Aud, endpoint):
		return refuse("aud must be %q, the endpoint's URL", endpoint)
	case json.Unmarshal(c.Iss, &iss) != nil || iss != s.cfg.ClientOrganisationID:
		return refuse("iss must be %q, the initiator's organisationId", s.cfg.ClientOrganisationID)
	case !recent(c.Iat, now):
		return refuse("iat must be a NumericDate within %v of the PSP's clock, %d", iatSkew, now.Unix())
	case json.Unmarshal(c.Jti, &jti) != nil || jti == "":
		return refuse("jti must be a non-empty string")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, seen := s.jtis.get(jti, now); seen {
		return refuse("jti %q was used within %v", jti, jtiWindow)
	}
	if !s.jtis.add(jti, struct{}{}, now) {
		return nil, errorf(statusSiteOverloaded, codeOverloaded, "the PSP holds %d jtis, its limit, and none has "+
			"expired; retry later", s.cfg.MaxJTIs)
	}
	return c.Data, nil
}

// audienceHas reports whether aud, a string or an array of strings, holds want.
func audienceHas(aud jsontext.Value, want string) bool {
	var one string
	if json.Unmarshal(aud, &one) == nil {
		return one == want
	}
	var many []string
	return json.Unmarshal(aud, &many) == nil && slices.Contains(many, want)
}

// recent reports whether iat is a NumericDate within iatSkew of now, either way.
func recent(iat jsontext.Value, now time.Time) bool {
	var seconds float64
	if iat.Kind() != '0' || json.Unmarshal(iat, &seconds) != nil || math.Abs(seconds) > 1e11 {
		return false // not a number, or centuries away
	}
	whole, frac := math.Modf(seconds)
	d := now.Sub(time.Unix(int64(whole), int64(frac*1e9)))
	return -iatSkew <= d && d <= iatSkew
}
