package psp_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing/synctest"
	"time"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"

	"pixretry/psp"
	"pixretry/psp/psptest"
	"pixretry/retry/retrytest"
)

// linPlan is a history to record: what each client sends, in order.
type linPlan struct {
	BalanceCents int64
	Burst        bool // every client's first request goes under one key at the same instant
	Clients      [][]linSend
}

// linSend is one request of a client.
type linSend struct {
	Pause   time.Duration // how long the client waits before it
	Token   string
	Key     string
	Cents   int64
	Fault   psp.Fault     // queued just before the request, the zero Fault for none; the next request takes it
	Timeout time.Duration // how long the client waits for the answer; 0 means as long as it takes
}

// Few keys and amounts make requests collide under a key, with the same payload and another.
var (
	linTokens  = []string{"token-a", "token-b"}
	linKeys    = []string{"k1", "k2", "k3"}
	linAmounts = []int64{10_000, 25_000}
	linFaults  = []string{"", "", "slow", "slow", "drop"}
)

const linPixKey = "pix@example.com"

// drawPlan draws 2 to 16 clients of 1 to 10 requests each, maybe starting with a same-key burst.
func drawPlan(t *rapid.T) linPlan {
	plan := linPlan{
		BalanceCents: rapid.Int64Range(0, 150_000).Draw(t, "balance"),
		Burst:        rapid.Bool().Draw(t, "burst"),
	}
	sends := rapid.SliceOfN(rapid.Custom(drawSend), 1, 10)
	for c := range rapid.IntRange(2, 16).Draw(t, "clients") {
		plan.Clients = append(plan.Clients, sends.Draw(t, fmt.Sprintf("client %d", c)))
		if plan.Burst {
			first := &plan.Clients[c][0]
			first.Pause, first.Token, first.Key = 0, linTokens[0], linKeys[0]
		}
	}
	return plan
}

// drawSend draws a request. Shrinking brings pauses to 0 (all at once) and drops faults.
func drawSend(t *rapid.T) linSend {
	s := linSend{
		Pause: retrytest.Millis(0, 20).Draw(t, "pause"),
		Token: rapid.SampledFrom(linTokens).Draw(t, "token"),
		Key:   rapid.SampledFrom(linKeys).Draw(t, "key"),
		Cents: rapid.SampledFrom(linAmounts).Draw(t, "cents"),
		Fault: psp.Fault{Kind: rapid.SampledFrom(linFaults).Draw(t, "fault")},
	}
	if s.Fault.Kind == "slow" {
		s.Fault.Duration = retrytest.Millis(1, 30).Draw(t, "delay") // the key stays in flight: the same payload meets 409
	}
	if rapid.IntRange(0, 3).Draw(t, "client gives up") == 3 {
		s.Timeout = retrytest.Millis(1, 40).Draw(t, "timeout")
	}
	return s
}

// recordHistory sends plan from one goroutine per client to wrap(PSP), or to the PSP if wrap is
// nil, over psptest's in-memory pipes. Call it inside a synctest bubble: pauses and timeouts are
// virtual. It returns the history, and what checkLedger says of the PSP's ledger after it.
func recordHistory(plan linPlan, wrap func(http.Handler) http.Handler) ([]porcupine.Operation, error) {
	front := func(double *psp.Server) http.Handler {
		if wrap != nil {
			return wrap(double)
		}
		return double
	}
	srv, err := psptest.NewServerBehind(psp.Config{Tokens: linTokens, BalanceCents: plan.BalanceCents}, front)
	if err != nil {
		return nil, err
	}
	// One connection per request: a request sent on a pooled connection that broke would be lost
	// before the PSP saw it, which a lost answer must not be.
	transport := srv.Transport().Clone()
	transport.DisableKeepAlives = true
	rec := &recorder{client: &http.Client{Transport: transport}, base: srv.URL}
	var wg sync.WaitGroup
	for c, sends := range plan.Clients {
		wg.Go(func() {
			for _, s := range sends {
				time.Sleep(s.Pause)
				if s.Fault.Kind != "" {
					if s.Fault.Kind == "drop" {
						rec.drops.Add(1)
					}
					srv.Inject(s.Fault)
				}
				rec.send(c, s)
			}
		})
	}
	wg.Wait()
	// A slow fault goes on after its client gave up: let every handler get as far as it can,
	// then Close waits for the rest before the ledger is read.
	synctest.Wait()
	srv.Close()
	return rec.history, rec.checkLedger(srv.Server, plan.BalanceCents)
}

// recorder records each request's call and return on a logical clock shared by all clients.
type recorder struct {
	client   *http.Client
	base     string
	clock    atomic.Int64
	requests atomic.Int64
	drops    atomic.Int64 // drop faults queued
	mu       sync.Mutex
	history  []porcupine.Operation
	lost     int         // answers lost
	outcomes []linAnswer // the answers 201 or 422 insufficient_funds, fresh or replayed
}

// linAnswer is a request and its answer.
type linAnswer struct {
	sent
	reply
}

// send sends s for client and records it. A request without an answer was given up if its timeout
// ran out, else lost after processing: no other fault here closes a connection.
func (r *recorder) send(client int, s linSend) {
	ctx, cancel := context.WithCancel(context.Background())
	if s.Timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
	}
	defer cancel()
	p := payload{Valor: psp.FormatAmount(s.Cents), Chave: linPixKey}
	in := keyInput{ID: scope{s.Token, s.Key}, Request: int(r.requests.Add(1)), Payload: p}
	call := r.clock.Add(1)
	rep := postPayment(ctx, r.client, r.base, s.Token, s.Key, p)
	ret := r.clock.Add(1)
	out := classify(rep)
	if out.Kind == answerLost && ctx.Err() != nil {
		out.Kind = answerNone
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.history = append(r.history, operations(client, in, out, call, ret)...)
	if out.Kind == answerLost {
		r.lost++
	}
	if out.Kind == answerFresh || out.Kind == answerReplay {
		r.outcomes = append(r.outcomes, linAnswer{sent{in.ID, p}, rep})
	}
}

// operations are a request's operations: a reserve and a commit for a fresh answer or none, else
// an observation. A request given up never returns, so it may take effect at any time.
func operations(client int, in keyInput, out keyOutput, call, ret int64) []porcupine.Operation {
	if out.Kind == answerNone {
		ret = math.MaxInt64
	}
	op := func(step keyStep) porcupine.Operation {
		in.Step = step
		return porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret}
	}
	if out.Kind == answerFresh || out.Kind == answerLost || out.Kind == answerNone {
		return []porcupine.Operation{op(stepReserve), op(stepCommit)}
	}
	return []porcupine.Operation{op(stepObserve)}
}

// checkLedger checks what keyModel leaves out: the ledger and the balance. Only a drop fault loses
// an answer. Each settlement is under a key a client sent, and no other settlement is under it.
// Every 201 under a key is the receipt of its settlement.
// A key refused for insufficient funds holds none, and its amount exceeds what remains: the balance
// only falls. The balance is the start less the settlements.
func (r *recorder) checkLedger(srv *psp.Server, start int64) error {
	if drops := r.drops.Load(); int64(r.lost) > drops {
		return fmt.Errorf("%d answers lost, with %d drop faults", r.lost, drops)
	}
	settled := map[scope]psp.Settlement{}
	left := start
	for _, s := range srv.Settlements() {
		sc := scope{s.Token, s.IdempotencyKey}
		if _, twice := settled[sc]; twice || !slices.Contains(linKeys, sc.key) {
			return fmt.Errorf("a settlement under %v: a second one under its key, or one under a key no client sent", sc)
		}
		settled[sc], left = s, left-s.AmountCents
	}
	if got := srv.Stats().BalanceCents; got != left || left < 0 {
		return fmt.Errorf("Stats().BalanceCents = %d, want %d less the settlements: %d", got, start, left)
	}
	for _, a := range r.outcomes {
		e, ok := settled[a.scope]
		if a.Status != 201 {
			if ok || a.cents() <= left {
				return fmt.Errorf("%v refused %d cents for insufficient funds, yet settled=%v and %d cents remain",
					a.scope, a.cents(), ok, left)
			}
			continue
		}
		if got, isReceipt := wantReceipt(a.Body, a.payload, e.SettledAt); !ok || !isReceipt ||
			got.EndToEndID != e.EndToEndID || e.AmountCents != a.cents() {
			return fmt.Errorf("a 201 under %v is not the receipt of its settlement (settled=%v)", a.scope, ok)
		}
	}
	return nil
}
