package psp_test

// The PSP's property tests, in the files property_*_test.go, prove the double against its
// contract with rapid, in virtual time, over psptest's in-memory pipes.
//
// TestPSPMatchesModel is a state machine: random payments, lookups, faults, resets and pauses
// past the key lifetime, each answer compared with pspModel (property_model_state_test.go), a
// model as plain as a map of keys and a ledger. Payments may be left pending, by a pending fault,
// CompleteAfter or a rejected range, and end while time passes. TestPSPIsLinearizable sends concurrent histories
// and asks porcupine whether some order of the requests explains every answer under keyModel
// (property_linearizable_model_test.go), the contract of one key; checkLedger then checks the
// money. TestPlantedBugsAreNotLinearizable shows that each planted bug is caught.
//
// Run them with
//
//	go test -race -run 'TestPSPMatchesModel|TestPSPIsLinearizable|TestPlantedBugs|TestKeyModel' ./psp/
//
// RAPID_CHECKS=10000 runs more histories. A failed linearizability check writes porcupine's
// visualization to $LINEARIZABILITY_HTML, else to a file in the temporary directory it names.

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"pgregory.net/rapid"

	"pixretry/psp"
	"pixretry/psp/psptest"
	"pixretry/retry/retrytest"
)

// Two tokens share a few keys, so keys collide across tokens, expire, and get reused.
var (
	modelTokens  = []string{"token-a", "token-b"}
	modelKeys    = []string{"k1", "k2", "k3", "k4"}
	modelPixKeys = []string{"12345678901", "pix@example.com", "+5511987654321"}
)

// TestPSPMatchesModel drives the PSP with random actions, and after each compares its ledger,
// balance and stored answers (replayed byte for byte) with pspModel, written from the contract.
// Each payment's answer is judged by stepKey, the step function TestPSPIsLinearizable judges
// with, unless a lookup closed its key or the payment is accepted pending (a 202, which keyModel
// does not know); each lookup's by pspModel.lookup, or by the key of a payment pending or rejected.
func TestPSPMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		balance := rapid.Int64Range(0, 50_000).Draw(t, "balance")
		ttl := rapid.OneOf(retrytest.Millis(1, 60_000), rapid.Just(psp.DefaultConfig().KeyTTL)).Draw(t, "KeyTTL")
		rules := pendingRulesGen(balance).Draw(t, "pending rules")
		rapid.SyncTest(t, func(t *rapid.T) {
			srv, err := psptest.NewServer(psp.Config{Tokens: modelTokens, BalanceCents: balance, KeyTTL: ttl,
				CompleteAfter: rules.completeAfter, RejectFromCents: rules.from, RejectToCents: rules.to})
			if err != nil {
				t.Fatalf("psptest.NewServer() error = %v", err)
			}
			t.Cleanup(srv.Close)
			mc := &pspMachine{srv: srv, client: srv.HTTPClient(), m: newPSPModel(balance, ttl, rules), seen: map[string]bool{}}
			t.Repeat(map[string]func(*rapid.T){
				"send under a free key":     func(t *rapid.T) { mc.send(t, mc.request(t, false), psp.Fault{}) },
				"send under a live key":     func(t *rapid.T) { mc.send(t, mc.request(t, true), psp.Fault{}) },
				"inject a fault, then send": mc.fault,
				"look up a key":             mc.lookup,
				"advance time":              mc.advance,
				"reset":                     mc.reset,
				"":                          mc.check,
			})
		})
	})
}

type pspMachine struct {
	srv    *psptest.Server
	client *http.Client
	m      *pspModel
	seen   map[string]bool // every endToEndId answered so far: they must be unique
}

// sent is a request of the machine: a key and a payload.
type sent struct {
	scope
	payload
}

// payloadGen draws a valid payment: affordable from balance, at the edge, or beyond it.
func payloadGen(balance int64) *rapid.Generator[payload] {
	return rapid.Custom(func(t *rapid.T) payload {
		return payload{
			Valor:       psp.FormatAmount(amountGen(balance).Draw(t, "cents")),
			Chave:       rapid.SampledFrom(modelPixKeys).Draw(t, "chave"),
			InfoPagador: rapid.SampledFrom([]string{"", "aluguel", "ação"}).Draw(t, "infoPagador"),
		}
	})
}

// scopes are the tokens and keys that hold a live answer at now if live is true, else the others.
func (mc *pspMachine) scopes(live bool, now time.Time) []scope {
	var out []scope
	for _, token := range modelTokens {
		for _, key := range modelKeys {
			if _, ok := mc.m.live(scope{token, key}, now); ok == live {
				out = append(out, scope{token, key})
			}
		}
	}
	return out
}

// request draws a fresh payment under a key with no live answer, or, if live, the stored payload
// or another one under a live key. It skips the action if no key fits.
func (mc *pspMachine) request(t *rapid.T, live bool) sent {
	fit := mc.scopes(live, time.Now())
	if len(fit) == 0 {
		t.Skipf("no key fits (live=%v)", live)
	}
	sc := rapid.SampledFrom(fit).Draw(t, "key")
	if !live {
		return sent{sc, payloadGen(mc.m.start).Draw(t, "payload")}
	}
	p := mc.m.keys[sc].Payload
	if rapid.Bool().Draw(t, "another payload") {
		p = otherPayload(p)
	}
	return sent{sc, p}
}

func (mc *pspMachine) post(s sent) reply {
	return postPayment(context.Background(), mc.client, mc.srv.URL, s.token, s.key, s.payload)
}

// get looks up sc's key under sc's token: GET PaymentsPath?idempotency_key=KEY.
func (mc *pspMachine) get(sc scope) reply {
	query := url.Values{psp.LookupParam: {sc.key}}.Encode()
	req, err := http.NewRequest(http.MethodGet, mc.srv.URL+psp.PaymentsPath+"?"+query, nil)
	if err != nil {
		panic("psp_test: building a lookup: " + err.Error())
	}
	req.Header.Set("Authorization", "Bearer "+sc.token)
	return readReply(mc.client.Do(req))
}

// advance lets virtual time pass: up to 10 s, exactly the key lifetime, or just past it.
func (mc *pspMachine) advance(t *rapid.T) {
	ttl := mc.m.ttl
	by := rapid.OneOf(retrytest.Millis(1, 10_000), rapid.SampledFrom([]time.Duration{ttl, ttl + time.Millisecond}))
	time.Sleep(by.Draw(t, "advance by"))
}

func (mc *pspMachine) reset(*rapid.T) {
	mc.srv.Reset()
	mc.m = newPSPModel(mc.m.start, mc.m.ttl, mc.m.rules)
}

// pendingRulesGen draws the Config that leaves payments pending: mostly none, as by default,
// else a CompleteAfter, a rejected range within balance, or both.
func pendingRulesGen(balance int64) *rapid.Generator[pendingRules] {
	return rapid.Custom(func(t *rapid.T) pendingRules {
		var r pendingRules
		if rapid.IntRange(0, 3).Draw(t, "rules") == 0 {
			return r
		}
		if rapid.Bool().Draw(t, "CompleteAfter") {
			r.completeAfter = retrytest.Millis(1, 5000).Draw(t, "complete after")
		}
		if rapid.Bool().Draw(t, "a rejected range") {
			r.from = rapid.Int64Range(1, max(balance, 1)).Draw(t, "reject from")
			r.to = rapid.Int64Range(r.from, max(balance, 1)).Draw(t, "reject to")
		}
		return r
	})
}

// fault queues a fault, then sends under a free or a live key to take it. A request takes no
// fault while the PSP is down, so the action waits for the window to close.
func (mc *pspMachine) fault(t *rapid.T) {
	if mc.m.down(time.Now()) {
		t.Skip("the PSP is down: the fault would stay queued")
	}
	f := rapid.OneOf(
		rapid.Map(rapid.IntRange(400, 599), psp.Status),
		rapid.Custom(func(t *rapid.T) psp.Fault {
			f := psp.Status(rapid.IntRange(400, 599).Draw(t, "status"))
			f.RetryAfter = retrytest.Millis(1, 5000).Draw(t, "Retry-After")
			return f
		}),
		rapid.Map(retrytest.Millis(0, 5000), psp.Slow),
		rapid.Map(retrytest.Millis(0, 5000), psp.Late),
		rapid.Just(psp.Drop()),
		rapid.Just(psp.ResetConn()),
		rapid.Map(retrytest.Millis(0, 10_000), psp.Down),
		rapid.Custom(func(t *rapid.T) psp.Fault {
			return psp.Pending(retrytest.Millis(0, 10_000).Draw(t, "after"),
				rapid.SampledFrom([]string{"settled", "rejected"}).Draw(t, "then"))
		}),
	).Draw(t, "fault")
	s := mc.request(t, rapid.Bool().Draw(t, "under a live key"))
	mc.srv.Inject(f)
	mc.send(t, s, f)
}
