package openfinance

import (
	"net/http"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-json-experiment/json"

	"pixretry/psp"
)

// The paths Keys serves, on the double's control side (/_psp/). They stand in for the Open
// Finance directory, which publishes each participant's JWKS outside the payments API
// (FAPI-BR "Message Content Signing Considerations", item 6).
const (
	// JWKSPath serves the double's public signing key, a JWK Set: the key that verifies its
	// answers.
	JWKSPath = "/_psp/openfinance/jwks.json"
	// ClientKeyPath serves the client key pair New generated, a JWK Set holding its private
	// key, with its kid: what a client signs requests with. It answers 404 when Config gave
	// the client keys.
	ClientKeyPath = "/_psp/openfinance/client-key.json"
)

// Keys is an http.Handler serving GET JWKSPath and GET ClientKeyPath. Serve it where only
// tests reach, as the control API is: ClientKeyPath hands out a private key. Its errors are
// problems, as the control API's are.
func (s *Server) Keys() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var set jose.JSONWebKeySet
		switch {
		case r.URL.Path == JWKSPath:
			set = s.PublicKeys()
		case r.URL.Path == ClientKeyPath && s.keys.client != nil:
			set.Keys = []jose.JSONWebKey{*s.keys.client}
		default:
			problem(w, psp.NewProblem(http.StatusNotFound, "not_found", "no resource at "+r.URL.Path), nil)
			return
		}
		if r.Method != http.MethodGet {
			problem(w, psp.NewProblem(http.StatusMethodNotAllowed, "method_not_allowed", r.URL.Path+" takes GET"),
				http.Header{"Allow": {http.MethodGet}})
			return
		}
		body, _ := json.Marshal(set) // RSA keys always encode
		w.Header().Set("Content-Type", "application/json")
		w.Write(append(body, '\n'))
	})
}

// problem writes p as application/problem+json, with the extra header fields.
func problem(w http.ResponseWriter, p psp.Problem, extra http.Header) {
	for name, values := range extra {
		w.Header()[name] = values
	}
	body, _ := json.Marshal(p)
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(p.Status)
	w.Write(append(body, '\n'))
}

// PublicKeys is the double's public signing key, as the JWK Set at JWKSPath: with it a client
// verifies the double's answers.
func (s *Server) PublicKeys() jose.JSONWebKeySet {
	return jose.JSONWebKeySet{Keys: []jose.JSONWebKey{s.keys.signing.Public()}}
}

// ClientKey is the client key pair New generated, private, with its kid, alg and use, as
// ClientKeyPath serves it. It reports false when Config gave the client keys.
func (s *Server) ClientKey() (jose.JSONWebKey, bool) {
	if s.keys.client == nil {
		return jose.JSONWebKey{}, false
	}
	return *s.keys.client, true
}
