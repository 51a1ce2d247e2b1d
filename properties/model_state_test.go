package properties

import "time"

// pspModel is the PSP's state as the contract says: balance, ledger, and answers per key.
type pspModel struct {
	start     int64 // the starting balance, in cents
	balance   int64
	ttl       time.Duration
	keys      map[scope]*modelKey
	ledger    []*modelKey // the keys that settled, in settlement order
	downUntil time.Time
}

// modelKey is a completed key: its state under keyModel, and what the balance and the clock made of it.
type modelKey struct {
	keyState   // complete; Answer is "" while only a dropped answer held it
	scope      scope
	status     int       // 201, or 422 insufficient_funds
	endToEndID string    // of a 201: "" until an answer has shown it
	settled    time.Time // the commit instant
	expires    time.Time // settled + KeyTTL: from then on the key is new again
}

func newPSPModel(balance int64, ttl time.Duration) *pspModel {
	return &pspModel{start: balance, balance: balance, ttl: ttl, keys: map[scope]*modelKey{}}
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

// otherPayload differs from p in its description alone.
func otherPayload(p payload) payload {
	if p.InfoPagador == "" {
		p.InfoPagador = "outro"
	} else {
		p.InfoPagador = ""
	}
	return p
}
