package openfinance

import (
	"mime"
	"net/http"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// scope is where an x-idempotency-key lives: keys are per bearer token, as the psp.Server's
// are.
type scope struct{ token, key string }

// signedRequest is a POST that passed the checks every signed request takes.
type signedRequest struct {
	scope
	data jsontext.Value // the data claim, as sent; nil if absent
}

// readSigned checks a POST of a signed body, in this order: a bearer token (401), Content-Type
// application/jwt (415), the x-idempotency-key (400), the body's size (400), its signature (400
// BAD_SIGNATURE) and its claims (403 INVALID_CLIENT, or 529 when the jti store is full).
func (s *Server) readSigned(x *exchange) (signedRequest, *apiError) {
	var req signedRequest
	var bad *apiError
	if req.token, bad = bearer(x.r); bad != nil {
		return req, bad
	}
	contentType := x.r.Header.Get("Content-Type")
	if mediaType, _, err := mime.ParseMediaType(contentType); err != nil || mediaType != jwtContentType {
		return req, errorf(http.StatusUnsupportedMediaType, statusCode(http.StatusUnsupportedMediaType),
			"Content-Type must be %s, got %q", jwtContentType, contentType)
	}
	if req.key, bad = idempotencyKey(x.r); bad != nil {
		return req, bad
	}
	body, bad := readBody(x.w, x.r)
	if bad != nil {
		return req, bad
	}
	payload, bad := s.keys.verify(body)
	if bad != nil {
		return req, bad
	}
	req.data, bad = s.claims(payload, x.url(), time.Now())
	return req, bad
}

// canonical is data in the JSON Canonicalization Scheme (RFC 8785): two data claims are the
// same when their canonical forms are, whatever their spacing and member order. The
// idempotency page of payments v4 compares the data claim, not the bytes of the JWS, which a
// retry signs anew.
func canonical(data jsontext.Value) string {
	c := data.Clone()
	c.Canonicalize() // the claims decoded, so data is valid JSON
	return string(c)
}
