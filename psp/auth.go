package psp

import (
	"net/http"
	"strings"
)

// bearerToken returns the token of an "Authorization: Bearer <token>" header if it is one of
// the accepted tokens, as configured (so stored keys do not keep the header alive). The scheme is matched without regard to case (RFC 9110).
func (s *Server) bearerToken(h http.Header) (string, error) {
	scheme, token, _ := strings.Cut(h.Get("Authorization"), " ")
	known, ok := s.tokens[strings.TrimLeft(token, " ")]
	if !strings.EqualFold(scheme, "Bearer") || !ok {
		f := fail(codeUnauthorized, "a known bearer token is required in Authorization")
		f.header = http.Header{"Www-Authenticate": {`Bearer realm="psp"`}}
		return "", f
	}
	return known, nil
}
