package properties_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"testing/synctest"
	"time"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"

	"pixretry/internal/pipenet"
)

// A history is recorded from clients that send payments at once, each in its own goroutine,
// through the real psp handler served over in-memory pipes, in a synctest bubble: pauses,
// slow faults and client timeouts run in virtual time.

// linPlan is a history to record: what each client sends, in order.
type linPlan struct {
	BalanceCents int64
	Clients      [][]linSend
}

// linSend is one request of a client.
type linSend struct {
	Pause   time.Duration // how long the client waits before it
	Token   int           // an index into linTokens
	Key     string
	Cents   int64
	Fault   faultKind     // queued just before the request; the next payment request takes it
	Delay   time.Duration // how long a slow fault keeps the key in flight
	Timeout time.Duration // how long the client waits for the answer; 0 means as long as it takes
}

// The world of a history: few keys and amounts, so that requests collide under a key, with the
// same payload and with another; a balance that refuses some payments.
var (
	linKeys    = []string{"k1", "k2", "k3"}
	linAmounts = []int64{10_000, 25_000}
	linFaults  = []faultKind{faultNone, faultNone, faultSlow, faultSlow, faultDrop}
)

// drawPlan draws 2 to 16 clients of 1 to 10 requests each.
func drawPlan(t *rapid.T) linPlan {
	plan := linPlan{BalanceCents: rapid.Int64Range(0, 150_000).Draw(t, "balance")}
	sends := rapid.SliceOfN(rapid.Custom(drawSend), 1, 10)
	for c := range rapid.IntRange(2, 16).Draw(t, "clients") {
		plan.Clients = append(plan.Clients, sends.Draw(t, fmt.Sprintf("client %d", c)))
	}
	return plan
}

// drawSend draws a request. Shrinking brings pauses to 0 (all at once) and drops faults.
func drawSend(t *rapid.T) linSend {
	ms := func(lo, hi int, label string) time.Duration {
		return time.Duration(rapid.IntRange(lo, hi).Draw(t, label)) * time.Millisecond
	}
	s := linSend{
		Pause: ms(0, 20, "pause"),
		Token: rapid.IntRange(0, len(linTokens)-1).Draw(t, "token"),
		Key:   rapid.SampledFrom(linKeys).Draw(t, "key"),
		Cents: rapid.SampledFrom(linAmounts).Draw(t, "cents"),
		Fault: rapid.SampledFrom(linFaults).Draw(t, "fault"),
	}
	if s.Fault == faultSlow {
		s.Delay = ms(1, 30, "delay")
	}
	if rapid.IntRange(0, 3).Draw(t, "client gives up") == 3 {
		s.Timeout = ms(1, 40, "timeout")
	}
	return s
}

// recordHistory sends plan to wrap(PSP) and returns the history: the operations porcupine
// checks. wrap nil means the PSP itself. Call it inside a synctest bubble.
func recordHistory(plan linPlan, wrap func(http.Handler) http.Handler) ([]porcupine.Operation, error) {
	srv, err := newLinearizablePSP(plan.BalanceCents)
	if err != nil {
		return nil, err
	}
	var h http.Handler = srv
	if wrap != nil {
		h = wrap(srv)
	}
	var handlers sync.WaitGroup
	pipe := pipenet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handlers.Add(1)
		defer handlers.Done()
		h.ServeHTTP(w, r)
	}))
	defer pipe.Close()
	// One connection per request: net/http resends a request that carries an Idempotency-Key
	// when a reused connection breaks, and a client must see the drop that broke it.
	transport := pipe.Transport().Clone()
	transport.DisableKeepAlives = true
	rec := &recorder{client: &http.Client{Transport: transport}, base: pipe.URL}
	var wg sync.WaitGroup
	for c, sends := range plan.Clients {
		wg.Go(func() {
			for _, s := range sends {
				time.Sleep(s.Pause)
				inject(srv, s.Fault, s.Delay)
				rec.send(c, s)
			}
		})
	}
	wg.Wait()
	// A slow fault goes on after its client gave up. The bubble may end only once it is over.
	synctest.Wait()
	handlers.Wait()
	return rec.history, nil
}

// recorder sends requests and records each as it went: when it was sent, when its answer came
// back, on a logical clock that every client shares, and what came back.
type recorder struct {
	client   *http.Client
	base     string
	clock    atomic.Int64
	requests atomic.Int64
	mu       sync.Mutex
	history  []porcupine.Operation
}

// never is the return time of a request without an answer: it may take effect at any time.
const never = math.MaxInt64

// send sends s for client and records it.
func (r *recorder) send(client int, s linSend) {
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if s.Timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, s.Timeout)
	}
	defer cancel()
	in := keyInput{ID: keyID{Token: linTokens[s.Token], Key: s.Key}, Payload: payloadOf(s.Cents)}
	in.Request = int(r.requests.Add(1))
	req, err := paymentRequest(ctx, r.base, in.ID.Token, in.ID.Key, s.Cents)
	if err != nil {
		panic(err) // the plan's keys, tokens and amounts are valid
	}
	call := r.clock.Add(1)
	out := r.roundTrip(req)
	ret := r.clock.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.history = append(r.history, operations(client, in, out, call, ret)...)
}

// roundTrip sends req and classes what comes back.
func (r *recorder) roundTrip(req *http.Request) keyOutput {
	resp, err := r.client.Do(req)
	if err != nil {
		return noAnswer(req)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return noAnswer(req)
	}
	return classify(resp, body)
}

// noAnswer classes a request that got no answer. If its client's patience ran out, the client
// gave up, whatever the error says. Otherwise the answer was lost after processing: no other
// fault here closes a connection.
func noAnswer(req *http.Request) keyOutput {
	if req.Context().Err() != nil {
		return keyOutput{Kind: answerNone}
	}
	return keyOutput{Kind: answerLost}
}

// operations are the porcupine operations of one request: a reserve and a commit for a fresh
// answer or none, one observation for any other, and no return time when the client gave up.
func operations(client int, in keyInput, out keyOutput, call, ret int64) []porcupine.Operation {
	if out.Kind == answerNone {
		ret = never
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
