package psp_test

import (
	"slices"
	"time"

	"pixretry/psp"
)

// pspModel is the PSP's state as the contract says: balance, ledger, answers per key, the keys a
// lookup closed, and the payments accepted pending.
type pspModel struct {
	start     int64 // the starting balance, in cents
	balance   int64
	ttl       time.Duration
	rules     pendingRules
	keys      map[scope]*modelKey
	ledger    []*modelKey    // the keys that settled, in settlement order
	closed    map[scope]bool // the keys a lookup found unpaid: never a new entry under them
	pending   []*modelKey    // the payments accepted pending, in the order accepted
	rejected  int64          // the payments accepted, then rejected
	downUntil time.Time
}

// pendingRules are the Config that leaves payments pending: CompleteAfter, and the rejected
// range of valor (none if to is 0).
type pendingRules struct {
	completeAfter time.Duration
	from, to      int64
}

// modelKey is a completed key: its state under keyModel, and what the balance and the clock made of it.
type modelKey struct {
	keyState   // complete; Answer is "" while only a dropped answer held it, or once a pending payment ended
	scope      scope
	status     int       // 201; 202 while pending; 422 insufficient_funds, or payment_rejected once rejected
	endToEndID string    // of an accepted payment: "" until an answer has shown it
	accepted   time.Time // the commit instant: the minute of the endToEndId
	settled    time.Time // the horario of its answers: the commit instant, or the end of a pending payment
	expires    time.Time // settled + KeyTTL, its end's for a pending payment: from then on the key is new again, unless closed
	due        time.Time // a pending payment's end; zero for one settled at once
	rejected   string    // the motivo of a payment accepted, then rejected (once due); "" for one settled
}

func newPSPModel(balance int64, ttl time.Duration, rules pendingRules) *pspModel {
	return &pspModel{start: balance, balance: balance, ttl: ttl, rules: rules, keys: map[scope]*modelKey{},
		closed: map[scope]bool{}}
}

// live returns the key of sc if it is completed and not yet expired at now.
func (m *pspModel) live(sc scope, now time.Time) (*modelKey, bool) {
	k, ok := m.keys[sc]
	if !ok || !now.Before(k.expires) {
		return nil, false
	}
	return k, true
}

// down reports whether a down window is open at now.
func (m *pspModel) down(now time.Time) bool { return now.Before(m.downUntil) }

// commit accepts p under sc at now, under fault f, if the balance allows it, else stores a
// refusal. An accepted payment settles at once, or stays pending as course says. It returns the
// key, whose status is the one to expect.
func (m *pspModel) commit(sc scope, p payload, now time.Time, f psp.Fault) *modelKey {
	k := &modelKey{keyState: keyState{Phase: keyComplete, Payload: p}, scope: sc, status: 422, accepted: now,
		settled: now, expires: now.Add(m.ttl)}
	m.keys[sc] = k
	if p.cents() > m.balance {
		return k
	}
	m.balance -= p.cents()
	k.status = 201
	if after, motivo, pending := m.course(p.cents(), f); pending {
		k.status, k.due, k.rejected, k.expires = 202, now.Add(after), motivo, now.Add(after+m.ttl)
		m.pending = append(m.pending, k)
		return k
	}
	m.ledger = append(m.ledger, k)
	return k
}

// course says whether a payment of cents accepted under fault f is left pending, for how long,
// and, if it is then rejected, why: a pending fault decides, else the rejected range, else
// CompleteAfter.
func (m *pspModel) course(cents int64, f psp.Fault) (after time.Duration, motivo string, pending bool) {
	r := m.rules
	switch {
	case f.Kind == "pending" && f.Then == "rejected":
		return f.Duration, "rejected by a pending fault", true
	case f.Kind == "pending":
		return f.Duration, "", true
	case r.to > 0 && r.from <= cents && cents <= r.to:
		return r.completeAfter, "valor " + psp.FormatAmount(cents) + " is in the range the PSP rejects, " +
			psp.FormatAmount(r.from) + " to " + psp.FormatAmount(r.to), true
	}
	return r.completeAfter, "", r.completeAfter > 0
}

// endDue ends the pending payments due by now, the earliest first, those due at one instant in
// the order accepted: settled into the ledger, or rejected and their valor back in the balance.
// Each is answered anew from then on, so its answer is learnt again.
func (m *pspModel) endDue(now time.Time) {
	slices.SortStableFunc(m.pending, func(a, b *modelKey) int { return a.due.Compare(b.due) })
	for len(m.pending) > 0 && !now.Before(m.pending[0].due) {
		k := m.pending[0]
		m.pending = m.pending[1:]
		k.settled, k.Answer, k.status = k.due, "", 201
		if k.rejected != "" {
			k.status = 422
			m.balance += k.Payload.cents()
			m.rejected++
			continue
		}
		m.ledger = append(m.ledger, k)
	}
}

// lookup is a status lookup of sc: the latest settlement in the ledger under sc, however long
// ago its key expired. If there is none, it returns nil and closes sc for good.
func (m *pspModel) lookup(sc scope) *modelKey {
	for _, k := range slices.Backward(m.ledger) {
		if k.scope == sc {
			return k
		}
	}
	m.closed[sc] = true
	return nil
}

// otherPayload differs from p in its description alone.
func otherPayload(p payload) payload {
	if p.InfoPagador == "" {
		p.InfoPagador = "outro"
	} else {
		p.InfoPagador = ""
	}
	return p
}
