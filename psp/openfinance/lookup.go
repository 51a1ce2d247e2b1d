package openfinance

import (
	"net/http"
	"time"

	"pixretry/psp"
)

// getPayment is GET /pix/payments/{paymentId}: the payment's status now, to the bearer token
// that paid it. There is no lookup by key. The double relays the psp.Server's status lookup
// under the payment's key and maps its answer as POST /pix/payments does. A lookup that finds
// no payment under the key reads RJCT: the Server accepted one under it, and forgets a
// payment only once it has rejected it and its key has expired. Any other token, like an
// unknown paymentId, gets 404.
func (s *Server) getPayment(x *exchange, id string) {
	token, bad := bearer(x.r)
	if bad != nil {
		x.fail(bad)
		return
	}
	s.mu.Lock()
	p, ok := s.payments.get(id, time.Now())
	s.mu.Unlock()
	if !ok || p.token != token {
		x.fail(statusError(http.StatusNotFound, "no payment "+id))
		return
	}
	relayed, ok := psp.Relay(s.next, x.w, nativeLookup(x.r, p.key))
	n := decode(relayed)
	rp := errorReply(n, ok)
	if n.receipt != nil && n.Status/100 == 2 || n.code() == "payment_not_found" {
		s.mu.Lock()
		p.observe(n)
		rp = p.reply(n, false)
		s.mu.Unlock()
	}
	rp.write(x)
}
