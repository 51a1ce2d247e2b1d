package pix_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/psp/psptest"
	"pixretry/retry"
	"pixretry/retry/retrytest"
)

// awaitCase is one run of Await: the PSP accepts a payment, then ends it After later, rejected
// or settled. Await looks its key up under a context of Deadline, the PSP failing the first
// Failures lookups with a 503, and the Client's waits drawn from Draws.
type awaitCase struct {
	After    time.Duration
	Rejected bool
	Failures int
	Deadline time.Duration
	Policy   retry.Policy
	Draws    []float64
}

func awaitCaseGen() *rapid.Generator[awaitCase] {
	return rapid.Custom(func(t *rapid.T) awaitCase {
		base := retrytest.Millis(1, 500).Draw(t, "DelayBase")
		c := awaitCase{
			After:    retrytest.Millis(0, 4000).Draw(t, "After"),
			Rejected: rapid.Bool().Draw(t, "Rejected"),
			Failures: rapid.IntRange(0, 3).Draw(t, "Failures"),
			Policy: retry.Policy{AttemptsMax: rapid.IntRange(1, 3).Draw(t, "AttemptsMax"), DelayBase: base,
				DelayMax: base + retrytest.Millis(0, 2000).Draw(t, "DelayMax-DelayBase")},
			// The cycle of draws ends with 0.5, so that it waits: draws that are all near 0 would
			// make every wait 0, and virtual time, in which a look takes none, would stand still.
			Draws: append(retrytest.Draws().Draw(t, "Draws"), 0.5),
		}
		// Half the deadlines leave room for the failures and a look after the end, each a wait
		// of DelayMax at most, so that about half the runs see the end.
		c.Deadline = retrytest.Millis(1, max(1, int(c.After/time.Millisecond))).Draw(t, "Deadline")
		if rapid.Bool().Draw(t, "Deadline past the end") {
			c.Deadline = c.After + time.Duration(c.Failures+1)*c.Policy.DelayMax + retrytest.Millis(1, 2000).Draw(t, "slack")
		}
		return c
	})
}

// awaitSpec is what Await's contract makes of c: a look at once, and after each look that does
// not see the end, a wait of a full-jitter draw below the ceiling of the look, unless the wait
// would end at or past the deadline. Looks see the end from After on, but those the PSP fails.
// It returns how many looks were made, when the last was, and whether it saw the end.
func awaitSpec(c awaitCase) (looks int, last time.Duration, ended bool) {
	draws := retrytest.Cycle{Draws: c.Draws}
	for n := 1; ; n++ {
		if n > c.Failures && last >= c.After {
			return n, last, true
		}
		wait := retrytest.FullJitter(retrytest.Ceiling(c.Policy, n), draws.Next())
		if last+wait >= c.Deadline {
			return n, last, false
		}
		last += wait
	}
}

// awaitOutcome is what one run of Await gave, and what the PSP holds after it.
type awaitOutcome struct {
	Receipt pix.Receipt
	Err     error
	Took    time.Duration // from Await's call to its return
	Settled time.Duration // the receipt's SettledAt, from Await's call
	Lookups int64         // that the PSP got
	Ledger  int           // the PSP's settlements under the key
}

// checkAwait holds a run of c to the spec: the looks made and when, the end seen or not, and
// what Await returned of it. Nothing is settled before the PSP settled it, a rejection proves
// nothing was paid, and a context that ends first leaves a pending unknown outcome.
func checkAwait(c awaitCase, got awaitOutcome) error {
	looks, last, ended := awaitSpec(c)
	unknown, isUnknown := errors.AsType[*pix.OutcomeUnknownError](got.Err)
	attempts := got.Receipt.Attempts
	if isUnknown {
		attempts = unknown.Attempts
	}
	switch {
	case got.Took != last || got.Lookups != int64(looks) || attempts != looks && !errors.Is(got.Err, pix.ErrRejected):
		return fmt.Errorf("Await() took %v and %d lookups (%d attempts), want %v and %d", got.Took, got.Lookups,
			attempts, last, looks)
	case ended && !c.Rejected && (got.Err != nil || got.Settled != c.After || got.Ledger != 1):
		return fmt.Errorf("Await() = %+v, %v with %d settlements; want the receipt settled at %v, the ledger's",
			got.Receipt, got.Err, got.Ledger, c.After)
	case ended && c.Rejected && (!errors.Is(got.Err, pix.ErrRejected) || isUnknown || got.Ledger != 0):
		return fmt.Errorf("Await() error = %v with %d settlements, want ErrRejected, not unknown, and none",
			got.Err, got.Ledger)
	case !ended && (!isUnknown || !errors.Is(got.Err, pix.ErrPending) || !errors.Is(got.Err, context.DeadlineExceeded)):
		return fmt.Errorf("Await() error = %v, want an *OutcomeUnknownError matching ErrPending and the deadline",
			got.Err)
	}
	return nil
}

// TestAwaitFollowsThePayment: Await looks as often and as late as its contract says, and
// returns the payment's end only once the PSP has reached it: its receipt, its rejection, or,
// when the context ends first, a pending unknown outcome.
func TestAwaitFollowsThePayment(t *testing.T) {
	var cov retrytest.Coverage
	rapid.Check(t, func(t *rapid.T) {
		c := awaitCaseGen().Draw(t, "case")
		rapid.SyncTest(t, func(t *rapid.T) {
			got, err := runAwait(c)
			if err == nil {
				err = checkAwait(c, got)
			}
			if err != nil {
				t.Fatal(err)
			}
			looks, _, ended := awaitSpec(c)
			cov.Add(map[string]bool{"settled": ended && !c.Rejected, "rejected": ended && c.Rejected,
				"pending at the deadline": !ended, "looked past AttemptsMax": looks > c.Policy.AttemptsMax,
				"looked again after a 503": c.Failures > 0 && looks > 1})
		})
	})
	cov.Require(t, 100, "settled", "rejected", "pending at the deadline", "looked past AttemptsMax",
		"looked again after a 503")
}

// runAwait pays under order-1 into a fresh PSP that leaves the payment pending as c says, then
// awaits it, inside the current synctest bubble.
func runAwait(c awaitCase) (awaitOutcome, error) {
	srv, err := psptest.NewServer(testConfig(psp.Config{}))
	if err != nil {
		return awaitOutcome{}, err
	}
	defer srv.Close()
	then := "settled"
	if c.Rejected {
		then = "rejected"
	}
	srv.Inject(psp.Pending(c.After, then))
	client := srv.Client(c.Policy)
	client.AttemptTimeout, client.Jitter = time.Second, (&retrytest.Cycle{Draws: c.Draws}).Next
	if _, err := client.SendWithKey(context.Background(), "order-1", payment); !errors.Is(err, pix.ErrPending) {
		return awaitOutcome{}, fmt.Errorf("SendWithKey() error = %v, want ErrPending", err)
	}
	srv.Inject(repeat(psp.Status(503).ForLookup(), c.Failures)...)
	ctx, cancel := context.WithTimeout(context.Background(), c.Deadline)
	defer cancel()
	start := time.Now()

	r, err := client.Await(ctx, "order-1")

	got := awaitOutcome{Receipt: r, Err: err, Took: time.Since(start), Lookups: srv.Stats().Lookups}
	if !r.SettledAt.IsZero() {
		got.Settled = r.SettledAt.Sub(start)
	}
	for _, s := range srv.Settlements() {
		if s.IdempotencyKey == "order-1" && s.SettledAt.Sub(start) <= got.Took {
			got.Ledger++
		}
	}
	return got, nil
}

// TestNoVacuousAwaitCheck: checkAwait sees each way a run can break the spec.
func TestNoVacuousAwaitCheck(t *testing.T) {
	c := awaitCase{After: time.Second, Deadline: 10 * time.Second, Draws: []float64{0.5},
		Policy: retry.Policy{AttemptsMax: 1, DelayBase: 400 * time.Millisecond, DelayMax: 1600 * time.Millisecond}}
	// Looks at 0, 200, 600 and 1400 ms: the fourth sees the end, which was at 1 s.
	const took = 1400 * time.Millisecond
	settled := awaitOutcome{Receipt: pix.Receipt{Attempts: 4}, Took: took, Settled: time.Second, Lookups: 4, Ledger: 1}
	if err := checkAwait(c, settled); err != nil {
		t.Fatalf("checkAwait(a run by the spec) = %v, want nil", err)
	}
	rejected := c
	rejected.Rejected = true
	early := c
	early.Deadline = 900 * time.Millisecond
	pending := &pix.OutcomeUnknownError{Key: "order-1", Attempts: 3,
		Err: fmt.Errorf("%w: %w", pix.ErrPending, context.DeadlineExceeded)}
	for name, tc := range map[string]struct {
		c   awaitCase
		got awaitOutcome
	}{
		"settled before the PSP did":       {c, awaitOutcome{Receipt: pix.Receipt{Attempts: 3}, Took: 600 * time.Millisecond, Lookups: 3, Ledger: 1}},
		"one look too many":                {c, awaitOutcome{Receipt: pix.Receipt{Attempts: 5}, Took: took, Settled: time.Second, Lookups: 5, Ledger: 1}},
		"a receipt of another instant":     {c, awaitOutcome{Receipt: pix.Receipt{Attempts: 4}, Took: took, Settled: took, Lookups: 4, Ledger: 1}},
		"a receipt the ledger lacks":       {c, awaitOutcome{Receipt: pix.Receipt{Attempts: 4}, Took: took, Settled: time.Second, Lookups: 4}},
		"a rejection called settled":       {rejected, settled},
		"a rejection left unknown":         {rejected, awaitOutcome{Err: &pix.OutcomeUnknownError{Attempts: 4, Err: pix.ErrRejected}, Took: took, Lookups: 4}},
		"pending called a failure":         {early, awaitOutcome{Err: &pix.OutcomeUnknownError{Attempts: 3, Err: context.DeadlineExceeded}, Took: 600 * time.Millisecond, Lookups: 3}},
		"pending past the deadline's wait": {early, awaitOutcome{Err: pending, Took: took, Lookups: 4}},
	} {
		if checkAwait(tc.c, tc.got) == nil {
			t.Errorf("%s: checkAwait() = nil, want a violation", name)
		}
	}
	if err := checkAwait(early, awaitOutcome{Err: pending, Took: 600 * time.Millisecond, Lookups: 3}); err != nil {
		t.Errorf("checkAwait(a run pending at the deadline) = %v, want nil", err)
	}
}
