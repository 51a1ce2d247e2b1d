package psp

import (
	"net/http"
	"strings"
)

// bearerToken returns the bearer token of h if it is one of the accepted tokens, as configured
// (so stored keys do not keep the header alive).
func (s *Server) bearerToken(h http.Header) (string, error) {
	token, isBearer := bearer(h)
	known, ok := s.tokens[token]
	if !isBearer || !ok {
		return "", unauthorized("psp", "a known bearer token is required in Authorization")
	}
	return known, nil
}

// bearer returns the token of an "Authorization: Bearer <token>" header. The scheme is matched
// without regard to case (RFC 9110).
func bearer(h http.Header) (string, bool) {
	scheme, token, _ := strings.Cut(h.Get("Authorization"), " ")
	return strings.TrimLeft(token, " "), strings.EqualFold(scheme, "Bearer")
}

// unauthorized is a 401 that asks for a bearer token of realm.
func unauthorized(realm, detail string) *failure {
	f := fail(codeUnauthorized, "%s", detail)
	f.header = http.Header{"Www-Authenticate": {`Bearer realm="` + realm + `"`}}
	return f
}
