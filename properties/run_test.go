package properties

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"pixretry/internal/pipenet"
	"pixretry/internal/roundtrip"
	"pixretry/pix"
	"pixretry/psp"
	"pixretry/psp/psptest"
	"pixretry/retry"
	"pixretry/retry/retrytest"
)

// The PSP every run talks to, and the TTL of its keys in a run that draws none.
const (
	runToken  = "property-token"
	runKeyTTL = 24 * time.Hour
)

// scenario is one generated run: a policy, a PSP with a balance, a key TTL and queues of faults,
// and the calls made to it, each from its own goroutine.
type scenario struct {
	Policy         retry.Policy
	AttemptTimeout time.Duration
	KeyTTL         time.Duration // the PSP's; 0: runKeyTTL
	ClientKeyTTL   time.Duration // the clients' pix.Client.KeyTTL, at most KeyTTL; 0: KeyTTL
	BalanceCents   int64
	Faults         []psp.Fault             // payment faults and lookup faults (psp.Fault.ForLookup)
	Gateway        []psptest.GatewayAnswer // a gateway's answers to the requests; none: it passes all on
	// Line is what the network does to the requests; none: nothing. Its calls never share an
	// instant (startGen), as a pipenet.Line needs.
	Line    []pipenet.Step
	Calls   []callSpec       // in the order they are drawn
	Breaker *breakerSettings // the breaker every call shares; nil: none
	// CompleteAfter, RejectFromCents and RejectToCents are the PSP's (psp.Config): how long a
	// payment that would settle stays pending, and the valor it accepts, then rejects.
	CompleteAfter                  time.Duration
	RejectFromCents, RejectToCents int64
	Webhooks                       *webhookRun // the PSP's webhooks and their receiver; nil: none
	// Dialect names the dialect the clients speak and the double serves (dialectNamed): "" for
	// the double's own API.
	Dialect string
}

// callSpec is one call of a scenario.
type callSpec struct {
	Payment pix.Payment
	Key     string // SendWithKey's key; "" to Send
	// Reconcile waits for the previous call to return and settles its payment as a payer would
	// (reconciliation). Payment and Key are then ignored.
	Reconcile bool
	// Resume is what Resume is given; nil to Send or SendWithKey. Reconcile sets it.
	Resume *pix.OutcomeUnknownError
	// Await makes a reconciliation of a pending outcome (pix.ErrPending) await its key, as a
	// payer that waits for the end does, rather than resume it.
	Await    bool
	After    time.Duration // the start: from the run's, or from the return of the call reconciled
	Deadline time.Duration // the caller's context ends this long after the start; 0: never
	Jitter   []float64     // the client's draws in [0, 1), taken in a cycle
}

// runScenario plays sc against a fresh PSP (psptest) inside a synctest bubble, behind the wire
// recorder and the gateway, and behind the front end of sc's dialect if it has one, with a
// recorder of its own in front; the clients dial it through the line. It returns once every
// call and every PSP handler has returned, a duplicate fault's first copy included (slow and
// late faults outlive the client), every pending payment has ended, and its webhooks are
// through. The error reports a PSP that would not start, a consent it would not make, or
// events that break pix.Observer's contract.
func runScenario(sc scenario) (Trace, error) {
	sc.KeyTTL = cmp.Or(sc.KeyTTL, runKeyTTL)
	sc.ClientKeyTTL = cmp.Or(sc.ClientKeyTTL, sc.KeyTTL)
	d := dialectNamed(sc.Dialect)
	wire := &roundtrip.Handler{KeyOf: pixAPI.KeyOf}
	var front *roundtrip.Handler // what the dialect's front end answered; nil without one
	run := &runner{sc: sc, d: d, sentAt: map[string]time.Time{}}
	hooks, err := startWebhooks(sc.Webhooks, run)
	if err != nil {
		return Trace{}, err
	}
	var frontErr error
	srv, err := psptest.NewServerBehind(psp.Config{Tokens: []string{runToken}, BalanceCents: sc.BalanceCents,
		KeyTTL: sc.KeyTTL, CompleteAfter: sc.CompleteAfter, RejectFromCents: sc.RejectFromCents,
		RejectToCents: sc.RejectToCents, OnEnd: hooks.ended}, func(double *psp.Server) http.Handler {
		wire.Next = &psptest.Gateway{Next: double, Queue: sc.Gateway}
		if d.Front == nil {
			return wire
		}
		h, err := d.Front(wire, sc.KeyTTL)
		front, frontErr = &roundtrip.Handler{Next: h, KeyOf: d.KeyOf}, err
		return front
	})
	if err = cmp.Or(err, frontErr); err != nil {
		hooks.close()
		return Trace{}, err
	}
	defer srv.Close()
	defer hooks.close()
	network := pipenet.NewLine(sc.Line...)
	// pix's default transport's header limit: pix must report an answer it cannot read.
	transport := srv.Transport().Clone()
	transport.DialContext, transport.MaxResponseHeaderBytes = network.Dial(transport.DialContext), headerLimit
	defer transport.CloseIdleConnections()
	srv.Inject(sc.Faults...)
	tr := Trace{Dialect: d, Policy: sc.Policy, AttemptTimeout: sc.AttemptTimeout, KeyTTL: sc.KeyTTL,
		ClientKeyTTL: sc.ClientKeyTTL, Token: runToken, BalanceStart: srv.Stats().BalanceCents,
		Calls: make([]Call, len(sc.Calls))}
	tr.SlowestFault, tr.Distortions = faultsAt(sc.Faults, "")
	tr.SlowestLookup, tr.LookupDistortions = faultsAt(sc.Faults, "lookup")
	run.url, run.transport, run.line = srv.URL, transport, network
	if sc.Breaker != nil {
		run.breaker = sc.Breaker.newBreaker() // inside the bubble: it reads the virtual clock
	}
	setup := srv.Transport().Clone() // the run's own requests: no line, no recorder
	defer setup.CloseIdleConnections()
	run.setup = &http.Client{Transport: setup}
	if err := run.consents(sc.Calls); err != nil {
		return Trace{}, err
	}
	chains, owns := chainsOf(sc.Calls), make([]bool, len(sc.Calls))
	for i := range owns { // the calls that own their payment: its first, and the reconciliations after it
		owns[i] = chains[i] == i || sc.Calls[i].Reconcile && owns[i-1]
	}
	var wg sync.WaitGroup
	done := make([]chan struct{}, len(sc.Calls))
	eventErrs := make([]error, len(sc.Calls))
	for i, spec := range sc.Calls {
		done[i] = make(chan struct{})
		wg.Go(func() {
			defer close(done[i])
			if spec.Reconcile {
				<-done[i-1]
				spec = run.reconciliation(tr.Calls[i-1], spec, owns[i-1])
			}
			c, err := run.call(spec)
			if err != nil {
				eventErrs[i] = fmt.Errorf("call %d: %w", i, err)
			}
			c.Chain = chains[i]
			tr.Calls[i] = c
		})
	}
	hooks.forge(&wg)
	wg.Wait()
	srv.Wait() // every duplicate's first copy has committed
	for st := srv.Stats(); st.InFlight > 0 || st.Pending > 0; st = srv.Stats() {
		time.Sleep(time.Second) // Stats ends what is due, as the PSP's timer does
	}
	tr.Deliveries = hooks.finish()
	srv.Close() // once every handler has returned
	tr.Wire, tr.Ledger, tr.BalanceEnd = wire.Exchanges(), srv.Settlements(), srv.Stats().BalanceCents
	if front != nil {
		tr.Front = front.Exchanges()
	}
	tr.Ends, tr.Setup = hooks.takeEnds(), run.setups()
	return tr, errors.Join(eventErrs...)
}

// chainsOf numbers the payment of each call (Call.Chain): a reconciliation pays the payment of
// the call before it, and a duplicate sender the payment of the first call that sent it under
// its key.
func chainsOf(calls []callSpec) []int {
	chains := make([]int, len(calls))
	for i, c := range calls {
		chains[i] = i
		same := func(o callSpec) bool { return !o.Reconcile && o.Key == c.Key && o.Payment == c.Payment }
		switch j := slices.IndexFunc(calls[:i], same); {
		case c.Reconcile:
			chains[i] = chains[i-1]
		case c.Key != "" && j >= 0:
			chains[i] = chains[j]
		}
	}
	return chains
}

// reconciliation is spec, a reconciliation of call c, made into the call that a payer makes
// when c returns, as the README tells it to: Resume with c's *pix.OutcomeUnknownError (or Await
// its key, if it is pending and spec says so), or Send again (a new key) after
// pix.ErrNoSettlement or pix.ErrRejected, or when c sent nothing. Only the calls that own the
// payment (owns) pay it anew: a duplicate sender hears the same proof, and its payer, which
// coordinates its senders, does not pay twice. After any other end, it resumes as a payer that
// restarted and lost c's outcome does: with the key and the key's first send in the run, which
// such a payer stored. SendWithKey would count the key as not yet sent, and could pay twice past
// its TTL.
//
// A payment of a dialect with consents (Open Finance) is sent again under a new key with a
// new consent, which the call makes when it starts (runner.call): the old one was consumed or
// expired.
func (run *runner) reconciliation(c Call, spec callSpec, owns bool) callSpec {
	spec.Payment, spec.Key = c.Payment, ""
	unknown, ok := errors.AsType[*pix.OutcomeUnknownError](c.Err)
	spec.Await = spec.Await && errors.Is(c.Err, pix.ErrPending)
	switch {
	case ok:
		spec.Resume = unknown
	case owns && (errors.Is(c.Err, pix.ErrNoSettlement) || errors.Is(c.Err, pix.ErrRejected)) || c.Key() == "":
		spec.Payment.ConsentID = "" // Send, under a new key
	default:
		spec.Resume = &pix.OutcomeUnknownError{Key: c.Key(), FirstSent: run.firstSent(c.Key()), Ref: c.Receipt.Ref,
			Err: c.Err}
	}
	return spec
}

// runner is what the calls of a run share: the dialect; the transport and the line, and so the
// connections; the numbering of round trips; the breaker, when not nil; the first send of each
// key; the client of the run's own requests (setup), which makes consents.
type runner struct {
	url       string
	transport http.RoundTripper
	line      *pipenet.Line
	numbers   atomic.Int64
	breaker   pix.Breaker
	sc        scenario
	d         *dialect
	setup     *http.Client

	mu     sync.Mutex
	sentAt map[string]time.Time // each key's first payment request in the run
	sent   []string             // the keys sent, in the order of their first payment requests
	made   int                  // the requests the run made itself: consents
}

// firstSent is when the first payment request under key left, or zero if none has.
func (run *runner) firstSent(key string) time.Time {
	run.mu.Lock()
	defer run.mu.Unlock()
	return run.sentAt[key]
}

// noteSent notes that a payment request under key leaves now.
func (run *runner) noteSent(key string) {
	run.mu.Lock()
	defer run.mu.Unlock()
	if _, sent := run.sentAt[key]; !sent {
		run.sentAt[key], run.sent = time.Now(), append(run.sent, key)
	}
}

// keysSent are the keys of the payment requests sent so far, in the order of their first.
func (run *runner) keysSent() []string {
	run.mu.Lock()
	defer run.mu.Unlock()
	return slices.Clone(run.sent)
}

// call makes one call with a client of its own: its own recorders and jitter source. The error
// reports events that break pix.Observer's contract (eventLog.phases).
func (run *runner) call(spec callSpec) (Call, error) {
	time.Sleep(spec.After)
	ctx, stop := context.WithCancelCause(context.Background())
	defer stop(nil)
	network := &pipenet.Tripper{Next: run.transport, Line: run.line}
	draws := &retrytest.Cycle{Draws: spec.Jitter}
	guard := &attemptGuard{next: network, budget: run.sc.Policy.AttemptsMax, stop: stop, run: run, draws: draws}
	switch {
	case spec.Await:
		guard.lookupBudget = awaitBudget
	case spec.Resume != nil:
		guard.lookupBudget = run.sc.Policy.AttemptsMax
	}
	trips := &roundtrip.Recorder{Next: guard, Numbers: &run.numbers, KeyOf: run.d.KeyOf}
	events := &eventLog{}
	client := &pix.Client{BaseURL: run.url, Token: runToken, HTTPClient: &http.Client{Transport: trips},
		Policy: run.sc.Policy, AttemptTimeout: run.sc.AttemptTimeout, KeyTTL: run.sc.ClientKeyTTL,
		Observer: events, Jitter: draws.Next}
	if run.d.Client != nil {
		client.Dialect = run.d.Client()
	}
	if spec.Reconcile && spec.Resume == nil && !spec.Await {
		p, err := run.consent(spec.Payment)
		if err != nil {
			return Call{}, err
		}
		spec.Payment = p
	}
	breaker := &recordingBreaker{next: run.breaker, trips: guard}
	if run.breaker != nil {
		client.Breaker = breaker
	}
	c := Call{Payment: spec.Payment, GivenKey: spec.Key, Resumed: spec.Resume, Awaited: spec.Await, Start: time.Now()}
	if spec.Deadline > 0 {
		c.Deadline = c.Start.Add(spec.Deadline)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, c.Deadline)
		defer cancel()
	}
	switch {
	case spec.Await:
		c.GivenKey, c.Resumed = spec.Resume.Key, nil
		ref := spec.Resume.Ref
		ref.ConsentID = cmp.Or(ref.ConsentID, spec.Payment.ConsentID)
		c.Receipt, c.Err = client.AwaitRef(ctx, c.GivenKey, ref)
	case spec.Resume != nil:
		c.GivenKey = spec.Resume.Key
		c.Receipt, c.Err = client.Resume(ctx, spec.Resume, spec.Payment)
	case spec.Key == "":
		c.Receipt, c.Err = client.Send(ctx, spec.Payment)
	default:
		c.Receipt, c.Err = client.SendWithKey(ctx, spec.Key, spec.Payment)
	}
	c.End = time.Now()
	c.Phase, c.Lookup = guard.phases(trips.Take(), network.Events(), draws.Taken())
	c.Tickets = breaker.taken()
	pay, look, err := events.phases()
	c.Attempts, c.Summary, c.Lookup.Attempts, c.Lookup.Summary = pay.Attempts, pay.Summary, look.Attempts, look.Summary
	if err != nil {
		return c, fmt.Errorf("breaks pix.Observer's contract: %w", err)
	}
	return c, nil
}

// consents gives each payment of calls that a dialect with consents pays its consent, made
// now, before any call starts: a call that sends (not a reconciliation) and the duplicate
// senders of its payment under its key, which share it (samePayment). An invalid payment, which pix refuses before any
// request, gets none.
func (run *runner) consents(calls []callSpec) error {
	for i := range calls {
		if calls[i].Reconcile {
			continue
		}
		if j := slices.IndexFunc(calls[:i], func(o callSpec) bool {
			return !o.Reconcile && o.Key != "" && o.Key == calls[i].Key && samePayment(o.Payment, calls[i].Payment)
		}); j >= 0 {
			calls[i].Payment = calls[j].Payment
			continue
		}
		p, err := run.consent(calls[i].Payment)
		if err != nil {
			return fmt.Errorf("call %d: %w", i, err)
		}
		calls[i].Payment = p
	}
	return nil
}

// consent returns p under a consent the PSP made for it now, if the run's dialect has
// consents and p is valid, else p as it is.
func (run *runner) consent(p pix.Payment) (pix.Payment, error) {
	if run.d.Consent == nil || p.Validate() != nil {
		return p, nil
	}
	run.mu.Lock()
	run.made++
	run.mu.Unlock()
	payer := &pix.Client{BaseURL: run.url, Token: runToken, HTTPClient: run.setup}
	id, err := run.d.Consent(context.Background(), payer, p)
	if err != nil {
		return p, fmt.Errorf("making its consent: %w", err)
	}
	p.ConsentID = id
	return p, nil
}

// setups is how many requests the run made itself.
func (run *runner) setups() int {
	run.mu.Lock()
	defer run.mu.Unlock()
	return run.made
}

// errPastBudget ends the context of a call whose client sent more requests than AttemptsMax.
var errPastBudget = errors.New("the client sent a request past AttemptsMax")

// awaitBudget bounds the lookups of an Await, which AttemptsMax does not: far above what its
// waits allow while a payment is pending in a run (pendingScenarios).
const awaitBudget = 1000

// attemptGuard counts a call's round trips, payment requests and lookups apart, and passes them
// on until budget payment requests, or lookupBudget lookups, have gone. It refuses the next one
// and ends the call's context with errPastBudget. The refused request is recorded, so invariant
// 1 reports the client. Without the guard, a client that never stops would hang the suite in
// one virtual instant. It tells run of each payment request's key, and notes how many of draws
// the call took before its first lookup.
type attemptGuard struct {
	next         http.RoundTripper
	budget       int
	lookupBudget int // 0 but for a Resume
	stop         context.CancelCauseFunc
	run          *runner
	draws        *retrytest.Cycle

	mu          sync.Mutex
	payments    int
	lookups     int
	drawsBefore int // the draws taken before the first lookup
}

func (g *attemptGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	if g.admit(req) {
		return g.next.RoundTrip(req)
	}
	g.stop(errPastBudget)
	if req.Body != nil {
		req.Body.Close() // a RoundTripper closes the body, even on error
	}
	return nil, errPastBudget
}

// admit counts req and reports whether it is within its budget.
func (g *attemptGuard) admit(req *http.Request) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if req.Method != http.MethodGet {
		g.payments++
		if g.payments > g.budget {
			return false
		}
		g.run.noteSent(g.run.d.KeyOf(req))
		return true
	}
	if g.lookups++; g.lookups == 1 {
		g.drawsBefore = len(g.draws.Taken())
	}
	return g.lookups <= g.lookupBudget
}

// begun is how many payment round trips the call has begun.
func (g *attemptGuard) begun() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.payments
}

// phases splits a call's round trips, with their line events, and its draws into its payment
// phase and its lookup phase.
func (g *attemptGuard) phases(trips []Trip, lines []pipenet.Event, draws []float64) (pay, look Phase) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for j, t := range trips {
		ph := &pay
		if t.Method == http.MethodGet {
			ph = &look
		}
		ph.Trips = append(ph.Trips, t)
		if j < len(lines) { // the guard's refusal reached no line
			ph.Lines = append(ph.Lines, lines[j])
		}
	}
	split := len(draws)
	if g.lookups > 0 {
		split = g.drawsBefore
	}
	pay.Draws, look.Draws = draws[:split:split], draws[split:]
	return pay, look
}

// faultsAt reads the faults aimed at target: the longest a slow or late fault holds a request,
// and how many distort a success on its way out (bad_body, and commit_status with a 2xx).
func faultsAt(faults []psp.Fault, target string) (slowest time.Duration, distortions int) {
	for _, f := range faults {
		switch {
		case f.Target != target:
		case f.Kind == "slow" || f.Kind == "late":
			slowest = max(slowest, f.Duration)
		case f.Kind == "bad_body" || f.Kind == "commit_status" && f.Status < 300:
			distortions++
		}
	}
	return slowest, distortions
}

// samePayment reports whether a and b are one payment, but for the consent each consumes.
func samePayment(a, b pix.Payment) bool {
	return a.AmountCents == b.AmountCents && a.PixKey == b.PixKey && a.Description == b.Description
}
