package main

import (
	"fmt"
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

// The whole demo, in virtual time against the real psp handler: the five scenarios come out as
// the expectations say, the PSP's own ledger agrees, the client's metrics follow the ledger,
// and the closing line ends the output.
func TestDemoWalksTheFiveScenarios(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := mustPSP(t)
		start := time.Now()
		out, err := runDemo(t, p, 1, false)
		if err != nil {
			t.Fatalf("demo() error = %v\noutput:\n%s", err, out)
		}
		if elapsed := time.Since(start); elapsed >= 5*time.Second {
			t.Errorf("the demo took %v of virtual time, want under 5s", elapsed)
		}

		want := []string{
			"pix retry demo against an in-process PSP (seed 1)",
			"== Scenario 1: the PSP answers on the first attempt",
			"=> settled 150.00 to maria@example.com as E… (attempts 1, replayed false)",
			"== Scenario 2: two 503 in a row, then success on the third attempt",
			"=> settled 200.00 to +5511987654321 as E… (attempts 3, replayed false)",
			"== Scenario 3: the PSP settles but answers after the attempt timeout; the retry gets the stored answer",
			"=> settled 100.00 to 123e4567-e89b-42d3-a456-426614174000 as E… (attempts 2, replayed true)",
			"== Scenario 4: an amount above the balance is refused and not retried",
			// One cent more than the balance: the smallest amount the PSP must refuse.
			"=> refused after 1 attempt(s), not retried (pix.ErrInsufficientFunds): pix: PSP answered 422 insufficient_funds: valor 550.01 exceeds the payer's balance",
			"== Scenario 5: the PSP is down for longer than the retry budget",
			// Over net.Pipe a closed connection reads as EOF; over TCP the PSP resets it.
			"=> outcome unknown after 4 attempt(s) (pix.ErrOutcomeUnknown); the last attempt's error: EOF",
			"== Summary",
			"scenario attempts outcome key replayed",
			"1 1 settled K1 no",
			"2 3 settled K2 no",
			"3 2 settled K3 yes",
			"4 1 refused: insufficient funds K4 -",
			"5 4 failed: outcome unknown K5 -",
			"ledger: 3 settlements; balance 1000.00 -> 550.00",
			// The client's own metrics: scenario 3's payment ended replayed, and its first
			// attempt, like scenario 2's 503s and scenario 5's broken connections, transient.
			"metrics: pix.payments 5 (settled 2, refused 1, replayed 1, unknown 1)",
			"metrics: pix.attempts 11 (transient 7, settled 2, refused 1, replayed 1)",
			"metrics: pix.retry.wait 6 retries",
			"PSP recorded 3 settlements for 3 successful payments",
		}
		if diff := cmp.Diff(want, reportLines(t, out)); diff != "" {
			t.Errorf("output mismatch (-want +got):\n%s\noutput:\n%s", diff, out)
		}

		// The PSP's own Go API, not the control API the demo read: the settlements of scenarios
		// 1 to 3, and a balance debited by exactly their amounts.
		mask := keyMask(t, out)
		var ledger []string
		for _, s := range p.Settlements() {
			ledger = append(ledger, fmt.Sprint(mask.Replace(prefix(s.IdempotencyKey)), " ", s.PixKey, " ", s.AmountCents))
		}
		wantLedger := []string{"K1 maria@example.com 15000", "K2 +5511987654321 20000", "K3 123e4567-e89b-42d3-a456-426614174000 10000"}
		if diff := cmp.Diff(wantLedger, ledger); diff != "" {
			t.Errorf("PSP ledger mismatch (-want +got):\n%s", diff)
		}
		if got, want := p.Stats().BalanceCents, int64(100000-45000); got != want {
			t.Errorf("PSP balance = %d cents, want %d", got, want)
		}
	})
}

var endToEndID = regexp.MustCompile(`E[0-9]{20}[A-Za-z0-9]{11}`)

// demoOutput runs the demo with seed against a fresh PSP in a bubble of its own and returns its
// output. The demo must succeed.
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

// One log line per attempt, with the reason it failed, one key for all of a payment's attempts,
// and a wait before every attempt that follows a transient failure. Nothing changes from run to
// run but the keys.
func TestDemoLogsEveryAttempt(t *testing.T) {
	out := demoOutput(t, 1)
	var got []string
	keys := map[int]map[string]bool{}
	for _, a := range attemptLines(out) {
		waited := a.Attrs["wait"] != "0s"
		got = append(got, fmt.Sprintf("%d | %s | %s | %s | %s", a.Scenario, a.Attrs["attempt"], a.Attrs["outcome"],
			a.Attrs["transient"], map[bool]string{true: "waits", false: "-"}[waited]))
		if keys[a.Scenario] == nil {
			keys[a.Scenario] = map[string]bool{}
		}
		keys[a.Scenario][a.Attrs["key"]] = true
	}
	want := []string{
		"1 | 1 | settled | false | -",
		"2 | 1 | status 503 injected_fault | true | waits",
		"2 | 2 | status 503 injected_fault | true | waits",
		"2 | 3 | settled | false | -",
		"3 | 1 | timeout | true | waits",
		"3 | 2 | replayed | false | -",
		"4 | 1 | status 422 insufficient_funds | false | -",
		"5 | 1 | connection closed | true | waits",
		"5 | 2 | connection closed | true | waits",
		"5 | 3 | connection closed | true | waits",
		"5 | 4 | connection closed | true | -",
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

// The seed decides the waits. They are exactly the full-jitter draws of a PCG source seeded with
// it, so the same seed gives the same waits and another seed others.
func TestSameSeedSameWaits(t *testing.T) {
	waits := func(out string) []string {
		var got []string
		for _, a := range attemptLines(out) {
			got = append(got, a.Attrs["wait"])
		}
		return got
	}
	first, again, other := waits(demoOutput(t, 1)), waits(demoOutput(t, 1)), waits(demoOutput(t, 2))

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
			wantEnd := "note: the PSP stays down until scenario 5's 2s window closes " +
				"(POST /_psp/reset closes it at once; the next run of the demo resets first)\n" +
				"PSP recorded 3 settlements for 3 successful payments\n"
			if !strings.HasSuffix(out, wantEnd) || !strings.HasPrefix(out, "pix retry demo against the PSP at http://") {
				t.Errorf("run %d: output = %q, want it to name the PSP and end %q", run, out, wantEnd)
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
	for _, d := range dialects {
		if len(d.Want) != len(scenarios) {
			t.Errorf("dialect %s has %d expectations for %d scenarios", d.Name, len(d.Want), len(scenarios))
		}
		for i, w := range d.Want {
			if w.AttemptsMin < 1 || w.AttemptsMin > w.AttemptsMax || w.AttemptsMax > policy.AttemptsMax {
				t.Errorf("dialect %s: scenario %d expects %d to %d attempts, want 1 <= min <= max <= %d",
					d.Name, i+1, w.AttemptsMin, w.AttemptsMax, policy.AttemptsMax)
			}
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
