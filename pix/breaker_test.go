package pix_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sony/gobreaker/v2"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// twoStep is a real gobreaker two-step breaker that opens after trip consecutive failures and
// stays open for timeout.
func twoStep(trip uint32, timeout time.Duration) *gobreaker.TwoStepCircuitBreaker[pix.Receipt] {
	return gobreaker.NewTwoStepCircuitBreaker[pix.Receipt](gobreaker.Settings{
		Name:        "psp",
		MaxRequests: 1,
		Timeout:     timeout,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= trip },
	})
}

// tripped is twoStep(1, timeout), already open.
func tripped(t *testing.T, timeout time.Duration) *gobreaker.TwoStepCircuitBreaker[pix.Receipt] {
	t.Helper()
	cb := twoStep(1, timeout)
	done, err := cb.Allow()
	if err != nil {
		t.Fatal(err)
	}
	done(errors.New("down"))
	if cb.State() != gobreaker.StateOpen {
		t.Fatalf("breaker is %v after a failure, want open", cb.State())
	}
	return cb
}

// TestBreakerOpensAndSendsNothing: two 503s open the breaker during the first payment, whose
// third attempt is refused without being sent. The 503s may hide a settlement, so its outcome
// is unknown after 2 attempts. The next payment is refused before its first attempt: nothing
// was paid, at once. Every attempt asked the breaker, and the refusals log no attempt.
func TestBreakerOpensAndSendsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, psp.Config{})
		f.psp.Inject(repeat(psp.Status(503), 2)...)
		cb := twoStep(2, time.Minute)
		c := f.client(func(c *pix.Client) { c.Breaker = cb })
		start := time.Now()

		_, err := c.Send(t.Context(), payment)

		key := f.rec.keys()[0]
		assertOutcome(t, err, key, true, 2)
		if !errors.Is(err, pix.ErrCircuitOpen) || !errors.Is(err, gobreaker.ErrOpenState) {
			t.Errorf("Send() error = %v, want ErrCircuitOpen and gobreaker.ErrOpenState", err)
		}
		if got, want := time.Since(start), 150*time.Millisecond; got != want {
			t.Errorf("the first payment took %v, want %v: two waits, then the refusal at once", got, want)
		}
		if got, want := cb.State(), gobreaker.StateOpen; got != want {
			t.Errorf("breaker state = %v, want %v", got, want)
		}

		start = time.Now()
		r, err := c.Send(t.Context(), payment)
		if !errors.Is(err, pix.ErrCircuitOpen) || !errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, pix.ErrOutcomeUnknown) {
			t.Errorf("second Send() error = %v, want ErrCircuitOpen and ErrOpenState, not an unknown outcome", err)
		}
		if r != (pix.Receipt{}) || time.Since(start) != 0 {
			t.Errorf("second Send() = %+v after %v, want no receipt at once", r, time.Since(start))
		}
		if got := len(f.rec.requests()); got != 2 {
			t.Errorf("the PSP received %d requests, want 2", got)
		}
		if got := countAttemptRecords(f.log); got != 2 {
			t.Errorf("%d attempt records, want 2: a refused attempt was not made", got)
		}
		last := f.log.all()[len(f.log.all())-1]
		if last.Message != "pix payment failed" || last.Attrs["attempts"] != int64(0) || last.Attrs["outcome_unknown"] != false {
			t.Errorf("last record = %+v, want the refused payment's failure, 0 attempts, outcome known", last)
		}
	})
}

func countAttemptRecords(l *logRecorder) int {
	n := 0
	for _, r := range l.all() {
		if r.Message == "pix attempt" {
			n++
		}
	}
	return n
}

// TestBreakerProbesAfterItsTimeout: an open breaker admits one probe after its Timeout. A PSP
// back on its feet settles it, and the breaker closes.
func TestBreakerProbesAfterItsTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, psp.Config{})
		cb := tripped(t, 5*time.Second)
		c := f.client(func(c *pix.Client) { c.Breaker = cb })
		if _, err := c.Send(t.Context(), payment); !errors.Is(err, pix.ErrCircuitOpen) {
			t.Fatalf("Send() error = %v before the timeout, want ErrCircuitOpen", err)
		}
		time.Sleep(5*time.Second + time.Nanosecond)
		r, err := c.Send(t.Context(), payment)
		if err != nil || r.Attempts != 1 {
			t.Fatalf("Send() after the timeout = %+v, %v; want a receipt after 1 attempt", r, err)
		}
		if got, want := cb.State(), gobreaker.StateClosed; got != want {
			t.Errorf("breaker state = %v after a settled probe, want %v", got, want)
		}
	})
}

// TestBreakerCountsWhatThePSPSays: one attempt per payment, against a breaker that never opens,
// whose counts show how each answer was counted. The PSP's definitive answers are successes,
// its transient failures are failures.
func TestBreakerCountsWhatThePSPSays(t *testing.T) {
	tests := []struct {
		name    string
		faults  []psp.Fault
		token   string
		balance int64
		failure bool
	}{
		{name: "201", failure: false},
		{name: "422 insufficient funds", balance: 100, failure: false},
		{name: "401", token: "wrong", failure: false},
		{name: "409", faults: []psp.Fault{psp.Status(409)}, failure: false},
		{name: "499", faults: []psp.Fault{psp.Status(499)}, failure: false},
		{name: "302, outside the contract", faults: []psp.Fault{psp.Redirect(302)}, failure: false},
		{name: "201 with a broken body", faults: []psp.Fault{psp.Fault{Kind: "bad_body", Breach: "missing", Member: "horario"}}, failure: false},
		{name: "202 pending", faults: []psp.Fault{psp.Pending(time.Second, "settled")}, failure: false},
		{name: "429", faults: []psp.Fault{psp.Status(429)}, failure: true},
		{name: "500", faults: []psp.Fault{psp.Status(500)}, failure: true},
		{name: "503", faults: []psp.Fault{psp.Status(503)}, failure: true},
		{name: "timeout", faults: []psp.Fault{psp.Late(time.Hour)}, failure: true},
		{name: "lost answer", faults: []psp.Fault{psp.Drop()}, failure: true},
		{name: "reset connection", faults: []psp.Fault{psp.ResetConn()}, failure: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, psp.Config{BalanceCents: tt.balance})
				f.psp.Inject(tt.faults...)
				cb := twoStep(1000, time.Minute)
				c := f.client(oneAttempt, func(c *pix.Client) {
					c.Breaker = cb
					if tt.token != "" {
						c.Token = tt.token
					}
				})
				c.Send(t.Context(), payment)
				want := gobreaker.Counts{Requests: 1, TotalSuccesses: 1, ConsecutiveSuccesses: 1}
				if tt.failure {
					want = gobreaker.Counts{Requests: 1, TotalFailures: 1, ConsecutiveFailures: 1}
				}
				if got := cb.Counts(); got != want {
					t.Errorf("breaker counts = %+v, want %+v", got, want)
				}
			})
		})
	}
}

// TestBreakerCountsAReplayedRefusalAsASuccess: the key's stored refusal, replayed, is the
// PSP's definitive answer.
func TestBreakerCountsAReplayedRefusalAsASuccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, psp.Config{BalanceCents: 100})
		cb := twoStep(1, time.Minute)
		c := f.client(func(c *pix.Client) { c.Breaker = cb })
		for range 2 {
			if _, err := c.SendWithKey(t.Context(), "order-1", payment); !errors.Is(err, pix.ErrInsufficientFunds) {
				t.Fatalf("SendWithKey() error = %v, want ErrInsufficientFunds", err)
			}
		}
		if got := cb.Counts(); got.TotalSuccesses != 2 || got.TotalFailures != 0 || cb.State() != gobreaker.StateClosed {
			t.Errorf("breaker %v with counts %+v, want closed with 2 successes", cb.State(), got)
		}
	})
}

// TestBreakerRefusalAfterARefusedConnection: a connection that could not be made opened the
// breaker, which refuses the retry. Nothing ever left, so nothing was paid.
func TestBreakerRefusalAfterARefusedConnection(t *testing.T) {
	cb := twoStep(1, time.Minute)
	c := &pix.Client{BaseURL: refusingURL(t), Token: token, HTTPClient: &http.Client{Transport: &http.Transport{}},
		Policy: retry.Policy{AttemptsMax: 3}, Breaker: cb}

	_, err := c.Send(t.Context(), payment)

	if !errors.Is(err, pix.ErrCircuitOpen) || errors.Is(err, pix.ErrOutcomeUnknown) {
		t.Fatalf("Send() error = %v, want ErrCircuitOpen after a refused connection, not an unknown outcome", err)
	}
	if got := cb.Counts().TotalFailures; got != 0 || cb.State() != gobreaker.StateOpen {
		t.Errorf("breaker %v, %d failures in its new generation; want open", cb.State(), got)
	}
}

// TestBreakerRefusalOfAResumedKey: SendWithKey's key may already hold the settlement, so a
// refusal before any attempt leaves the outcome unknown, after 0 attempts.
func TestBreakerRefusalOfAResumedKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, psp.Config{})
		c := f.client(func(c *pix.Client) { c.Breaker = tripped(t, time.Minute) })

		_, err := c.SendWithKey(t.Context(), "order-1", payment)

		assertOutcome(t, err, "order-1", true, 0)
		if !errors.Is(err, pix.ErrCircuitOpen) || len(f.rec.requests()) != 0 {
			t.Errorf("SendWithKey() error = %v with %d requests sent, want ErrCircuitOpen and none", err, len(f.rec.requests()))
		}
	})
}

// TestBreakerIsNotAskedForAnEndedContext: Do makes no attempt for a context that already
// ended, so the breaker is not asked for one.
func TestBreakerIsNotAskedForAnEndedContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, psp.Config{})
		cb := twoStep(1000, time.Minute)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()

		_, err := f.client(func(c *pix.Client) { c.Breaker = cb }).Send(ctx, payment)

		if !errors.Is(err, context.Canceled) || cb.Counts().Requests != 0 {
			t.Errorf("Send() error = %v, breaker asked %d times; want context.Canceled and no request", err, cb.Counts().Requests)
		}
	})
}

// breakerFunc is a Breaker made of a function, for the breakers gobreaker cannot be made to
// act as.
type breakerFunc func() (func(error), error)

func (b breakerFunc) Allow() (func(error), error) { return b() }

// TestBreakerPermitOfAnAttemptNeverMade: the context ends after the breaker admitted the
// first attempt and before Do made it. The admission is reported, once, with Do's error.
func TestBreakerPermitOfAnAttemptNeverMade(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, psp.Config{})
		ctx, cancel := context.WithCancel(t.Context())
		var reported []error
		b := breakerFunc(func() (func(error), error) {
			cancel()
			return func(err error) { reported = append(reported, err) }, nil
		})

		_, err := f.client(func(c *pix.Client) { c.Breaker = b }).Send(ctx, payment)

		if len(reported) != 1 || !errors.Is(reported[0], context.Canceled) || !errors.Is(err, context.Canceled) {
			t.Errorf("Send() error = %v, done called with %v; want context.Canceled, once", err, reported)
		}
		if got := len(f.rec.requests()); got != 0 {
			t.Errorf("the PSP received %d requests, want 0", got)
		}
	})
}

// TestBreakerRefusalIsNeverRetried: a breaker's error that looks transient (a timeout) still
// ends the payment at once.
func TestBreakerRefusalIsNeverRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, psp.Config{})
		f.psp.Inject(psp.Status(503))
		asked := 0
		b := breakerFunc(func() (func(error), error) {
			asked++
			if asked > 1 {
				return nil, context.DeadlineExceeded
			}
			return func(error) {}, nil
		})
		start := time.Now()

		_, err := f.client(func(c *pix.Client) { c.Breaker = b }).Send(t.Context(), payment)

		if !errors.Is(err, pix.ErrCircuitOpen) || !errors.Is(err, context.DeadlineExceeded) || asked != 2 {
			t.Errorf("Send() error = %v after asking %d times, want ErrCircuitOpen after 2", err, asked)
		}
		if got, want := time.Since(start), 50*time.Millisecond; got != want {
			t.Errorf("Send() took %v, want %v: one wait, then the refusal at once", got, want)
		}
	})
}

// TestBreakerHalfOpenAdmitsOneProbeAtATime: while the probe is in flight, a half-open breaker
// of MaxRequests 1 refuses another payment with its own error.
func TestBreakerHalfOpenAdmitsOneProbeAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, psp.Config{})
		f.psp.Inject(psp.Slow(100 * time.Millisecond))
		cb := tripped(t, time.Second)
		time.Sleep(time.Second + time.Nanosecond)
		c := f.client(func(c *pix.Client) { c.Breaker = cb })
		probe := make(chan error)
		go func() {
			_, err := c.Send(t.Context(), payment)
			probe <- err
		}()
		synctest.Wait()

		_, err := c.Send(t.Context(), payment)

		if !errors.Is(err, pix.ErrCircuitOpen) || !errors.Is(err, gobreaker.ErrTooManyRequests) {
			t.Errorf("Send() during the probe error = %v, want ErrCircuitOpen and ErrTooManyRequests", err)
		}
		if err := <-probe; err != nil {
			t.Errorf("probe Send() error = %v, want nil", err)
		}
	})
}

// TestBreakerRefusedPaymentAddsNothingToTheQuota: a payment refused before its first attempt
// made none, so it earns the quota nothing. Half a token from it would have made the next
// payment's half a whole one, and granted that payment a retry.
func TestBreakerRefusedPaymentAddsNothingToTheQuota(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, psp.Config{})
		f.psp.Inject(repeat(psp.Status(503), 2)...)
		q, err := retry.NewQuota(0.5, 0)
		if err != nil {
			t.Fatal(err)
		}
		asked := 0
		b := breakerFunc(func() (func(error), error) {
			asked++
			if asked == 1 {
				return nil, gobreaker.ErrOpenState
			}
			return func(error) {}, nil
		})
		c := f.client(func(c *pix.Client) { c.Breaker, c.Quota = b, q })
		if _, err := c.Send(t.Context(), payment); !errors.Is(err, pix.ErrCircuitOpen) {
			t.Fatalf("first Send() error = %v, want ErrCircuitOpen", err)
		}

		_, err = c.Send(t.Context(), payment)

		if !errors.Is(err, retry.ErrQuotaExhausted) || len(f.rec.requests()) != 1 {
			t.Errorf("second Send() error = %v after %d requests, want ErrQuotaExhausted after 1", err, len(f.rec.requests()))
		}
	})
}
