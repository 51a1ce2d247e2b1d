package herd

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"

	"pixretry/pix"
	"pixretry/retry"
)

// Strategy is how a payer's pix.Client waits between attempts. Every strategy runs through
// the real retry.Do inside pix.Client: what differs is the Policy and the draws
// (pix.Client.Jitter, that is retry.WithRand) the Client gets. retry turns a draw u into the
// wait ⌊u·(ceiling+1)⌋ (retry.FullJitter), so a draw source can choose any wait up to the
// ceiling exactly; the other backoffs are built that way here, and retry gains no option for
// them.
type Strategy struct {
	// Name labels the strategy in the table, the CSV and the plots.
	Name string
	// policy is the Policy the Client gets, from the scenario's.
	policy func(retry.Policy) retry.Policy
	// draws returns the Client's source of draws; r is the payer's own source, or a source
	// shared by every payer (then safe for concurrent use).
	draws func(p retry.Policy, r func() float64) func() float64
	// perPayment is set when the draws keep state from one wait to the next: the source then
	// belongs to one payment, and the strategy cannot run with a Client shared by payments.
	perPayment bool
	// quota is set when every Client of the herd shares one retry.Quota of QuotaRatio and
	// QuotaBurst.
	quota bool
	// breaker is set when every Client of the herd shares one circuit breaker (newBreaker).
	breaker bool
}

// The quota of FullJitterQuota: a retry for every ten payments, and ten more.
const (
	QuotaRatio = 0.1
	QuotaBurst = 10
)

// The strategies compared.
var (
	// NoBackoff retries at once: the Policy's delays are zero.
	NoBackoff = Strategy{Name: "none", policy: noDelays, draws: passThrough}
	// ExponentialNoJitter waits the ceiling itself, min(DelayMax, DelayBase·2^(n−1)): every
	// draw is the largest below 1.
	ExponentialNoJitter = Strategy{Name: "exponential", policy: same, draws: ceilingDraws}
	// FullJitterOurs is the Client's default: a wait drawn uniformly in [0, ceiling].
	FullJitterOurs = Strategy{Name: "full-jitter", policy: same, draws: passThrough}
	// EqualJitterStrategy waits ceiling/2 plus a draw in [0, ceiling/2]: the draw u becomes
	// (1+u)/2.
	EqualJitterStrategy = Strategy{Name: "equal-jitter", policy: same, draws: upperHalf}
	// DecorrelatedJitter waits s = min(DelayMax, U(DelayBase, 3s)), s starting at DelayBase.
	// Its ceiling is DelayMax at every attempt (DelayBase is raised to it) and its draws are
	// s/(DelayMax+1), so that retry waits exactly s.
	DecorrelatedJitter = Strategy{Name: "decorrelated", policy: flatCeiling, draws: decorrelated, perPayment: true}
	// FullJitterQuota is FullJitterOurs with one retry.Quota shared by every Client of the
	// herd, as pix.Client.Quota advises for the Clients of one PSP.
	FullJitterQuota = Strategy{Name: "full-jitter+quota", policy: same, draws: passThrough, quota: true}
	// FullJitterQuotaBreaker is FullJitterQuota with one gobreaker circuit breaker shared by
	// every Client of the herd too (pix.Client.Breaker).
	FullJitterQuotaBreaker = Strategy{Name: "full-jitter+quota+breaker", policy: same, draws: passThrough, quota: true,
		breaker: true}
)

// Strategies lists the strategies compared in the herds that start at time 0, in the order of
// the table. The breaker is left out of them: in the simulation a failure comes back in no
// time, so a breaker would stop a wave that, over a real network, leaves before the first
// failure comes back.
var Strategies = []Strategy{NoBackoff, ExponentialNoJitter, FullJitterOurs, EqualJitterStrategy, DecorrelatedJitter, FullJitterQuota}

// SteadyStrategies lists the strategies compared in the Steady herd.
var SteadyStrategies = []Strategy{FullJitterOurs, FullJitterQuota, FullJitterQuotaBreaker}

// The breaker of FullJitterQuotaBreaker: open after BreakerFailures consecutive failures, then
// one probe every BreakerTimeout until one succeeds.
const (
	BreakerFailures = 5
	BreakerTimeout  = time.Second
)

// newBreaker is the breaker of FullJitterQuotaBreaker, with the settings pix.Breaker advises
// for a PSP.
func newBreaker() pix.Breaker {
	return gobreaker.NewTwoStepCircuitBreaker[pix.Receipt](gobreaker.Settings{
		Name:        "psp",
		MaxRequests: 1,
		Timeout:     BreakerTimeout,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= BreakerFailures },
		IsExcluded:  func(err error) bool { return errors.Is(err, context.Canceled) },
	})
}

func same(p retry.Policy) retry.Policy { return p }

func noDelays(p retry.Policy) retry.Policy {
	p.DelayBase, p.DelayMax = 0, 0
	return p
}

func flatCeiling(p retry.Policy) retry.Policy {
	p.DelayBase = p.DelayMax
	return p
}

func passThrough(_ retry.Policy, r func() float64) func() float64 { return r }

// largestDraw is the largest float64 below 1: retry.FullJitter maps it to the ceiling.
var largestDraw = math.Nextafter(1, 0)

func ceilingDraws(retry.Policy, func() float64) func() float64 {
	return func() float64 { return largestDraw }
}

func upperHalf(_ retry.Policy, r func() float64) func() float64 {
	return func() float64 { return (1 + r()) / 2 }
}

// decorrelated draws for one payment. p is the scenario's Policy: its DelayBase starts s.
func decorrelated(p retry.Policy, r func() float64) func() float64 {
	base, ceiling := float64(p.DelayBase), float64(p.DelayMax)
	s := base
	return func() float64 {
		s = math.Min(ceiling, base+(3*s-base)*r())
		return s / (ceiling + 1)
	}
}

// payerSource is the seeded source of one payer's draws; it is not safe for concurrent use.
func payerSource(seed uint64, payer int) func() float64 {
	return rand.New(rand.NewPCG(seed, uint64(payer))).Float64
}

// sharedSource is a seeded source safe for concurrent use.
func sharedSource(seed uint64) func() float64 {
	var mu sync.Mutex
	r := rand.New(rand.NewPCG(seed, math.MaxUint64))
	return func() float64 {
		mu.Lock()
		defer mu.Unlock()
		return r.Float64()
	}
}
