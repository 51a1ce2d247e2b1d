package properties

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"pixretry/internal/pipenet"
	"pixretry/internal/roundtrip"
	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// The PSP every run talks to.
const (
	runToken  = "property-token"
	runKeyTTL = 24 * time.Hour // longer than any run: no key expires mid-run
)

// scenario is one generated run: a policy, a PSP with a balance and a queue of faults, and the
// calls made to it, each from its own goroutine.
type scenario struct {
	Policy         retry.Policy
	AttemptTimeout time.Duration
	BalanceCents   int64
	Faults         []psp.Fault
	// Gateway is what a gateway before the PSP does with each payment request; none: it passes all on.
	Gateway []gatewayAnswer
	Line    []lineStep // what the network does to the payment requests, in arrival order; none: nothing
	Calls   []callSpec
	Breaker *breakerSettings // the breaker every call shares; nil: none
}

// callSpec is one call of a scenario.
type callSpec struct {
	Payment pix.Payment
	Key     string // SendWithKey's key; "" to Send
	// Reconcile makes the call wait for the previous call to return and then send that call's
	// payment again with SendWithKey under that call's key, the way a caller learns the outcome
	// of a payment that ended in ErrOutcomeUnknown. Payment and Key are then ignored.
	Reconcile bool
	// After is when the call starts: from the start of the run, or from the return of the call it
	// reconciles.
	After    time.Duration
	Deadline time.Duration // the caller's context ends this long after the call starts; 0: never
	Jitter   []float64     // the client's draws in [0, 1), taken in a cycle
}

// runScenario plays sc against a fresh PSP served over in-memory pipes and returns its trace,
// once every call has returned and every PSP handler has finished (slow and late faults run
// on after a client gives up), duplicated copies included. Call it inside a synctest bubble: time is virtual. The error
// reports a PSP that would not start or a call whose log records break pix's log contract.
func runScenario(sc scenario) (Trace, error) {
	srv, err := psp.NewServer(psp.Config{Tokens: []string{runToken}, BalanceCents: sc.BalanceCents, KeyTTL: runKeyTTL})
	if err != nil {
		return Trace{}, err
	}
	wire := newWireRecorder(&gateway{next: srv, queue: sc.Gateway})
	pipe := pipenet.NewServer(wire)
	defer pipe.Close()
	network := &line{steps: sc.Line}
	// The header limit is pix's default transport's: pix must report an answer it cannot read.
	transport := &http.Transport{DialContext: network.dial(pipe.Transport().DialContext),
		MaxResponseHeaderBytes: headerLimit}
	defer transport.CloseIdleConnections()
	srv.Inject(sc.Faults...)
	tr := Trace{
		Policy: sc.Policy, AttemptTimeout: sc.AttemptTimeout, SlowestFault: slowest(sc.Faults),
		Distortions: distortions(sc.Faults),
		KeyTTL:      runKeyTTL, Token: runToken, BalanceStart: srv.BalanceCents(),
		Calls: make([]Call, len(sc.Calls)),
	}
	var wg sync.WaitGroup
	var numbers atomic.Int64 // the round trips of every call, numbered apart
	var breaker pix.Breaker
	if sc.Breaker != nil {
		breaker = sc.Breaker.newBreaker() // inside the bubble: it reads the virtual clock
	}
	done := make([]chan struct{}, len(sc.Calls))
	for i, spec := range sc.Calls {
		done[i] = make(chan struct{})
		wg.Go(func() {
			defer close(done[i])
			if spec.Reconcile {
				<-done[i-1]
				prev := tr.Calls[i-1]
				spec.Payment, spec.Key = prev.Payment, reconcileKey(prev)
			}
			tr.Calls[i] = runCall(pipe.URL, transport, network, &numbers, breaker, sc, spec)
		})
	}
	wg.Wait()
	wire.wait()
	srv.Wait() // the first copies of duplicated requests commit with no handler
	tr.Wire, tr.Ledger, tr.BalanceEnd = wire.exchanges(), srv.Settlements(), srv.BalanceCents()
	for i := range tr.Calls {
		c := &tr.Calls[i]
		if c.Attempts, c.Summary, err = parseRecords(c.Records); err != nil {
			return tr, fmt.Errorf("call %d breaks pix's log contract: %w", i, err)
		}
	}
	return tr, nil
}

// runCall makes one call with a client of its own (its own recorders and jitter source) that
// shares the run's transport and line, and so its connections, and the numbering of its round
// trips with the other calls. A breaker that is not nil is the run's, shared by every call.
func runCall(baseURL string, transport http.RoundTripper, network *line, numbers *atomic.Int64,
	breaker pix.Breaker, sc scenario, spec callSpec) Call {
	time.Sleep(spec.After)
	ctx, stop := context.WithCancelCause(context.Background())
	defer stop(nil)
	wire := &lineTripper{next: &attemptGuard{next: transport, budget: sc.Policy.AttemptsMax, stop: stop}, line: network}
	trips := &roundtrip.Recorder{Next: wire, Numbers: numbers}
	logs := newLogStore()
	draws := &drawSource{cycle: spec.Jitter}
	counter := &tripCounter{next: trips}
	client := &pix.Client{
		BaseURL: baseURL, Token: runToken, HTTPClient: &http.Client{Transport: counter},
		Policy: sc.Policy, AttemptTimeout: sc.AttemptTimeout, Logger: slog.New(logs), Jitter: draws.next,
	}
	recorder := &recordingBreaker{next: breaker, trips: counter}
	if breaker != nil {
		client.Breaker = recorder
	}
	c := Call{Payment: spec.Payment, GivenKey: spec.Key, Start: time.Now()}
	cancel := context.CancelFunc(func() {})
	if spec.Deadline > 0 {
		c.Deadline = c.Start.Add(spec.Deadline)
		ctx, cancel = context.WithDeadline(ctx, c.Deadline)
	}
	defer cancel()
	if spec.Key == "" {
		c.Receipt, c.Err = client.Send(ctx, spec.Payment)
	} else {
		c.Receipt, c.Err = client.SendWithKey(ctx, spec.Key, spec.Payment)
	}
	c.End = time.Now()
	c.Trips, c.Lines, c.Draws, c.Records = trips.Take(), wire.events, draws.taken(), logs.recorded()
	c.Tickets = recorder.taken()
	return c
}

// errPastBudget ends the context of a call whose client tried to send more requests than
// AttemptsMax.
var errPastBudget = errors.New("the client sent a request past AttemptsMax")

// attemptGuard passes a call's requests on to next until the call has sent budget of them. It
// refuses the next one and ends the call's context with errPastBudget. The refused request is
// still recorded, so invariant 1 reports the client. Without the guard, a client that never
// stops would retry forever at the same virtual instant and hang the suite instead of failing.
type attemptGuard struct {
	next   http.RoundTripper
	budget int
	stop   context.CancelCauseFunc

	mu   sync.Mutex
	sent int
}

func (g *attemptGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	g.mu.Lock()
	g.sent++
	past := g.sent > g.budget
	g.mu.Unlock()
	if past {
		g.stop(errPastBudget)
		if req.Body != nil {
			req.Body.Close() // a RoundTripper closes the body, even on error
		}
		return nil, errPastBudget
	}
	return g.next.RoundTrip(req)
}

// reconcileKey is the key a caller would reconcile call c with: the one its
// *pix.OutcomeUnknownError carries, else the one it used.
func reconcileKey(c Call) string {
	if e, ok := errors.AsType[*pix.OutcomeUnknownError](c.Err); ok {
		return e.Key
	}
	return cmp.Or(c.Key(), "never-used")
}

// slowest is the longest a slow or late fault among faults holds a request.
func slowest(faults []psp.Fault) time.Duration {
	var d time.Duration
	for _, f := range faults {
		if f.Kind == faultSlow || f.Kind == faultLate {
			d = max(d, f.Duration)
		}
	}
	return d
}

// drawSource hands out the draws of cycle in order, starting again at the end, and remembers
// the draws taken. It is safe for concurrent use. cycle must not be empty.
type drawSource struct {
	mu    sync.Mutex
	cycle []float64
	took  []float64
}

// next is the source handed to pix.Client.Jitter.
func (d *drawSource) next() float64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	u := d.cycle[len(d.took)%len(d.cycle)]
	d.took = append(d.took, u)
	return u
}

// taken returns the draws handed out so far, in order.
func (d *drawSource) taken() []float64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]float64(nil), d.took...)
}
