package properties

import (
	"context"
	"io"
	"net/http"
	"net/url"
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
// Each payment's answer is judged by stepKey, the step function TestPSPIsLinearizable judges
// with, unless a lookup closed its key; each lookup's by pspModel.lookup.
func TestPSPMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		balance := rapid.Int64Range(0, 50_000).Draw(t, "balance")
		ttl := rapid.OneOf(msRange(1, 60_000), rapid.Just(defaultKeyTTL)).Draw(t, "KeyTTL")
		rapid.SyncTest(t, func(t *rapid.T) {
			srv, err := psp.NewServer(psp.Config{Tokens: modelTokens, BalanceCents: balance, KeyTTL: ttl})
			if err != nil {
				t.Fatalf("psp.NewServer() error = %v", err)
			}
			pipe := pipenet.NewServer(srv)
			t.Cleanup(pipe.Close)
			mc := &pspMachine{srv: srv, client: pipe.Client(), url: pipe.URL, m: newPSPModel(balance, ttl),
				seen: map[string]bool{}}
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
	srv    *psp.Server
	client *http.Client
	url    string
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
			Valor:       formatAmount(amountGen(balance).Draw(t, "cents")),
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
	return post(context.Background(), mc.client, mc.url, s.token, s.key, s.payload)
}

// get looks up sc's key under sc's token: GET PaymentsPath?idempotency_key=KEY.
func (mc *pspMachine) get(sc scope) reply {
	query := url.Values{lookupParam: {sc.key}}.Encode()
	req, err := http.NewRequest(http.MethodGet, mc.url+paymentsPath+"?"+query, nil)
	if err != nil {
		panic("properties: building a lookup: " + err.Error())
	}
	req.Header.Set("Authorization", "Bearer "+sc.token)
	resp, err := mc.client.Do(req)
	if err != nil {
		return reply{Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return reply{Status: resp.StatusCode, Body: data, Err: err}
}

// advance lets virtual time pass: up to 10 s, exactly the key lifetime, or just past it.
func (mc *pspMachine) advance(t *rapid.T) {
	ttl := mc.m.ttl
	by := rapid.OneOf(msRange(1, 10_000), rapid.SampledFrom([]time.Duration{ttl, ttl + time.Millisecond}))
	time.Sleep(by.Draw(t, "advance by"))
}

func (mc *pspMachine) reset(*rapid.T) {
	mc.srv.Reset()
	mc.m = newPSPModel(mc.m.start, mc.m.ttl)
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
			f.RetryAfter = msRange(1, 5000).Draw(t, "Retry-After")
			return f
		}),
		rapid.Map(msRange(0, 5000), psp.Slow),
		rapid.Map(msRange(0, 5000), psp.Late),
		rapid.Just(psp.Drop()),
		rapid.Just(psp.ResetConn()),
		rapid.Map(msRange(0, 10_000), psp.Down),
	).Draw(t, "fault")
	s := mc.request(t, rapid.Bool().Draw(t, "under a live key"))
	mc.srv.Inject(f)
	mc.send(t, s, f)
}
