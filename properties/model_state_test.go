package properties

import "time"

// pspModel is the PSP's state as the contract says: balance, ledger, and answers per key.
type pspModel struct {
	start     int64 // the starting balance, in cents
	balance   int64
	ttl       time.Duration
	keys      map[scope]*modelKey
	ledger    []modelSettlement // in settlement order
	downUntil time.Time
}

// modelKey is a completed key: its state under keyModel, and what the balance and the clock made of it.
type modelKey struct {
	keyState           // complete; Answer is "" while only a dropped answer held it
	status   int       // 201, or 422 insufficient_funds
	settled  time.Time // the commit instant
	expires  time.Time // settled + KeyTTL: from then on the key is new again
}

// modelSettlement is one ledger entry. Its endToEndID is "" until an answer has shown it.
type modelSettlement struct {
	scope      scope
	payload    payload
	endToEndID string
	at         time.Time
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
	status := 422
	if p.cents() <= m.balance {
		status = 201
		m.balance -= p.cents()
		m.ledger = append(m.ledger, modelSettlement{scope: sc, payload: p, at: now})
	}
	k := &modelKey{keyState: keyState{Phase: keyComplete, Payload: p}, status: status, settled: now,
		expires: now.Add(m.ttl)}
	m.keys[sc] = k
	return k
}

// learn records endToEndID in the ledger entry of sc's key.
func (m *pspModel) learn(sc scope, endToEndID string) {
	for i := range m.ledger {
		if e := &m.ledger[i]; e.scope == sc && e.at.Equal(m.keys[sc].settled) {
			e.endToEndID = endToEndID
		}
	}
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
