package openfinance

import (
	"net/http"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/uuid"

	"pixretry/psp"
)

// attemptState is what the Server knows of the payment under a key of POST /pix/payments.
type attemptState uint8

const (
	attemptFresh   attemptState = iota // no request under the key has been processed by the psp.Server
	attemptUnknown                     // one may have been: the Server may hold a payment under the key
	attemptPaid                        // the Server holds a payment under the key: attempt.payment
	attemptRefused                     // the key was answered a business error: attempt.refusal
)

// attempt is what the Server holds under a key of POST /pix/payments, for Config.KeyTTL. The
// Server's mutex guards it.
type attempt struct {
	data    string    // the data claim first sent under the key, canonical
	created time.Time // when the key was first sent: its payment's creationDateTime
	item    paymentItem
	consent *consent // the consent item names, if its token knows it
	state   attemptState
	refusal *apiError // the answer of attemptRefused
	payment *payment  // the payment of attemptPaid
}

// payment is a payment the psp.Server holds, under the paymentId the double minted for it. The
// Server's mutex guards it.
type payment struct {
	id string
	scope
	item    paymentItem
	debtor  jsontext.Value // the consent's debtorAccount; nil if it had none
	created time.Time
	updated time.Time // its latest statusUpdateDateTime seen
	motivo  string    // why the psp.Server rejected it, if it did and said so
}

// postPayment is POST /pix/payments. After the checks of readSigned and readPayment, the key
// decides, as the idempotency page of payments v4 says: a key first used with other data gets
// 422 ERRO_IDEMPOTENCIA; a key answered a business error gets it again; a key with a payment
// replays it to the psp.Server and answers 201 with the payment's status now. A new key, or
// one whose payment may or may not have been made, is paid: its consent checked, then relayed
// to the Server under the key, one payment of a consent at a time.
func (s *Server) postPayment(x *exchange) {
	req, bad := s.readSigned(x)
	var item paymentItem
	if bad == nil {
		item, bad = readPayment(req.data)
	}
	if bad != nil {
		x.fail(bad)
		return
	}
	data := canonical(req.data)
	for {
		a, bad := s.attemptFor(req.scope, data, item)
		if bad != nil {
			x.fail(bad)
			return
		}
		if s.pay(x, req.scope, a) {
			return
		}
	}
}

// attemptFor returns the attempt under sc, or a new one for data and item. A key first used
// with other data gets 422 ERRO_IDEMPOTENCIA, and a new key when the store is full 529.
func (s *Server) attemptFor(sc scope, data string, item paymentItem) (*attempt, *apiError) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.attempts.get(sc, now); ok {
		if a.data != data {
			return nil, idempotencyError()
		}
		return a, nil
	}
	a := &attempt{data: data, created: now, item: item}
	if c, ok := s.consents.get(item.consentID, now); ok && c.token == sc.token {
		a.consent = c
	}
	if !s.attempts.add(sc, a, now) {
		return nil, keysFull(s.cfg.MaxKeys)
	}
	return a, nil
}

// pay answers the request for a, with its consent's turn held, if it has a consent. A new
// attempt under a key whose payment the Server still holds gets 422 ERRO_IDEMPOTENCIA once its
// consent passes (see the package doc). It reports false, answering nothing, when a is no
// longer the attempt under sc: the key was freed meanwhile, and the request starts over. It
// reports true, answering nothing, when the client leaves while it waits for the turn.
func (s *Server) pay(x *exchange, sc scope, a *attempt) bool {
	if c := a.consent; c != nil {
		if !c.take(x.r.Context()) {
			return true
		}
		defer c.give()
	}
	s.mu.Lock()
	now := time.Now()
	if cur, ok := s.attempts.get(sc, now); !ok || cur != a {
		s.mu.Unlock()
		return false
	}
	if a.state == attemptFresh {
		if e := a.check(now); e != nil {
			a.state, a.refusal = attemptRefused, e
		} else if _, paid := s.paidKeys.get(sc, now); paid {
			s.attempts.delete(sc) // ERRO_IDEMPOTENCIA keeps nothing
			s.mu.Unlock()
			x.fail(idempotencyError())
			return true
		}
	}
	if a.state == attemptRefused {
		e := a.refusal
		s.mu.Unlock()
		x.fail(e)
		return true
	}
	a.consent.inFlight = true
	s.mu.Unlock()
	s.relayPayment(x, sc, a).write(x)
	return true
}

// relayPayment relays a's payment to the psp.Server and settles its answer. When the Server
// hangs up on a connection it cannot take over (HTTP/2, a recorder), Relay panics with
// http.ErrAbortHandler, as ServeHTTP does: relayPayment then settles the payment as one that
// got no answer before the panic goes on.
func (s *Server) relayPayment(x *exchange, sc scope, a *attempt) reply {
	mark := new(readMark)
	settled := false
	defer func() {
		if !settled {
			s.mu.Lock()
			a.consent.inFlight = false
			s.settle(sc, a, native{}, false, mark.read, time.Now())
			s.mu.Unlock()
		}
	}()
	relayed, ok := psp.Relay(s.next, x.w, nativePayment(x.r, sc.key, a.item, mark))
	settled = true
	n := decode(relayed)
	s.mu.Lock()
	defer s.mu.Unlock()
	a.consent.inFlight = false
	return s.settle(sc, a, n, ok, mark.read, time.Now())
}

// check returns the refusal of a fresh attempt by its consent at now, or nil: 422
// CONSENTIMENTO_INVALIDO for a consent unknown, consumed or rejected (the spec's description,
// item 2.2.2.5), or 422 PAGAMENTO_DIVERGENTE_CONSENTIMENTO for a payment that differs from it
// (item 2.2.2.6), which consumes it (the consent's state machine: a 422 consumes it).
func (a *attempt) check(now time.Time) *apiError {
	c := a.consent
	if c == nil {
		return errorf(http.StatusUnprocessableEntity, codeInvalidConsent, "the consent %s is unknown", a.item.consentID)
	}
	if status, _ := c.status(now); status != consentAuthorised {
		return errorf(http.StatusUnprocessableEntity, codeInvalidConsent, "the consent %s is %s", c.id, status)
	}
	if member := c.data.divergence(a.item); member != "" {
		c.consume(now)
		return divergent(member)
	}
	return nil
}

// settle records what n, the psp.Server's answer to a's payment, says, and returns the reply.
// ok and read are as verdictOf takes them. A payment accepted gets a paymentId the first time,
// and consumes the consent. A business refusal is kept under the key, and consumes it. A
// payment that may have been made consumes it too: a real PSP that made it would have, and a
// consent then never reads REJECTED while a payment under it exists. A key whose payment was
// not processed is freed if nothing else was done under it, since only a 201 or a 422 is kept.
func (s *Server) settle(sc scope, a *attempt, n native, ok, read bool, now time.Time) reply {
	switch v := verdictOf(n, ok, read); {
	case v == accepted:
		if a.state != attemptPaid {
			a.state, a.payment = attemptPaid, s.mint(sc, a, now)
			a.consent.consume(now)
		}
		a.payment.observe(n)
		return a.payment.reply(n, true)
	case v == refusal && a.state != attemptPaid:
		a.state, a.refusal = attemptRefused, businessError(n)
		a.consent.consume(now)
		return reply{err: a.refusal}
	case v == uncertain && a.state == attemptFresh:
		a.state = attemptUnknown
		a.consent.consume(now)
	case v == untouched && a.state == attemptFresh:
		s.attempts.delete(sc)
	}
	return errorReply(n, ok)
}

// mint makes the payment of a, paid under sc, with a new paymentId, at now. It was created
// with a: a request under a's key may have made it before the one that learnt of it.
func (s *Server) mint(sc scope, a *attempt, now time.Time) *payment {
	p := &payment{id: uuid.NewString(), scope: sc, item: a.item, debtor: a.consent.data.debtorAccount,
		created: a.created, updated: a.created}
	s.payments.push(p.id, p, now)
	s.paidKeys.push(sc, struct{}{}, now)
	return p
}
