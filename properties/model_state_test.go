package properties

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// pspModel is the PSP's state as the contract says: balance, ledger, and answers per key.
type pspModel struct {
	start     int64 // the starting balance, in cents
	balance   int64
	ttl       time.Duration
	keys      map[scope]*modelKey
	ledger    []modelSettlement // in settlement order
	downUntil time.Time
}

// modelKey is a completed key.
type modelKey struct {
	payload payload
	status  int       // 201, or 422 insufficient_funds
	body    []byte    // the stored answer's body, nil while only a dropped answer held it
	settled time.Time // the commit instant
	expires time.Time // settled + KeyTTL: from then on the key is new again
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

// liveScopes returns the keys alive at now, sorted so that draws over them replay.
func (m *pspModel) liveScopes(now time.Time) []scope {
	var out []scope
	for _, sc := range slices.SortedFunc(maps.Keys(m.keys), compareScopes) {
		if _, ok := m.live(sc, now); ok {
			out = append(out, sc)
		}
	}
	return out
}

// down reports whether a down window is open at now.
func (m *pspModel) down(now time.Time) bool { return now.Before(m.downUntil) }

// commit settles p under sc at now if the balance allows it, else stores a refusal. It returns
// the status to expect.
func (m *pspModel) commit(sc scope, p payload, now time.Time) int {
	status := 422
	if p.cents() <= m.balance {
		status = 201
		m.balance -= p.cents()
		m.ledger = append(m.ledger, modelSettlement{scope: sc, payload: p, at: now})
	}
	m.keys[sc] = &modelKey{payload: p, status: status, settled: now, expires: now.Add(m.ttl)}
	return status
}

// learn records body as the answer stored under sc, and endToEndID in its ledger entry.
func (m *pspModel) learn(sc scope, body []byte, endToEndID string) {
	k := m.keys[sc]
	k.body = body
	for i := range m.ledger {
		if e := &m.ledger[i]; e.scope == sc && e.at.Equal(k.settled) {
			e.endToEndID = endToEndID
		}
	}
}

// state is k in keyModel's terms.
func (k *modelKey) state() keyState {
	s := keyState{Phase: keyComplete, Payload: k.payload}
	if k.body != nil {
		s.Answer = fmt.Sprintf("%d %s", k.status, k.body)
	}
	return s
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

func compareScopes(a, b scope) int {
	return cmp.Or(strings.Compare(a.token, b.token), strings.Compare(a.key, b.key))
}
