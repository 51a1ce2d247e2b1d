package psp_test

import (
	"slices"
	"time"
)

// pspModel is the PSP's state as the contract says: balance, ledger, answers per key, and the
// keys a lookup closed.
type pspModel struct {
	start     int64 // the starting balance, in cents
	balance   int64
	ttl       time.Duration
	keys      map[scope]*modelKey
	ledger    []*modelKey    // the keys that settled, in settlement order
	closed    map[scope]bool // the keys a lookup found unpaid: never a new entry under them
	downUntil time.Time
}

// modelKey is a completed key: its state under keyModel, and what the balance and the clock made of it.
type modelKey struct {
	keyState   // complete; Answer is "" while only a dropped answer held it
	scope      scope
	status     int       // 201, or 422 insufficient_funds
	endToEndID string    // of a 201: "" until an answer has shown it
	settled    time.Time // the commit instant
	expires    time.Time // settled + KeyTTL: from then on the key is new again, unless closed
}

func newPSPModel(balance int64, ttl time.Duration) *pspModel {
	return &pspModel{start: balance, balance: balance, ttl: ttl, keys: map[scope]*modelKey{},
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

// commit settles p under sc at now if the balance allows it, else stores a refusal. It returns
// the key, whose status is the one to expect.
func (m *pspModel) commit(sc scope, p payload, now time.Time) *modelKey {
	k := &modelKey{keyState: keyState{Phase: keyComplete, Payload: p}, scope: sc, status: 422, settled: now,
		expires: now.Add(m.ttl)}
	if p.cents() <= m.balance {
		k.status = 201
		m.balance -= p.cents()
		m.ledger = append(m.ledger, k)
	}
	m.keys[sc] = k
	return k
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
