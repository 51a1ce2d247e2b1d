package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

// In every dialect the demo walks the five scenarios against the double speaking it, in
// process or as an external PSP, which the demo probes first. The double's ledger holds the
// three settlements, and the closing line ends the output.
func TestDemoRunsInEachDialect(t *testing.T) {
	for _, d := range dialects {
		for _, external := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/external %t", d.Name, external), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					p := mustPSPIn(t, d)
					out, err := runDemoIn(t, d, p, 1, external)
					if err != nil {
						t.Fatalf("demo() error = %v\noutput:\n%s", err, out)
					}
					if got, want := lastLine(out), "PSP recorded 3 settlements for 3 successful payments"; got != want {
						t.Errorf("last line = %q, want %q", got, want)
					}
					if got, want := len(p.Settlements()), 3; got != want {
						t.Errorf("PSP ledger holds %d settlements, want %d", got, want)
					}
				})
			})
		}
	}
}

// The demo in Efí's dialect, line by line: the first PUT of a payment answers EM_PROCESSAMENTO,
// so Send ends pending and one lookup finds the payment REALIZADO, but scenario 3's replay
// answers REALIZADO at once. The overdraft is Efí's one refusal, pagamento_negado. The summary
// counts the requests the double received for each payment.
func TestDemoWalksTheFiveScenariosInEfi(t *testing.T) {
	out := dialectOutput(t, efiDialect)
	want := []string{
		"pix retry demo against an in-process PSP, in dialect efi (seed 1)",
		"== Scenario 1: the PSP answers on the first attempt",
		"=> pending after 1 attempt(s) (pix.ErrPending): the PSP accepted it; the demo awaits it",
		"=> settled 150.00 to maria@example.com as E… (lookups 1)",
		"== Scenario 2: two 503 in a row, then success on the third attempt",
		"=> pending after 3 attempt(s) (pix.ErrPending): the PSP accepted it; the demo awaits it",
		"=> settled 200.00 to +5511987654321 as E… (lookups 1)",
		"== Scenario 3: the PSP settles but answers after the attempt timeout; the retry gets the stored answer",
		"=> settled 100.00 to 123e4567-e89b-42d3-a456-426614174000 as E… (attempts 2, replayed true)",
		"== Scenario 4: an amount above the balance is refused and not retried",
		"=> refused after 1 attempt(s), not retried (pix.ErrRejected): pix: PSP answered 422 pagamento_negado: valor 550.01 exceeds the payer's balance; nothing was paid",
		"== Scenario 5: the PSP is down for longer than the retry budget",
		"=> outcome unknown after 4 attempt(s) (pix.ErrOutcomeUnknown); the last attempt's error: EOF",
		"== Summary",
		"scenario attempts lookups outcome key replayed",
		"1 1 1 settled K1 yes",
		"2 3 1 settled K2 yes",
		"3 2 0 settled K3 yes",
		"4 1 0 refused: rejected K4 -",
		"5 4 0 failed: outcome unknown K5 -",
		"ledger: 3 settlements; balance 1000.00 -> 550.00",
		// Send and Await are both calls. pixotel gives Efí's PUT, a method it does not
		// know, no outcome.
		"metrics: pix.payments 7 (lookup_found 2, pending 2, refused 1, replayed 1, unknown 1)",
		"metrics: pix.attempts 13 (transient 7, lookup_found 2, pending 2, refused 1, replayed 1)",
		"metrics: pix.retry.wait 6 retries",
		"PSP recorded 3 settlements for 3 successful payments",
	}
	if diff := cmp.Diff(want, reportLines(t, out)); diff != "" {
		t.Errorf("output mismatch (-want +got):\n%s\noutput:\n%s", diff, out)
	}
}

// The demo in Open Finance's dialect, line by line. Each payment consumes a consent, which the
// demo creates first. The double settles at once, so no payment ends pending. Its overload is
// 529, which pix retries as a 503, and an overdraft is 422 SALDO_INSUFICIENTE. A replay is a
// 201 like the first answer: nothing marks it.
func TestDemoWalksTheFiveScenariosInOpenFinance(t *testing.T) {
	out := dialectOutput(t, openfinanceDialect)
	want := []string{
		"pix retry demo against an in-process PSP, in dialect openfinance (seed 1)",
		"== Scenario 1: the PSP answers on the first attempt",
		"=> settled 150.00 to maria@example.com as E… (attempts 1, replayed false)",
		"== Scenario 2: two 503 in a row, then success on the third attempt",
		"=> settled 200.00 to +5511987654321 as E… (attempts 3, replayed false)",
		"== Scenario 3: the PSP settles but answers after the attempt timeout; the retry gets the stored answer",
		"=> settled 100.00 to 123e4567-e89b-42d3-a456-426614174000 as E… (attempts 2, replayed false)",
		"== Scenario 4: an amount above the balance is refused and not retried",
		"=> refused after 1 attempt(s), not retried (pix.ErrInsufficientFunds): pix: PSP answered 422 SALDO_INSUFICIENTE: Unprocessable Entity valor 550.01 exceeds the payer's balance",
		"== Scenario 5: the PSP is down for longer than the retry budget",
		"=> outcome unknown after 4 attempt(s) (pix.ErrOutcomeUnknown); the last attempt's error: EOF",
		"== Summary",
		"scenario attempts outcome key replayed",
		"1 1 settled K1 no",
		"2 3 settled K2 no",
		"3 2 settled K3 no",
		"4 1 refused: insufficient funds K4 -",
		"5 4 failed: outcome unknown K5 -",
		"ledger: 3 settlements; balance 1000.00 -> 550.00",
		"metrics: pix.payments 5 (settled 3, refused 1, unknown 1)",
		"metrics: pix.attempts 11 (transient 7, settled 3, refused 1)",
		"metrics: pix.retry.wait 6 retries",
		"PSP recorded 3 settlements for 3 successful payments",
	}
	if diff := cmp.Diff(want, reportLines(t, out)); diff != "" {
		t.Errorf("output mismatch (-want +got):\n%s\noutput:\n%s", diff, out)
	}
	if got := strings.Count(out, "status 529 SITE_IS_OVERLOADED"); got != 2 {
		t.Errorf("the log names 529 SITE_IS_OVERLOADED %d times, want 2 (scenario 2's faults)\noutput:\n%s", got, out)
	}
}

// dialectOutput runs the demo with seed 1 in d against a fresh double speaking d, in a bubble of
// its own, and returns its output. The demo must succeed.
func dialectOutput(t *testing.T, d *dialect) string {
	t.Helper()
	var out string
	synctest.Test(t, func(t *testing.T) {
		var err error
		if out, err = runDemoIn(t, d, mustPSPIn(t, d), 1, false); err != nil {
			t.Fatalf("demo() error = %v\noutput:\n%s", err, out)
		}
	})
	return out
}

// reportLines returns the demo's report without its log: the first line, the scenarios'
// headings and results, the summary and the closing line, with runs of spaces cut to one. The
// summary's keys read K1 to K5 (see keyMask), and every endToEndId E….
func reportLines(t *testing.T, out string) []string {
	t.Helper()
	mask := keyMask(t, out)
	var got []string
	for _, line := range linesWithPrefix(out, "pix retry demo", "==", "=>", "scenario", "1 ", "2 ", "3 ", "4 ", "5 ",
		"ledger:", "metrics:", "PSP recorded") {
		line = endToEndID.ReplaceAllString(line, "E…")
		got = append(got, strings.Join(strings.Fields(mask.Replace(line)), " "))
	}
	return got
}

// keyMask replaces the five distinct keys of the summary's key column with K1 to K5.
func keyMask(t *testing.T, out string) *strings.Replacer {
	t.Helper()
	var keys []string
	for _, row := range linesWithPrefix(out, "1 ", "2 ", "3 ", "4 ", "5 ") {
		fields := strings.Fields(row)
		keys = append(keys, fields[len(fields)-2], fmt.Sprintf("K%d", len(keys)/2+1))
	}
	if len(keys) != 10 || len(slices.Compact(slices.Sorted(slices.Values(keys)))) != 10 {
		t.Fatalf("summary keys = %q, want 5 distinct\noutput:\n%s", keys, out)
	}
	return strings.NewReplacer(keys...)
}

// withWrongExpectation returns a copy of d whose expectation for scenario i is wrong: it says
// the opposite of whether Send ends the payment pending.
func withWrongExpectation(d *dialect, i int) *dialect {
	wrong := *d
	wrong.Want = slices.Clone(d.Want)
	wrong.Want[i].Pending = !wrong.Want[i].Pending
	return &wrong
}

// In every dialect, a scenario whose expectation is wrong fails the demo, which names that
// scenario and what differed, and prints no closing line.
func TestDemoFailsAWrongExpectationInEachDialect(t *testing.T) {
	for _, d := range dialects {
		for i, sc := range scenarios {
			t.Run(fmt.Sprintf("%s/scenario %d", d.Name, i+1), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					wrong := withWrongExpectation(d, i)
					out, err := runDemoIn(t, wrong, mustPSPIn(t, d), 1, false)
					want := fmt.Sprintf("demo: scenario %d (%s): Send ended pending: %t, want %t",
						i+1, sc.Title, d.Want[i].Pending, wrong.Want[i].Pending)
					if got := fmt.Sprint(err); got != want {
						t.Errorf("demo() error = %q, want %q", got, want)
					}
					if strings.Contains(out, "PSP recorded") {
						t.Errorf("output holds the closing line, want none after a failure:\n%s", out)
					}
				})
			})
		}
	}
}
