package openfinance_test

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"pixretry/psp"
)

// ofModel is the double in payments v4 as the package doc says it: the balance, the ledger,
// the consents, the x-idempotency-keys, the jtis seen, and the payments.
type ofModel struct {
	cfg      psp.Config
	balance  int64
	consents []*ofConsent         // in the order created
	keys     map[string]*ofKey    // by x-idempotency-key, the latest, kept after it expires
	sent     map[string]ofData    // by x-idempotency-key, the data last sent under it
	paid     map[string]*ofPaid   // by x-idempotency-key, its latest payment
	jtis     map[string]time.Time // when each jti was last taken
	unnamed  *ofPaid              // the payment made by the last request, until its answer names it
	payments []*ofPaid            // in the order made
	pending  []*ofPaid            // the payments not yet ended, in the order made
	ledger   []*ofPaid            // the payments settled, in settlement order
}

// The rules of time: how long a key and a jti are kept, and a consent may wait.
const (
	keyLifetime     = 24 * time.Hour
	jtiLifetime     = 24 * time.Hour
	consentLifetime = 60 * time.Minute
)

// ofConsent is a consent created AUTHORISED for a payout.
type ofConsent struct {
	id       string
	payout   int
	created  time.Time
	consumed time.Time // zero while not consumed
}

// ofData is the data claim of a payment: its consent and its payout.
type ofData struct {
	consentID string
	payout    int
}

// ofKey is what an x-idempotency-key holds: the data first sent, and a business refusal or a
// payment.
type ofKey struct {
	data    ofData
	created time.Time
	refusal string // the code of its 422; "" for a payment
	payment *ofPaid
}

// ofPaid is a payment the core accepted.
type ofPaid struct {
	id       string // its paymentId
	key      string
	payout   int
	rejected bool      // it ends RJCT, its amount back in the balance
	due      time.Time // when it ends: ACCP until then
}

func newOFModel(cfg psp.Config) *ofModel {
	return &ofModel{cfg: cfg, balance: cfg.BalanceCents, keys: map[string]*ofKey{}, sent: map[string]ofData{},
		paid: map[string]*ofPaid{}, jtis: map[string]time.Time{}}
}

// newPayment is the id the model expects of a payment it cannot name yet.
const newPayment = "(a new paymentId)"

// status is c's status at now: CONSUMED once consumed, else REJECTED from consentLifetime after
// its creation, its authorisation.
func (c *ofConsent) status(now time.Time) string {
	switch {
	case !c.consumed.IsZero():
		return "CONSUMED"
	case !now.Before(c.created.Add(consentLifetime)):
		return "REJECTED"
	}
	return "AUTHORISED"
}

// status is p's status at now: ACCP until its end, then RJCT or ACSC.
func (p *ofPaid) status(now time.Time) string {
	switch {
	case now.Before(p.due):
		return "ACCP"
	case p.rejected:
		return "RJCT"
	}
	return "ACSC"
}

// live is what key holds at now, or nil if it holds nothing, or no longer.
func (m *ofModel) live(key string, now time.Time) *ofKey {
	if k := m.keys[key]; k != nil && now.Before(k.created.Add(keyLifetime)) {
		return k
	}
	return nil
}

// created records the consent id created for payout at now, and returns its answer.
func (m *ofModel) created(id string, payout int, now time.Time) ofAnswer {
	m.consents = append(m.consents, &ofConsent{id: id, payout: payout, created: now})
	return ofAnswer{http.StatusCreated, "AUTHORISED", id}
}

// pay is the answer to a payment of d under key at now, signed with jti. A jti taken within
// jtiLifetime is refused. A key kept answers other data with ERRO_IDEMPOTENCIA, and the same
// data with its refusal or its payment's status now. A new key is refused unless its consent
// is AUTHORISED, then consumes it, refused if it diverges or the balance falls short, else paid.
// A key let go whose payment is held gets ERRO_IDEMPOTENCIA once the consent passes, and
// consumes nothing.
func (m *ofModel) pay(key string, d ofData, jti string, now time.Time) ofAnswer {
	m.endDue(now)
	if taken, ok := m.jtis[jti]; ok && now.Before(taken.Add(jtiLifetime)) {
		return ofAnswer{http.StatusForbidden, "INVALID_CLIENT", ""}
	}
	m.jtis[jti], m.sent[key] = now, d
	if k := m.live(key, now); k != nil {
		switch {
		case k.data != d:
			return ofAnswer{http.StatusUnprocessableEntity, "ERRO_IDEMPOTENCIA", ""}
		case k.refusal != "":
			return ofAnswer{http.StatusUnprocessableEntity, k.refusal, ""}
		}
		return ofAnswer{http.StatusCreated, k.payment.status(now), k.payment.id}
	}
	k := &ofKey{data: d, created: now}
	m.keys[key] = k
	c := m.consentByID(d.consentID)
	p := ofPayouts[d.payout]
	switch {
	case c == nil || c.status(now) != "AUTHORISED":
		k.refusal = "CONSENTIMENTO_INVALIDO"
	case ofPayouts[c.payout].cents != p.cents || ofPayouts[c.payout].proxy != p.proxy:
		k.refusal = "PAGAMENTO_DIVERGENTE_CONSENTIMENTO"
	case m.paid[key] != nil: // a payment under the key is held: nothing is paid or kept
		delete(m.keys, key)
		return ofAnswer{http.StatusUnprocessableEntity, "ERRO_IDEMPOTENCIA", ""}
	case p.cents > m.balance:
		k.refusal = "SALDO_INSUFICIENTE"
	}
	if c != nil && k.refusal != "CONSENTIMENTO_INVALIDO" {
		c.consumed = now
	}
	if k.refusal != "" {
		return ofAnswer{http.StatusUnprocessableEntity, k.refusal, ""}
	}
	k.payment = m.accept(key, d.payout, now)
	if slices.Contains(m.pending, k.payment) {
		return ofAnswer{http.StatusCreated, "ACCP", newPayment} // pending when made, though it may end now
	}
	return ofAnswer{http.StatusCreated, "ACSC", newPayment}
}

// accept debits payout and makes its payment under key at now: pending for CompleteAfter if
// the core rejects its amount or CompleteAfter is not 0, else settled at once.
func (m *ofModel) accept(key string, payout int, now time.Time) *ofPaid {
	cents := ofPayouts[payout].cents
	m.balance -= cents
	p := &ofPaid{key: key, payout: payout, due: now.Add(m.cfg.CompleteAfter),
		rejected: m.cfg.RejectFromCents <= cents && cents <= m.cfg.RejectToCents}
	m.paid[key], m.unnamed = p, p
	m.payments = append(m.payments, p)
	if p.rejected || m.cfg.CompleteAfter > 0 {
		m.pending = append(m.pending, p)
	} else {
		m.ledger = append(m.ledger, p)
	}
	return p
}

// named gives id to the payment the last request made, and returns it, unless another payment
// has it: then it returns newPayment.
func (m *ofModel) named(id string) string {
	if id == "" || m.payment(id) != nil {
		return newPayment
	}
	m.unnamed.id = id
	return id
}

// endDue ends the payments due by now, in the order made: settled, or rejected and their
// amount back in the balance.
func (m *ofModel) endDue(now time.Time) {
	for len(m.pending) > 0 && !now.Before(m.pending[0].due) {
		p := m.pending[0]
		m.pending = m.pending[1:]
		if p.rejected {
			m.balance += ofPayouts[p.payout].cents
			continue
		}
		m.ledger = append(m.ledger, p)
	}
}

// getPayment is the answer to GET of the paymentId id at now.
func (m *ofModel) getPayment(id string, now time.Time) ofAnswer {
	m.endDue(now)
	if p := m.payment(id); p != nil {
		return ofAnswer{http.StatusOK, p.status(now), id}
	}
	return ofAnswer{http.StatusNotFound, "NOT_FOUND", ""}
}

// getConsent is the answer to GET of the consent id at now.
func (m *ofModel) getConsent(id string, now time.Time) ofAnswer {
	return ofAnswer{http.StatusOK, m.consentByID(id).status(now), id}
}

// consentID is the id of the consent created nth before the latest, or unknownConsent.
func (m *ofModel) consentID(nth int) string {
	if nth >= len(m.consents) {
		return unknownConsent
	}
	return m.consents[len(m.consents)-1-nth].id
}

// consentByID is the consent id, or nil.
func (m *ofModel) consentByID(id string) *ofConsent {
	if i := slices.IndexFunc(m.consents, func(c *ofConsent) bool { return c.id == id }); i >= 0 {
		return m.consents[i]
	}
	return nil
}

// unknownPayment is a paymentId the double never mints: its UUIDs are random, of version 4.
const unknownPayment = "00000000-0000-0000-0000-000000000000"

// paymentID is the paymentId of key's latest payment, or unknownPayment.
func (m *ofModel) paymentID(key string) string {
	if p := m.paid[key]; p != nil {
		return p.id
	}
	return unknownPayment
}

// payment is the payment id, or nil.
func (m *ofModel) payment(id string) *ofPaid {
	if i := slices.IndexFunc(m.payments, func(p *ofPaid) bool { return p.id == id }); i >= 0 {
		return m.payments[i]
	}
	return nil
}

// checkLedger compares core's balance and ledger at now with the model's, each settlement's
// endToEndId the one its client made. So a key has no second settlement while it is kept.
func (m *ofModel) checkLedger(core *psp.Server, now time.Time) error {
	m.endDue(now)
	if got := core.Stats().BalanceCents; got != m.balance {
		return fmt.Errorf("the balance is %d cents, want %d", got, m.balance)
	}
	got := core.Settlements()
	if len(got) != len(m.ledger) {
		return fmt.Errorf("the ledger holds %d settlements, want %d", len(got), len(m.ledger))
	}
	for i, st := range got {
		p, want := m.ledger[i], ofPayouts[m.ledger[i].payout]
		if st.IdempotencyKey != p.key || st.AmountCents != want.cents || st.PixKey != want.proxy ||
			st.Description != want.remittance || st.EndToEndID != ofEndToEndID(p.payout) {
			return fmt.Errorf("settlement %d is %s %d %s %q %s, want %s %d %s %q %s", i, st.IdempotencyKey, st.AmountCents,
				st.PixKey, st.Description, st.EndToEndID, p.key, want.cents, want.proxy, want.remittance, ofEndToEndID(p.payout))
		}
	}
	return nil
}
