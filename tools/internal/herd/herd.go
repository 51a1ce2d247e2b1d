package herd

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"time"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/psp/psptest"
	"pixretry/retry"
)

// Scenario is one herd: Payers payers each send one payment to one PSP, which is down for
// Outage and then serves with a finite capacity. The payers start at time 0, or one after the
// other over Spread. Payer i starts i nanoseconds later still, so that the order in which the
// PSP, a quota and a breaker see the payers does not depend on the goroutine scheduler: a run
// is a function of its Scenario.
type Scenario struct {
	// Name labels the scenario in the table and the CSV, such as "recovery".
	Name string
	// Payers is the number of payers, each with one payment.
	Payers int
	// Spread, if positive, spreads the payers' starts evenly: payer i starts at
	// i × Spread / Payers. Zero starts them all at time 0.
	Spread time.Duration
	// Shared gives every payer the same pix.Client; otherwise each has its own, with its own
	// connections and draws. A quota or a breaker, when the strategy has one, is shared
	// either way.
	Shared bool
	// Strategy is how the Clients wait between attempts.
	Strategy Strategy
	// Policy is the Clients' retry policy, before Strategy changes it.
	Policy retry.Policy
	// Outage is how long the PSP is down from time 0: every payment request meanwhile has
	// its connection closed.
	Outage time.Duration
	// Capacity and ServiceTime are the PSP's (psp.Config).
	Capacity    int
	ServiceTime time.Duration
	// Seed makes the draws of every Client, and so the whole run, reproducible.
	Seed uint64
}

// Result is what one Scenario did.
type Result struct {
	Scenario Scenario
	// Requests is the number of payment requests the PSP received; Shed, those it refused
	// for lack of capacity.
	Requests, Shed int64
	// Settled is the number of payments that ended with a receipt; Failed, with an error.
	Settled, Failed int
	// PerBucket is the number of payment requests the PSP received in each Bucket of time,
	// from time 0.
	PerBucket []int
	// End is when the last payment ended; P50 and P99 are percentiles of the times at which
	// the payments ended, all counted from time 0.
	End, P50, P99 time.Duration
	// OutageRequests is the number of payment requests the PSP received while it was down, and
	// OutagePayments the number of payments that started meanwhile.
	OutageRequests, OutagePayments int
	// FirstSettled is when the first payment settled, from time 0; 0 when none did.
	FirstSettled time.Duration
	// FailedAfterOutage is the number of payments that started once the PSP was back and
	// failed.
	FailedAfterOutage int
	// SettledPerBucket is the number of payments that settled in each Bucket of time, from
	// time 0.
	SettledPerBucket []int
	// Violations lists every broken outcome rule (the package documentation names them);
	// empty when the outcome is sound.
	Violations []string
}

// Bucket is the width of the time buckets of Result.PerBucket.
const Bucket = 100 * time.Millisecond

// RequestsPerSettled is Requests divided by Settled; 0 when nothing settled.
func (r Result) RequestsPerSettled() float64 {
	if r.Settled == 0 {
		return 0
	}
	return float64(r.Requests) / float64(r.Settled)
}

// RequestsPerPayment is Requests divided by Payers.
func (r Result) RequestsPerPayment() float64 {
	return float64(r.Requests) / float64(r.Scenario.Payers)
}

// OutageRequestsPerPayment is OutageRequests divided by OutagePayments; 0 when no payment
// started in the outage.
func (r Result) OutageRequestsPerPayment() float64 {
	if r.OutagePayments == 0 {
		return 0
	}
	return float64(r.OutageRequests) / float64(r.OutagePayments)
}

// RecoveryDelay is how long after the end of the outage the first payment settled; 0 when
// none did.
func (r Result) RecoveryDelay() time.Duration {
	if r.Settled == 0 {
		return 0
	}
	return r.FirstSettled - r.Scenario.Outage
}

// start is when payer i starts, from time 0.
func (sc Scenario) start(i int) time.Duration {
	return time.Duration(i) + sc.Spread*time.Duration(i)/time.Duration(sc.Payers)
}

// Peak is the most payment requests the PSP received in one Bucket.
func (r Result) Peak() int { return slices.Max(append([]int{0}, r.PerBucket...)) }

const (
	payerToken   = "herd-token"
	startBalance = 1_000_000_000_000 // enough for every payment: a refusal would not be the herd's doing
	firstAmount  = 100               // payer i pays firstAmount+i cents: amounts tell the payments apart
)

// Run runs sc and returns what it did. It waits in virtual time: call it inside a
// testing/synctest bubble, where the whole run takes as long as its computation.
// The PSP is the real psp handler, reached over in-memory connections (psp/psptest) by
// real pix.Clients.
func Run(sc Scenario) (Result, error) {
	arrivals := &arrivals{start: time.Now()}
	srv, err := psptest.NewServerBehind(psp.Config{Tokens: []string{payerToken}, BalanceCents: startBalance,
		Capacity: sc.Capacity, ServiceTime: sc.ServiceTime}, arrivals.count)
	if err != nil {
		return Result{}, err
	}
	defer srv.Close()
	if sc.Outage > 0 {
		srv.Inject(psp.Down(sc.Outage))
	}
	clients, err := sc.clients(srv)
	if err != nil {
		return Result{}, err
	}
	ends := make([]ending, sc.Payers)
	var wg sync.WaitGroup
	for i := range sc.Payers {
		wg.Go(func() {
			time.Sleep(sc.start(i))
			receipt, err := clients[i%len(clients)].Send(context.Background(), payment(i))
			ends[i] = ending{time.Since(arrivals.start), receipt, err}
		})
	}
	wg.Wait()
	return sc.result(srv.Server, arrivals, ends), nil
}

// payment is payer i's payment; its amount is payer i's alone.
func payment(i int) pix.Payment {
	return pix.Payment{AmountCents: firstAmount + int64(i), PixKey: "pix@example.com"}
}

// clients returns one Client of srv for every payer, or one for all if sc.Shared.
func (sc Scenario) clients(srv *psptest.Server) ([]*pix.Client, error) {
	template := pix.Client{Policy: sc.Strategy.policy(sc.Policy)}
	if sc.Strategy.quota {
		q, err := retry.NewQuota(QuotaRatio, QuotaBurst)
		if err != nil {
			return nil, err
		}
		template.Quota = q
	}
	if sc.Strategy.breaker {
		template.Breaker = newBreaker()
	}
	if sc.Shared {
		return []*pix.Client{newClient(srv, template, sc.Strategy.draws(sc.Policy, sharedSource(sc.Seed)))}, nil
	}
	clients := make([]*pix.Client, sc.Payers)
	for i := range clients {
		clients[i] = newClient(srv, template, sc.Strategy.draws(sc.Policy, payerSource(sc.Seed, i)))
	}
	return clients, nil
}

// newClient is a Client of srv with its own connections and draws, and template's policy,
// quota and breaker.
func newClient(srv *psptest.Server, template pix.Client, draws func() float64) *pix.Client {
	c := srv.Client(template.Policy)
	c.Quota, c.Breaker, c.Jitter = template.Quota, template.Breaker, draws
	return c
}

// ending is how and when one payment ended.
type ending struct {
	at      time.Duration
	receipt pix.Receipt
	err     error
}

// arrivals records when each payment request reaches the PSP.
type arrivals struct {
	start time.Time
	mu    sync.Mutex
	times []time.Duration
}

// count wraps the PSP, recording the payment requests.
func (a *arrivals) count(h *psp.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == psp.PaymentsPath {
			a.mu.Lock()
			a.times = append(a.times, time.Since(a.start))
			a.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
}

// recorded returns the arrival times so far.
func (a *arrivals) recorded() []time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.times)
}

// buckets counts times in each Bucket from time 0.
func buckets(times []time.Duration) []int {
	var per []int
	for _, t := range times {
		i := int(t / Bucket)
		for len(per) <= i {
			per = append(per, 0)
		}
		per[i]++
	}
	return per
}
