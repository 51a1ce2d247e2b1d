package properties

import (
	"net/http"
	"testing"
	"time"

	"pgregory.net/rapid"

	"pixretry/internal/pipenet"
	"pixretry/psp"
)

// The model test's world: two tokens (keys are scoped per token) sharing a small pool of keys,
// so that keys collide across tokens, come back after they expire, and get reused.
var (
	modelTokens  = []string{"token-a", "token-b"}
	modelKeys    = []string{"k1", "k2", "k3", "k4"}
	modelPixKeys = []string{"12345678901", "pix@example.com", "+5511987654321"}
)

// TestPSPMatchesModel drives the psp with a random sequence of actions — send, duplicate
// send, reuse a key with another payload, a burst of concurrent same-key sends, inject a fault
// (then send), advance virtual time (past the key lifetime too), reset — and after every step
// compares the PSP with a model written from the contract: the ledger, the balance, and every
// stored answer, which a replay must return byte for byte.
func TestPSPMatchesModel(t *testing.T) {
	rapid.Check(t, pspMatchesModel)
}

// pspMatchesModel is the property of TestPSPMatchesModel.
func pspMatchesModel(t *rapid.T) {
	balance := rapid.Int64Range(0, 50_000).Draw(t, "balance")
	ttl := rapid.OneOf(msRange(1, 60_000), rapid.Just(defaultKeyTTL)).Draw(t, "KeyTTL")
	rapid.SyncTest(t, func(t *rapid.T) {
		srv, err := psp.NewServer(psp.Config{Tokens: modelTokens, BalanceCents: balance, KeyTTL: ttl})
		if err != nil {
			t.Fatalf("psp.NewServer() error = %v", err)
		}
		pipe := pipenet.NewServer(srv)
		defer pipe.Close()
		mc := &pspMachine{srv: srv, client: pipe.Client(), url: pipe.URL, m: newPSPModel(balance, ttl),
			seen: map[string]bool{}}
		t.Repeat(map[string]func(*rapid.T){
			"send":                             mc.send,
			"duplicate send":                   mc.duplicate,
			"reuse a key with another payload": mc.reuse,
			"burst of same-key sends":          mc.burst,
			"inject a fault, then send":        mc.fault,
			"advance time":                     mc.advance,
			"reset":                            mc.reset,
			"":                                 mc.check,
		})
	})
}

// pspMachine is the state of one model-based run.
type pspMachine struct {
	srv    *psp.Server
	client *http.Client
	url    string
	m      *pspModel
	seen   map[string]bool // every endToEndId answered so far: they must be unique
}

// payloadGen draws a valid payment for a payer that started with balance: affordable, at the
// edge, or beyond it.
func payloadGen(balance int64) *rapid.Generator[payload] {
	return rapid.Custom(func(t *rapid.T) payload {
		return payload{
			Valor:       formatAmount(amountGen(balance).Draw(t, "cents")),
			Chave:       rapid.SampledFrom(modelPixKeys).Draw(t, "chave"),
			InfoPagador: rapid.SampledFrom([]string{"", "aluguel", "ação"}).Draw(t, "infoPagador"),
		}
	})
}

// freeScope draws a token and a key that holds no live answer under it, or skips the action.
func (mc *pspMachine) freeScope(t *rapid.T) scope {
	var free []scope
	for _, token := range modelTokens {
		for _, key := range modelKeys {
			if _, live := mc.m.live(scope{token, key}, time.Now()); !live {
				free = append(free, scope{token, key})
			}
		}
	}
	if len(free) == 0 {
		t.Skip("every key holds a live answer")
	}
	return rapid.SampledFrom(free).Draw(t, "free key")
}

// liveScope draws a token and key with a live answer, or skips the action.
func (mc *pspMachine) liveScope(t *rapid.T) scope {
	live := mc.m.liveScopes(time.Now())
	if len(live) == 0 {
		t.Skip("no key holds a live answer")
	}
	return rapid.SampledFrom(live).Draw(t, "live key")
}

// post sends p under sc to the machine's PSP.
func (mc *pspMachine) post(sc scope, p payload) reply {
	return post(mc.client, mc.url, sc.token, sc.key, p)
}

// send pays a drawn payload under a key with no live answer: processed afresh.
func (mc *pspMachine) send(t *rapid.T) {
	mc.fresh(t, mc.freeScope(t), payloadGen(mc.m.start).Draw(t, "payload"), psp.Fault{})
}

// duplicate sends a live key's payload again: its stored answer, replayed.
func (mc *pspMachine) duplicate(t *rapid.T) {
	mc.replay(t, mc.liveScope(t), psp.Fault{})
}

// reuse sends another payload under a live key: 422 idempotency_key_reused, nothing changes.
func (mc *pspMachine) reuse(t *rapid.T) {
	sc := mc.liveScope(t)
	r := mc.post(sc, otherPayload(mc.m.keys[sc].payload))
	if mc.m.down(time.Now()) {
		wantClosed(t, r)
		return
	}
	if r.Err != nil || r.Status != 422 || problemCode(r.Body) != codeIdempotencyKeyReused || r.Replayed {
		t.Fatalf("a key reused with another payload got %d %q (replayed=%v, error %v), want 422 idempotency_key_reused",
			r.Status, problemCode(r.Body), r.Replayed, r.Err)
	}
}

// advance lets virtual time pass: up to 10 s, or exactly the key lifetime, or just past it.
func (mc *pspMachine) advance(t *rapid.T) {
	ttl := mc.m.ttl
	time.Sleep(rapid.OneOf(msRange(1, 10_000), rapid.SampledFrom([]time.Duration{ttl, ttl + time.Millisecond})).Draw(t,
		"advance by"))
}

// reset resets the PSP, and the model with it.
func (mc *pspMachine) reset(*rapid.T) {
	mc.srv.Reset()
	mc.m.reset()
}
