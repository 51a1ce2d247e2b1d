package main

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/retry"
)

// The whole demo, in virtual time against the real psp handler: the five scenarios come out
// as the seed tells them, the PSP's own ledger agrees, and the closing line ends the output.
func TestDemoWalksTheFiveScenarios(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := mustPSP(t)
		start := time.Now()
		out, err := runDemo(t, p, 1, false)
		elapsed := time.Since(start)
		if err != nil {
			t.Fatalf("demo() error = %v\noutput:\n%s", err, out)
		}

		rows := summaryRows(t, out)
		var keys []string
		for i := range rows {
			keys = append(keys, rows[i].Key)
			rows[i].Key = ""
		}
		want := []row{
			{"1", "1", "settled", "", "no"},
			{"2", "3", "settled", "", "no"},
			{"3", "2", "settled", "", "yes"},
			{"4", "1", "refused: insufficient funds", "", "-"},
			{"5", "4", "failed: outcome unknown", "", "-"},
		}
		if diff := cmp.Diff(want, rows); diff != "" {
			t.Errorf("summary mismatch (-want +got):\n%s\noutput:\n%s", diff, out)
		}
		if got := len(slices.Compact(slices.Sorted(slices.Values(keys)))); got != 5 {
			t.Errorf("summary keys = %q, want 5 distinct", keys)
		}

		// The PSP's own Go API, not the control surface the demo read: three settlements, those
		// of scenarios 1 to 3, and a balance debited by exactly their amounts.
		ledger := p.Settlements()
		var gotLedger [][2]any
		for _, s := range ledger {
			gotLedger = append(gotLedger, [2]any{prefix(s.IdempotencyKey), s.AmountCents})
		}
		wantLedger := [][2]any{{keys[0], int64(15000)}, {keys[1], int64(20000)}, {keys[2], int64(10000)}}
		if diff := cmp.Diff(wantLedger, gotLedger); diff != "" {
			t.Errorf("PSP ledger (key prefix, cents) mismatch (-want +got):\n%s", diff)
		}
		if got, want := p.BalanceCents(), int64(100000-45000); got != want {
			t.Errorf("PSP balance = %d cents, want %d", got, want)
		}

		if got, want := lastLine(out), "PSP recorded 3 settlements for 3 successful payments"; got != want {
			t.Errorf("last line = %q, want %q", got, want)
		}
		// The issue asks for a wall time under 5 s: the demo's own schedule fits with room.
		if elapsed >= 5*time.Second {
			t.Errorf("the demo took %v of virtual time, want under 5s", elapsed)
		}
	})
}

// demoOutput runs the demo with seed against a fresh PSP in a bubble of its own, and returns
// its output; the demo must succeed.
func demoOutput(t *testing.T, seed uint64) string {
	t.Helper()
	var out string
	synctest.Test(t, func(t *testing.T) {
		var err error
		if out, err = runDemo(t, mustPSP(t), seed, false); err != nil {
			t.Fatalf("demo() error = %v\noutput:\n%s", err, out)
		}
	})
	return out
}

// linesWithPrefix returns the lines of out that start with prefix.
func linesWithPrefix(out, prefix string) []string {
	var got []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, prefix) {
			got = append(got, line)
		}
	}
	return got
}

func TestDemoTitlesEachScenario(t *testing.T) {
	want := []string{
		"== Scenario 1: the PSP answers on the first attempt",
		"== Scenario 2: two 503 in a row, then success on the third attempt",
		"== Scenario 3: the PSP settles but answers after the attempt timeout; the retry gets the stored answer",
		"== Scenario 4: an amount above the balance is refused and not retried",
		"== Scenario 5: the PSP is down for longer than the retry budget",
	}
	if diff := cmp.Diff(want, linesWithPrefix(demoOutput(t, 1), "== Scenario ")); diff != "" {
		t.Errorf("titles mismatch (-want +got):\n%s", diff)
	}
}

// One log line per attempt, with the reason it failed, one key for all of a payment's
// attempts, and a wait before every attempt that follows a transient failure; nothing that
// changes from run to run but the keys.
func TestDemoLogsEveryAttempt(t *testing.T) {
	out := demoOutput(t, 1)
	type line struct {
		Scenario          int
		Attempt, Outcome  string
		Transient, Waited string
	}
	var got []line
	keys := map[int]map[string]bool{}
	for _, a := range attemptLines(t, out) {
		waited := "no"
		if a.Attrs["wait"] != "0s" {
			waited = "yes"
		}
		got = append(got, line{a.Scenario, a.Attrs["attempt"], a.Attrs["outcome"], a.Attrs["transient"], waited})
		if keys[a.Scenario] == nil {
			keys[a.Scenario] = map[string]bool{}
		}
		keys[a.Scenario][a.Attrs["key"]] = true
	}
	want := []line{
		{1, "1", "settled", "false", "no"},
		{2, "1", "status 503 injected_fault", "true", "yes"},
		{2, "2", "status 503 injected_fault", "true", "yes"},
		{2, "3", "settled", "false", "no"},
		{3, "1", "timeout", "true", "yes"},
		{3, "2", "replayed", "false", "no"},
		{4, "1", "status 422 insufficient_funds", "false", "no"},
		// Over net.Pipe a closed connection reads as EOF; over TCP the PSP resets it.
		{5, "1", "connection closed", "true", "yes"},
		{5, "2", "connection closed", "true", "yes"},
		{5, "3", "connection closed", "true", "yes"},
		{5, "4", "connection closed", "true", "no"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attempt lines mismatch (-want +got):\n%s\noutput:\n%s", diff, out)
	}
	for n, ks := range keys {
		if len(ks) != 1 {
			t.Errorf("scenario %d logged keys %v, want one", n, ks)
		}
	}
	for _, hidden := range []string{"time=", "elapsed=", "error="} {
		if strings.Contains(out, hidden) {
			t.Errorf("output holds %q, want it trimmed:\n%s", hidden, out)
		}
	}
}

// Each scenario ends with a line saying how its payment ended and, for a failure, the root
// cause of the final error.
func TestDemoPrintsEachOutcome(t *testing.T) {
	var got []string
	for _, line := range linesWithPrefix(demoOutput(t, 1), "=> ") {
		got = append(got, endToEndID.ReplaceAllString(line, "E…"))
	}
	want := []string{
		"=> settled 150.00 to maria@example.com as E… (attempts 1, replayed false)",
		"=> settled 200.00 to +5511987654321 as E… (attempts 3, replayed false)",
		"=> settled 100.00 to 123e4567-e89b-42d3-a456-426614174000 as E… (attempts 2, replayed true)",
		"=> refused after 1 attempt(s), not retried (pix.ErrInsufficientFunds): pix: PSP answered 422 insufficient_funds",
		"=> outcome unknown after 4 attempt(s) (pix.ErrOutcomeUnknown); the last attempt's error: EOF",
	}
	if len(got) == len(want) {
		// The refusal goes on with the PSP's own detail, which is the PSP's to word.
		got[3] = got[3][:min(len(got[3]), len(want[3]))]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("result lines mismatch (-want +got):\n%s", diff)
	}
}

// endToEndID matches a Pix endToEndId.
var endToEndID = regexp.MustCompile(`E[0-9]{20}[A-Za-z0-9]{11}`)

// waits returns the wait of every attempt line, in order.
func waits(t *testing.T, out string) []string {
	t.Helper()
	var got []string
	for _, a := range attemptLines(t, out) {
		got = append(got, a.Attrs["wait"])
	}
	return got
}

// The seed decides the waits: they are exactly the full-jitter draws of a PCG source seeded
// with it, so the same seed gives the same waits and another seed others.
func TestSameSeedSameWaits(t *testing.T) {
	first := waits(t, demoOutput(t, 1))
	again := waits(t, demoOutput(t, 1))
	other := waits(t, demoOutput(t, 2))

	draw := rand.New(rand.NewPCG(1, pcgStream)).Float64
	wait := func(n int) string {
		return retry.FullJitter(retry.Ceiling(policy, n), draw()).Round(time.Microsecond).String()
	}
	// One draw per wait, in the order the waits happen: scenario 2's two, 3's one, 5's three.
	want := []string{"0s", wait(1), wait(2), "0s", wait(1), "0s", "0s", wait(1), wait(2), wait(3), "0s"}
	if diff := cmp.Diff(want, first); diff != "" {
		t.Errorf("waits with seed 1 mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("waits of two runs with seed 1 differ (-first +again):\n%s", diff)
	}
	if slices.Equal(first, other) {
		t.Errorf("waits with seeds 1 and 2 are both %q, want them to differ", first)
	}
}

// Against an external PSP the demo resets it first, so a second run starts clean (even while
// the first run's down window is still open), and says what it leaves behind.
func TestRerunAgainstTheSamePSPStartsClean(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := mustPSP(t)
		for run := 1; run <= 2; run++ {
			out, err := runDemo(t, p, 1, true)
			if err != nil {
				t.Fatalf("run %d: demo() error = %v\noutput:\n%s", run, err, out)
			}
			if got, want := len(p.Settlements()), 3; got != want {
				t.Errorf("run %d: PSP ledger holds %d settlements, want %d", run, got, want)
			}
			wantNote := "note: the PSP stays down until scenario 5's 2s window closes " +
				"(POST /_psp/reset closes it at once; the next run of the demo resets first)\n" +
				"PSP recorded 3 settlements for 3 successful payments\n"
			if !strings.HasSuffix(out, wantNote) {
				t.Errorf("run %d: output ends %q, want %q", run, out[max(0, len(out)-len(wantNote)):], wantNote)
			}
		}
	})
}

// The faults are sized against the policy: the late answer outlasts an attempt, and the down
// window outlasts the worst case of the whole retry budget, so scenarios 3 and 5 cannot come
// out otherwise on a slow machine.
func TestFaultsAreSizedAgainstThePolicy(t *testing.T) {
	if got, want := worstCaseBudget(policy, attemptTimeout), 1550*time.Millisecond; got != want {
		t.Errorf("worstCaseBudget() = %v, want %v (4 × 300ms + 50ms + 100ms + 200ms)", got, want)
	}
	if lateBy <= attemptTimeout {
		t.Errorf("lateBy = %v, want more than attemptTimeout %v", lateBy, attemptTimeout)
	}
	if budget := worstCaseBudget(policy, attemptTimeout); downFor <= budget {
		t.Errorf("downFor = %v, want more than the worst-case budget %v", downFor, budget)
	}
	for i, s := range scenarios {
		if w := s.Want; w.AttemptsMin < 1 || w.AttemptsMin > w.AttemptsMax || w.AttemptsMax > policy.AttemptsMax {
			t.Errorf("scenario %d expects %d to %d attempts, want 1 <= min <= max <= %d",
				i+1, w.AttemptsMin, w.AttemptsMax, policy.AttemptsMax)
		}
	}
}

func TestWorstCaseBudget(t *testing.T) {
	tests := []struct {
		p       retry.Policy
		timeout time.Duration
		want    time.Duration
	}{
		{retry.Policy{AttemptsMax: 1, DelayBase: time.Second, DelayMax: time.Second}, 300 * time.Millisecond, 300 * time.Millisecond},
		{retry.Policy{AttemptsMax: 2, DelayBase: 10 * time.Millisecond, DelayMax: time.Second}, 0, 10 * time.Millisecond},
		{retry.Policy{AttemptsMax: 5, DelayBase: 100 * time.Millisecond, DelayMax: 300 * time.Millisecond}, time.Second,
			5*time.Second + 100*time.Millisecond + 200*time.Millisecond + 300*time.Millisecond + 300*time.Millisecond},
	}
	for _, tt := range tests {
		if got := worstCaseBudget(tt.p, tt.timeout); got != tt.want {
			t.Errorf("worstCaseBudget(%+v, %v) = %v, want %v", tt.p, tt.timeout, got, tt.want)
		}
	}
}

func TestScenarioPayments(t *testing.T) {
	if got, want := aboveBalance("12345678909", "x")(55000).AmountCents, int64(55001); got != want {
		t.Errorf("aboveBalance(55000) = %d cents, want %d", got, want)
	}
	if got, want := fixed(15000, "maria@example.com", "x")(1).AmountCents, int64(15000); got != want {
		t.Errorf("fixed(15000)(1) = %d cents, want %d", got, want)
	}
}
