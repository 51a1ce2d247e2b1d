package properties

import (
	"context"
	"net/http"
	"testing"
	"time"

	"pgregory.net/rapid"

	"pixretry/internal/pipenet"
	"pixretry/psp"
)

// Two tokens share a few keys, so keys collide across tokens, expire, and get reused.
var (
	modelTokens  = []string{"token-a", "token-b"}
	modelKeys    = []string{"k1", "k2", "k3", "k4"}
	modelPixKeys = []string{"12345678901", "pix@example.com", "+5511987654321"}
)

// TestPSPMatchesModel drives the PSP with random actions, and after each compares its ledger,
// balance and stored answers (replayed byte for byte) with pspModel, written from the contract.
func TestPSPMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		balance := rapid.Int64Range(0, 50_000).Draw(t, "balance")
		ttl := rapid.OneOf(msRange(1, 60_000), rapid.Just(defaultKeyTTL)).Draw(t, "KeyTTL")
		rapid.SyncTest(t, func(t *rapid.T) {
			mc := newPSPMachine(t, balance, ttl)
			t.Repeat(map[string]func(*rapid.T){
				"send":                             mc.send,
				"duplicate send":                   mc.duplicate,
				"reuse a key with another payload": mc.reuse,
				"burst of same-key sends":          mc.burstAny,
				"inject a fault, then send":        mc.fault,
				"advance time":                     mc.advance,
				"reset":                            mc.reset,
				"":                                 mc.check,
			})
		})
	})
}

type pspMachine struct {
	srv    *psp.Server
	client *http.Client
	url    string
	m      *pspModel
	seen   map[string]bool // every endToEndId answered so far: they must be unique
}

// newPSPMachine starts a PSP and its model. Call it inside a synctest bubble.
func newPSPMachine(t *rapid.T, balance int64, ttl time.Duration) *pspMachine {
	srv, err := psp.NewServer(psp.Config{Tokens: modelTokens, BalanceCents: balance, KeyTTL: ttl})
	if err != nil {
		t.Fatalf("psp.NewServer() error = %v", err)
	}
	pipe := pipenet.NewServer(srv)
	t.Cleanup(pipe.Close)
	return &pspMachine{srv: srv, client: pipe.Client(), url: pipe.URL, m: newPSPModel(balance, ttl),
		seen: map[string]bool{}}
}

// payloadGen draws a valid payment: affordable from balance, at the edge, or beyond it.
func payloadGen(balance int64) *rapid.Generator[payload] {
	return rapid.Custom(func(t *rapid.T) payload {
		return payload{
			Valor:       formatAmount(amountGen(balance).Draw(t, "cents")),
			Chave:       rapid.SampledFrom(modelPixKeys).Draw(t, "chave"),
			InfoPagador: rapid.SampledFrom([]string{"", "aluguel", "ação"}).Draw(t, "infoPagador"),
		}
	})
}

func (mc *pspMachine) burstAny(t *rapid.T) {
	sc := scope{rapid.SampledFrom(modelTokens).Draw(t, "token"), rapid.SampledFrom(modelKeys).Draw(t, "key")}
	mc.burst(t, sc, payloadGen(mc.m.start).Draw(t, "payload"), 8)
}

// freeScope draws a token and a key with no live answer, or skips the action.
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

// liveScope draws a token and a key with a live answer, or skips the action.
func (mc *pspMachine) liveScope(t *rapid.T) scope {
	live := mc.m.liveScopes(time.Now())
	if len(live) == 0 {
		t.Skip("no key holds a live answer")
	}
	return rapid.SampledFrom(live).Draw(t, "live key")
}

func (mc *pspMachine) post(sc scope, p payload) reply {
	return post(context.Background(), mc.client, mc.url, sc.token, sc.key, p)
}

func (mc *pspMachine) send(t *rapid.T) {
	mc.fresh(t, mc.freeScope(t), payloadGen(mc.m.start).Draw(t, "payload"), psp.Fault{})
}

func (mc *pspMachine) duplicate(t *rapid.T) { mc.replay(t, mc.liveScope(t), psp.Fault{}) }

// reuse sends another payload under a live key: 422 idempotency_key_reused.
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

// advance lets virtual time pass: up to 10 s, exactly the key lifetime, or just past it.
func (mc *pspMachine) advance(t *rapid.T) {
	ttl := mc.m.ttl
	time.Sleep(rapid.OneOf(msRange(1, 10_000), rapid.SampledFrom([]time.Duration{ttl, ttl + time.Millisecond})).Draw(t,
		"advance by"))
}

func (mc *pspMachine) reset(*rapid.T) {
	mc.srv.Reset()
	mc.m = newPSPModel(mc.m.start, mc.m.ttl)
}

// fault queues a fault, then sends a fresh payment or a replay to take it. A request takes no fault
// while the PSP is down, so the action waits for the window to close.
func (mc *pspMachine) fault(t *rapid.T) {
	if mc.m.down(time.Now()) {
		t.Skip("the PSP is down: the fault would stay queued")
	}
	f := rapid.OneOf(
		rapid.Map(rapid.IntRange(400, 599), psp.Status),
		rapid.Custom(func(t *rapid.T) psp.Fault {
			f := psp.Status(rapid.IntRange(400, 599).Draw(t, "status"))
			f.RetryAfter = msRange(1, 5000).Draw(t, "Retry-After")
			return f
		}),
		rapid.Map(msRange(0, 5000), psp.Slow),
		rapid.Map(msRange(0, 5000), psp.Late),
		rapid.Just(psp.Drop()),
		rapid.Just(psp.ResetConn()),
		rapid.Map(msRange(0, 10_000), psp.Down),
	).Draw(t, "fault")
	live := mc.m.liveScopes(time.Now())
	if len(live) > 0 && rapid.Bool().Draw(t, "on a replay") {
		sc := rapid.SampledFrom(live).Draw(t, "live key")
		mc.srv.Inject(f)
		mc.replay(t, sc, f)
		return
	}
	sc, p := mc.freeScope(t), payloadGen(mc.m.start).Draw(t, "payload")
	mc.srv.Inject(f)
	mc.fresh(t, sc, p, f)
}
