package retry_test

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/retry"
)

func TestNewQuotaRejectsInvalidArguments(t *testing.T) {
	tests := []struct {
		name  string
		ratio float64
		burst int
	}{
		{"negative ratio", -0.5, 1},
		{"smallest negative ratio", -math.SmallestNonzeroFloat64, 1},
		{"NaN ratio", math.NaN(), 1},
		{"+Inf ratio", math.Inf(1), 1},
		{"-Inf ratio", math.Inf(-1), 1},
		{"negative burst", 0.5, -1},
		{"most negative burst", 0.5, math.MinInt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := retry.NewQuota(tt.ratio, tt.burst)
			if q != nil || !errors.Is(err, retry.ErrInvalidPolicy) {
				t.Errorf("NewQuota(%v, %d) = %v, %v; want nil and an error wrapping ErrInvalidPolicy", tt.ratio, tt.burst, q, err)
			}
		})
	}
}

func TestNewQuotaAcceptsValidArguments(t *testing.T) {
	for _, tt := range []struct {
		ratio float64
		burst int
	}{
		{0, 0}, {math.Copysign(0, -1), 0}, {0.1, 10}, {math.MaxFloat64, math.MaxInt},
	} {
		if q, err := retry.NewQuota(tt.ratio, tt.burst); q == nil || err != nil {
			t.Errorf("NewQuota(%v, %d) = %v, %v; want a Quota, nil", tt.ratio, tt.burst, q, err)
		}
	}
}

// TestQuotaSteps plays calls one after the other against one Quota: call i
// fails transiently failures[i] times, then succeeds. The attempts each call
// makes show which retries the quota granted.
func TestQuotaSteps(t *testing.T) {
	tests := []struct {
		name     string
		quota    *retry.Quota
		failures []int
		want     []int // attempts per call
	}{
		{"the zero Quota refuses every retry", &retry.Quota{}, []int{2, 2}, []int{1, 1}},
		{"ratio 0 and burst 0 refuse every retry", mustQuota(t, 0, 0), []int{3, 3}, []int{1, 1}},
		{"burst 0 starts empty", mustQuota(t, 0.5, 0), []int{1, 1, 1}, []int{1, 2, 1}},
		{"burst 0 earns a retry per whole token", mustQuota(t, 0.25, 0),
			[]int{1, 1, 1, 1, 1, 1, 1, 1}, []int{1, 1, 1, 2, 1, 1, 1, 2}},
		{"burst 0 holds one token at most", mustQuota(t, 0.5, 0), []int{0, 0, 0, 0, 3}, []int{1, 1, 1, 1, 2}},
		{"burst 0 keeps the fraction over its token", mustQuota(t, 0.5, 0), []int{0, 0, 1, 1}, []int{1, 1, 2, 1}},
		{"burst 0 at ratio 1 grants a retry per call", mustQuota(t, 1, 0), []int{2, 2}, []int{2, 2}},
		{"a ratio of 0.1 and burst 0 grant at the tenth call", mustQuota(t, 0.1, 0),
			[]int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 2}},
		{"ratio 0 grants burst retries in all", mustQuota(t, 0, 2), []int{3, 3, 0, 3}, []int{3, 1, 1, 1}},
		{"no failure takes nothing", mustQuota(t, 0, 1), []int{0, 0, 1}, []int{1, 1, 2}},
		{"one token exactly is enough", mustQuota(t, 0.5, 1), []int{1, 1, 1, 1}, []int{2, 1, 2, 1}},
		{"tokens are counted exactly", mustQuota(t, 0.1, 1),
			[]int{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, []int{2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2}},
		{"nine tenths are not a token", mustQuota(t, 0.1, 1),
			[]int{1, 0, 0, 0, 0, 0, 0, 0, 0, 1}, []int{2, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
		{"first attempts fill up to burst only", mustQuota(t, 1, 2), []int{0, 0, 0, 0, 3}, []int{1, 1, 1, 1, 3}},
		{"a first attempt adds before its retries", mustQuota(t, 1, 1), []int{3, 3}, []int{2, 2}},
		{"a large ratio fills at once", mustQuota(t, math.MaxFloat64, 3), []int{3, 3}, []int{4, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				if diff := cmp.Diff(tt.want, attemptsPerCall(t, tt.quota, tt.failures)); diff != "" {
					t.Errorf("attempts per call (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// attemptsPerCall makes one call to Do per element of failures, in order,
// and returns the attempts each made.
func attemptsPerCall(t *testing.T, q *retry.Quota, failures []int) []int {
	t.Helper()
	p := retry.Policy{AttemptsMax: 4, DelayBase: time.Second, DelayMax: time.Second}
	var got []int
	for _, f := range failures {
		results := make([]error, f+1)
		for i := range f {
			results[i] = unavailable()
		}
		s := newScript(t, results...)
		_, err := retry.Do(context.Background(), p, s.op, retry.WithQuota(q))
		if f < 4 && len(s.calls) <= f && !errors.Is(err, retry.ErrQuotaExhausted) {
			t.Errorf("Do() error = %v after %d attempts, want ErrQuotaExhausted", err, len(s.calls))
		}
		got = append(got, len(s.calls))
	}
	return got
}

func mustQuota(t testing.TB, ratio float64, burst int) *retry.Quota {
	t.Helper()
	q, err := retry.NewQuota(ratio, burst)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestQuotaRefusalStopsAtOnce: a refused retry ends Do without a wait, with
// an error that wraps both ErrQuotaExhausted and the last attempt's error,
// and the observer sees StopQuota with the wait Do did not start.
func TestQuotaRefusalStopsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := retry.Policy{AttemptsMax: 3, DelayBase: time.Second, DelayMax: time.Second}
		first, second := unavailable(), unavailable()
		s := newScript(t, first, second)
		var r recorder
		start := time.Now()
		_, err := retry.Do(context.Background(), p, s.op, r.option(), retry.WithQuota(mustQuota(t, 0, 1)),
			retry.WithRand(draws(t, 0.5, 0.25)))
		if got := time.Since(start); got != 500*time.Millisecond {
			t.Errorf("Do() returned after %v, want 500ms: one wait, none after the refusal", got)
		}
		if !errors.Is(err, retry.ErrQuotaExhausted) || !errors.Is(err, second) || errors.Is(err, first) {
			t.Errorf("Do() error = %v, want one wrapping ErrQuotaExhausted and the second attempt's error", err)
		}
		if got, want := err.Error(), "retry: quota exhausted after attempt 2: psp: status 503"; got != want {
			t.Errorf("Do() error = %q, want %q", got, want)
		}
		want := []retry.Attempt{
			{Number: 1, Err: first, Transient: true, Wait: 500 * time.Millisecond, Stop: retry.StopNone},
			{Number: 2, Err: second, Transient: true, Wait: 250 * time.Millisecond, Stop: retry.StopQuota},
		}
		if diff := cmp.Diff(want, r.seen, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
			t.Errorf("attempts observed (-want +got):\n%s", diff)
		}
	})
}

// TestQuotaIsAskedLast: a retry that the budget, a Retry-After hint or the
// context stops takes no token, and neither does a success or a permanent
// failure. A call whose context ended before its first attempt adds no token.
// Each case runs a call that must not touch the quota's one token, then
// checks that the token is still there.
func TestQuotaIsAskedLast(t *testing.T) {
	background := func(*testing.T) context.Context { return context.Background() }
	expiring := func(t *testing.T) context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		t.Cleanup(cancel)
		return ctx
	}
	tests := []struct {
		name    string
		ctx     func(*testing.T) context.Context
		policy  retry.Policy
		results []error
		want    retry.Stop
	}{
		{"budget", background, retry.Policy{AttemptsMax: 1}, []error{unavailable()}, retry.StopBudget},
		{"Retry-After", background, retry.Policy{AttemptsMax: 2},
			[]error{&statusError{code: 503, after: time.Second}}, retry.StopRetryAfter},
		{"deadline", expiring, retry.Policy{AttemptsMax: 2, DelayBase: time.Hour, DelayMax: time.Hour},
			[]error{unavailable()}, retry.StopContext},
		{"success", background, retry.Policy{AttemptsMax: 2}, []error{nil}, retry.StopSuccess},
		{"permanent", background, retry.Policy{AttemptsMax: 2}, []error{rejected()}, retry.StopPermanent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := mustQuota(t, 0, 1)
				var r recorder
				s := newScript(t, tt.results...)
				retry.Do(tt.ctx(t), tt.policy, s.op, r.option(), retry.WithQuota(q), retry.WithRand(draws(t, 0.5)))
				if got := r.seen[len(r.seen)-1].Stop; got != tt.want {
					t.Errorf("last stop = %v, want %v", got, tt.want)
				}
				if got := attemptsPerCall(t, q, []int{1}); got[0] != 2 {
					t.Errorf("the next call made %d attempts, want 2: the token is gone", got[0])
				}
			})
		})
	}
}

func TestQuotaCountsOnlyFirstAttemptsMade(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustQuota(t, 0.5, 1)
		if got := attemptsPerCall(t, q, []int{1}); got[0] != 2 {
			t.Fatalf("the first call made %d attempts, want 2", got[0])
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s := newScript(t)
		if _, err := retry.Do(ctx, retry.Policy{AttemptsMax: 2}, s.op, retry.WithQuota(q)); !errors.Is(err, context.Canceled) {
			t.Fatalf("Do() error = %v, want context.Canceled", err)
		}
		// Half a token from the canceled call would have made a whole one.
		if got := attemptsPerCall(t, q, []int{1}); got[0] != 1 {
			t.Errorf("the next call made %d attempts, want 1: the canceled call added tokens", got[0])
		}
	})
}

func TestWithQuotaNilKeepsTheEarlierQuota(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScript(t, unavailable(), nil)
		_, err := retry.Do(context.Background(), retry.Policy{AttemptsMax: 2}, s.op,
			retry.WithQuota(&retry.Quota{}), retry.WithQuota(nil))
		if !errors.Is(err, retry.ErrQuotaExhausted) {
			t.Errorf("Do() error = %v, want ErrQuotaExhausted from the earlier quota", err)
		}
		s = newScript(t, unavailable(), nil)
		if got, err := retry.Do(context.Background(), retry.Policy{AttemptsMax: 2}, s.op, retry.WithQuota(nil)); got != 2 || err != nil {
			t.Errorf("Do() = %d, %v with a nil quota; want 2, nil", got, err)
		}
	})
}

// TestQuotaIsSafeForConcurrentUse: calls to Do that share a quota, all failing,
// make at most burst + ratio × calls retries in all (run it with -race).
func TestQuotaIsSafeForConcurrentUse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const calls, ratio, burst = 64, 0.25, 4
		q := mustQuota(t, ratio, burst)
		p := retry.Policy{AttemptsMax: 4, DelayBase: time.Second, DelayMax: 4 * time.Second}
		var mu sync.Mutex
		var retries, refused int
		var wg sync.WaitGroup
		for range calls {
			wg.Go(func() {
				s := newScript(t, unavailable(), unavailable(), unavailable(), unavailable())
				_, err := retry.Do(context.Background(), p, s.op, retry.WithQuota(q))
				mu.Lock()
				defer mu.Unlock()
				retries += len(s.calls) - 1
				if errors.Is(err, retry.ErrQuotaExhausted) {
					refused++
				}
			})
		}
		wg.Wait()
		if limit := burst + ratio*calls; float64(retries) > limit || refused == 0 {
			t.Errorf("%d calls made %d retries, %d refused; want at most %v retries and some refused", calls, retries, refused, limit)
		}
	})
}

// TestQuotaOfBurstZeroEarnsItsRatio: in a total outage, 400 calls that share
// NewQuota(0.25, 0) make one retry per four calls, 1.25 attempts per call, the
// tendency the Quota documents for every burst.
func TestQuotaOfBurstZeroEarnsItsRatio(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := mustQuota(t, 0.25, 0)
		p := retry.Policy{AttemptsMax: 4, DelayBase: time.Second, DelayMax: time.Second}
		attempts := 0
		for range 400 {
			op := func(context.Context) (int, error) { attempts++; return 0, unavailable() }
			retry.Do(context.Background(), p, op, retry.WithQuota(q))
		}
		if got, want := attempts, 500; got != want {
			t.Errorf("400 calls made %d attempts, want %d (400 first attempts, 100 retries)", got, want)
		}
	})
}
