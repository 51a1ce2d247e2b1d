package efi_test

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"pixretry/psp"
)

// efiModel is the double in Efí's dialect as the package doc says it: the balance, the ledger,
// and per idEnvio its latest payout and whether a lookup closed it.
type efiModel struct {
	cfg     psp.Config
	balance int64
	sent    map[string]*efiSent // by idEnvio, its latest payout, kept after its key expires
	closed  map[string]bool     // the idEnvios a lookup's 404 closed
	pending []*efiSent          // the payouts accepted and not yet ended, in the order accepted
	ledger  []*efiSent          // the payouts settled, in settlement order
}

// efiSent is a payout sent under an idEnvio.
type efiSent struct {
	id       string
	payout   int       // an index in efiPayouts
	refused  bool      // the balance fell short: nothing was paid
	rejected bool      // accepted, it ends NAO_REALIZADO and its valor goes back
	due      time.Time // when it ends: REALIZADO or NAO_REALIZADO
	expires  time.Time // when its key ends, KeyTTL after its end: the idEnvio is then new again
}

func newEfiModel(cfg psp.Config) *efiModel {
	return &efiModel{cfg: cfg, balance: cfg.BalanceCents, sent: map[string]*efiSent{}, closed: map[string]bool{}}
}

// The answers the model gives to a PUT, and the 404 of a lookup.
var (
	answerPending  = efiAnswer{http.StatusCreated, "EM_PROCESSAMENTO"}
	answerSettled  = efiAnswer{http.StatusCreated, "REALIZADO"}
	answerDenied   = efiAnswer{http.StatusUnprocessableEntity, "pagamento_negado"}
	answerConflict = efiAnswer{http.StatusConflict, "id_envio_duplicado"}
	answerNotFound = efiAnswer{http.StatusNotFound, "PixEnviadoNaoEncontrado"}
)

// put is the answer to a PUT of payout under id at now. Under a live key, another payout is a
// conflict and the same one replays the current state. Else a closed idEnvio pays nothing, and
// a new one is paid if the balance allows: pending, or settled at once, its answer
// EM_PROCESSAMENTO either way.
func (m *efiModel) put(id string, payout int, now time.Time) efiAnswer {
	m.endDue(now)
	if k := m.live(id, now); k != nil {
		switch {
		case k.payout != payout:
			return answerConflict
		case k.refused || k.rejected && !now.Before(k.due):
			return answerDenied
		case now.Before(k.due):
			return answerPending
		}
		return answerSettled
	}
	if m.closed[id] {
		return answerDenied
	}
	k := &efiSent{id: id, payout: payout, due: now, expires: now.Add(m.cfg.KeyTTL)}
	m.sent[id] = k
	cents := efiPayouts[payout].cents
	if k.refused = cents > m.balance; k.refused {
		return answerDenied
	}
	m.balance -= cents
	k.rejected = m.cfg.RejectFromCents <= cents && cents <= m.cfg.RejectToCents
	if m.cfg.CompleteAfter == 0 && !k.rejected {
		m.ledger = append(m.ledger, k)
		return answerPending
	}
	k.due = now.Add(m.cfg.CompleteAfter)
	k.expires = k.due.Add(m.cfg.KeyTTL)
	m.pending = append(m.pending, k)
	return answerPending
}

// live is the payout whose key under id lives at now, or nil.
func (m *efiModel) live(id string, now time.Time) *efiSent {
	if k := m.sent[id]; k != nil && now.Before(k.expires) {
		return k
	}
	return nil
}

// lookup is the answer to a lookup of id at now: EM_PROCESSAMENTO while its payout is pending,
// NAO_REALIZADO while the key of its rejected payout lives, else REALIZADO if the ledger holds
// a settlement under id. Else it is 404, and id is closed for good.
func (m *efiModel) lookup(id string, now time.Time) efiAnswer {
	m.endDue(now)
	k := m.sent[id]
	switch {
	case k != nil && !k.refused && now.Before(k.due):
		return efiAnswer{http.StatusOK, "EM_PROCESSAMENTO"}
	case k != nil && k.rejected && now.Before(k.expires):
		return efiAnswer{http.StatusOK, "NAO_REALIZADO"}
	case slices.ContainsFunc(m.ledger, func(s *efiSent) bool { return s.id == id }):
		return efiAnswer{http.StatusOK, "REALIZADO"}
	}
	m.closed[id] = true
	return answerNotFound
}

// endDue ends the payouts due by now. They were accepted with one CompleteAfter, so they end
// in the order accepted: settled, or rejected and their valor back in the balance.
func (m *efiModel) endDue(now time.Time) {
	for len(m.pending) > 0 && !now.Before(m.pending[0].due) {
		k := m.pending[0]
		m.pending = m.pending[1:]
		if k.rejected {
			m.balance += efiPayouts[k.payout].cents
			continue
		}
		m.ledger = append(m.ledger, k)
	}
}

// checkLedger compares s's balance and ledger at now with the model's. So an idEnvio has no
// second settlement while its key lives.
func (m *efiModel) checkLedger(s *psp.Server, now time.Time) error {
	m.endDue(now)
	if got := s.Stats().BalanceCents; got != m.balance {
		return fmt.Errorf("the balance is %d cents, want %d", got, m.balance)
	}
	got := s.Settlements()
	if len(got) != len(m.ledger) {
		return fmt.Errorf("the ledger holds %d settlements, want %d", len(got), len(m.ledger))
	}
	for i, st := range got {
		k, p := m.ledger[i], efiPayouts[m.ledger[i].payout]
		if st.IdempotencyKey != k.id || st.AmountCents != p.cents || st.PixKey != p.chave || st.Description != p.info {
			return fmt.Errorf("settlement %d is %s %d %s %q, want %s %d %s %q", i, st.IdempotencyKey, st.AmountCents,
				st.PixKey, st.Description, k.id, p.cents, p.chave, p.info)
		}
	}
	return nil
}
