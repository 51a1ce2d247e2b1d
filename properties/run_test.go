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

// The PSP every run talks to. Its keys outlive any run.
const (
	runToken  = "property-token"
	runKeyTTL = 24 * time.Hour
)

// scenario is one generated run: a policy, a PSP with a balance and a queue of faults, and the
// calls made to it, each from its own goroutine.
type scenario struct {
	Policy         retry.Policy
	AttemptTimeout time.Duration
	BaseURL        string // the clients' BaseURL; "": the PSP's
	BalanceCents   int64
	Faults         []psp.Fault
	Gateway        []gatewayAnswer  // a gateway's answers to the payment requests; none: it passes all on
	Line           []lineStep       // what the network does to the payment requests; none: nothing
	Calls          []callSpec       // in the order they are drawn
	Breaker        *breakerSettings // the breaker every call shares; nil: none
}

// callSpec is one call of a scenario.
type callSpec struct {
	Payment pix.Payment
	Key     string // SendWithKey's key; "" to Send
	// Reconcile waits for the previous call to return and sends its payment again under its key,
	// the way a caller settles an ErrOutcomeUnknown. Payment and Key are then ignored.
	Reconcile bool
	After     time.Duration // the start: from the run's, or from the return of the call reconciled
	Deadline  time.Duration // the caller's context ends this long after the start; 0: never
	Jitter    []float64     // the client's draws in [0, 1), taken in a cycle
}

// runScenario plays sc against a fresh PSP over in-memory pipes, inside a synctest bubble. It
// returns once every call and every PSP handler has returned, a duplicate fault's first copy
// included: slow and late faults outlive the client. The error reports a PSP that would not
// start or a log that breaks pix's contract.
func runScenario(sc scenario) (Trace, error) {
	srv, err := psp.NewServer(psp.Config{Tokens: []string{runToken}, BalanceCents: sc.BalanceCents,
		KeyTTL: runKeyTTL})
	if err != nil {
		return Trace{}, err
	}
	wire := newWireRecorder(&gateway{next: srv, queue: sc.Gateway})
	pipe := pipenet.NewServer(wire)
	defer pipe.Close()
	network := &line{steps: sc.Line}
	// pix's default transport's header limit: pix must report an answer it cannot read.
	transport := &http.Transport{DialContext: network.dial(pipe.Transport().DialContext),
		MaxResponseHeaderBytes: headerLimit}
	defer transport.CloseIdleConnections()
	srv.Inject(sc.Faults...)
	tr := Trace{Policy: sc.Policy, AttemptTimeout: sc.AttemptTimeout, SlowestFault: slowest(sc.Faults),
		Distortions: distortions(sc.Faults), KeyTTL: runKeyTTL, Token: runToken,
		BalanceStart: srv.Stats().BalanceCents, Calls: make([]Call, len(sc.Calls))}
	run := &runner{url: cmp.Or(sc.BaseURL, pipe.URL), transport: transport, line: network, sc: sc}
	if sc.Breaker != nil {
		run.breaker = sc.Breaker.newBreaker() // inside the bubble: it reads the virtual clock
	}
	var wg sync.WaitGroup
	done := make([]chan struct{}, len(sc.Calls))
	for i, spec := range sc.Calls {
		done[i] = make(chan struct{})
		wg.Go(func() {
			defer close(done[i])
			if spec.Reconcile {
				<-done[i-1]
				spec.Payment, spec.Key = tr.Calls[i-1].Payment, reconcileKey(tr.Calls[i-1])
			}
			tr.Calls[i] = run.call(spec)
		})
	}
	wg.Wait()
	wire.wait()
	srv.Wait() // the first copies of duplicated requests commit with no handler
	tr.Wire, tr.Ledger, tr.BalanceEnd = wire.exchanges(), srv.Settlements(), srv.Stats().BalanceCents
	for i := range tr.Calls {
		c := &tr.Calls[i]
		if c.Attempts, c.Summary, err = parseRecords(c.Records); err != nil {
			return tr, fmt.Errorf("call %d breaks pix's log contract: %w", i, err)
		}
	}
	return tr, nil
}

// runner is what the calls of a run share: the transport and the line, and so the connections;
// the numbering of round trips; the breaker, when not nil.
type runner struct {
	url       string
	transport http.RoundTripper
	line      *line
	numbers   atomic.Int64
	breaker   pix.Breaker
	sc        scenario
}

// call makes one call with a client of its own: its own recorders and jitter source.
func (run *runner) call(spec callSpec) Call {
	time.Sleep(spec.After)
	ctx, stop := context.WithCancelCause(context.Background())
	defer stop(nil)
	network := &lineTripper{next: run.transport, line: run.line}
	guard := &attemptGuard{next: network, budget: run.sc.Policy.AttemptsMax, stop: stop}
	trips := &roundtrip.Recorder{Next: guard, Numbers: &run.numbers}
	logs, draws := newLogStore(), &drawSource{cycle: spec.Jitter}
	client := &pix.Client{BaseURL: run.url, Token: runToken, HTTPClient: &http.Client{Transport: trips},
		Policy: run.sc.Policy, AttemptTimeout: run.sc.AttemptTimeout, Logger: slog.New(logs), Jitter: draws.next}
	breaker := &recordingBreaker{next: run.breaker, trips: guard}
	if run.breaker != nil {
		client.Breaker = breaker
	}
	c := Call{Payment: spec.Payment, GivenKey: spec.Key, Start: time.Now()}
	if spec.Deadline > 0 {
		c.Deadline = c.Start.Add(spec.Deadline)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, c.Deadline)
		defer cancel()
	}
	if spec.Key == "" {
		c.Receipt, c.Err = client.Send(ctx, spec.Payment)
	} else {
		c.Receipt, c.Err = client.SendWithKey(ctx, spec.Key, spec.Payment)
	}
	c.End = time.Now()
	c.Trips, c.Lines, c.Draws, c.Records = trips.Take(), network.events, draws.taken(), logs.recorded()
	c.Tickets = breaker.taken()
	return c
}

// errPastBudget ends the context of a call whose client sent more requests than AttemptsMax.
var errPastBudget = errors.New("the client sent a request past AttemptsMax")

// attemptGuard counts a call's round trips and passes them on until budget have gone. It refuses
// the next one and ends the call's context with errPastBudget. The refused request is recorded,
// so invariant 1 reports the client. Without the guard, a client that never stops would hang
// the suite in one virtual instant.
type attemptGuard struct {
	next   http.RoundTripper
	budget int
	stop   context.CancelCauseFunc
	sent   atomic.Int64
}

func (g *attemptGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	if g.sent.Add(1) <= int64(g.budget) {
		return g.next.RoundTrip(req)
	}
	g.stop(errPastBudget)
	if req.Body != nil {
		req.Body.Close() // a RoundTripper closes the body, even on error
	}
	return nil, errPastBudget
}

// begun is how many round trips the call has begun.
func (g *attemptGuard) begun() int { return int(g.sent.Load()) }

// reconcileKey is the key to reconcile call c with: its *pix.OutcomeUnknownError's, else its own.
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
// them. It is safe for concurrent use. cycle must not be empty.
type drawSource struct {
	mu    sync.Mutex
	cycle []float64
	took  []float64
}

// next is the source handed to pix.Client.Jitter.
func (d *drawSource) next() float64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.took = append(d.took, d.cycle[len(d.took)%len(d.cycle)])
	return d.took[len(d.took)-1]
}

// taken returns the draws handed out so far.
func (d *drawSource) taken() []float64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]float64(nil), d.took...)
}
