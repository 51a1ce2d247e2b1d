package openfinance

import (
	"net/http"
	"strings"
	"sync"

	"github.com/go-jose/go-jose/v4"
)

// The paths the Server serves (4.1.0.yml, servers and paths).
const (
	BasePath     = "/open-banking/payments/v4"
	ConsentsPath = BasePath + "/consents"     // POST; GET ConsentsPath/{consentId}
	PaymentsPath = BasePath + "/pix/payments" // POST; GET PaymentsPath/{paymentId}
)

// Server serves Open Finance Brasil payments v4 in front of a psp.Server, which keeps the
// keys, the ledger, the balance and the faults. It is an http.Handler for the paths under
// BasePath; Keys serves its keys. Make one with New. It is safe for concurrent use when the
// handler it relays to is.
type Server struct {
	next   http.Handler // serves the psp.Server's own API
	cfg    Config
	keys   keys
	signer jose.Signer

	mu          sync.Mutex
	jtis        *store[string, struct{}]   // the jtis seen in 24 hours
	consents    *store[string, *consent]   // by consentId, the latest MaxConsents
	consentKeys *store[scope, *consentKey] // the keys of POST /consents, for KeyTTL
	attempts    *store[scope, *attempt]    // the keys of POST /pix/payments, for KeyTTL
	payments    *store[string, *payment]   // by paymentId, the latest MaxPayments
	paidKeys    *store[scope, struct{}]    // the keys of the payments held, dropped with them
}

// New returns a Server in front of next, configured by cfg. next serves the double's own API:
// a *psp.Server, or a handler in front of one, such as a recorder. The Server relays each
// payment and lookup to it with [psp.Relay]. A handler in front of the psp.Server reads a
// payment's body only as far as the psp.Server does: the Server tells a payment the psp.Server
// never processed, which leaves its consent unconsumed, by a body never read. New reads or
// generates the keys cfg names, and returns a *ConfigError for a field it refuses, or the
// error of a key file it cannot read.
func New(next http.Handler, cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	k, err := loadKeys(cfg)
	if err != nil {
		return nil, err
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.PS256, Key: k.signing},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return nil, err
	}
	s := &Server{next: next, cfg: cfg, keys: k, signer: signer}
	s.Reset()
	return s, nil
}

// Reset forgets every consent, key, jti and paymentId. Reset the psp.Server with it: a key
// the Server forgot while the front end held it would be paid anew.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.jtis = newStore[string, struct{}](jtiWindow, s.cfg.MaxJTIs)
	s.consents = newStore[string, *consent](0, s.cfg.MaxConsents)
	s.consentKeys = newStore[scope, *consentKey](s.cfg.KeyTTL, s.cfg.MaxKeys)
	s.attempts = newStore[scope, *attempt](s.cfg.KeyTTL, s.cfg.MaxKeys)
	s.payments = newStore[string, *payment](0, s.cfg.MaxPayments)
	s.paidKeys = newStore[scope, struct{}](0, s.cfg.MaxPayments)
}

// ServeHTTP serves the API: POST ConsentsPath, GET ConsentsPath/{consentId}, POST
// PaymentsPath and GET PaymentsPath/{paymentId}. Another path gets 404, another method 405
// with Allow, a request without a good x-fapi-interaction-id 400. Every answer echoes the
// x-fapi-interaction-id, or one made up for a request that has none.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x, bad := s.newExchange(w, r)
	path := r.URL.Path
	var allow string
	var serve func()
	switch {
	case path == ConsentsPath:
		allow, serve = http.MethodPost, func() { s.postConsent(x) }
	case strings.HasPrefix(path, ConsentsPath+"/"):
		allow, serve = http.MethodGet, func() { s.getConsent(x, strings.TrimPrefix(path, ConsentsPath+"/")) }
	case path == PaymentsPath:
		allow, serve = http.MethodPost, func() { s.postPayment(x) }
	case strings.HasPrefix(path, PaymentsPath+"/"):
		allow, serve = http.MethodGet, func() { s.getPayment(x, strings.TrimPrefix(path, PaymentsPath+"/")) }
	default:
		x.fail(statusError(http.StatusNotFound, "no resource at "+path))
		return
	}
	switch {
	case r.Method != allow:
		e := statusError(http.StatusMethodNotAllowed, path+" takes "+allow)
		e.header = http.Header{"Allow": {allow}}
		x.fail(e)
	case bad != nil:
		x.fail(bad)
	default:
		serve()
	}
}
