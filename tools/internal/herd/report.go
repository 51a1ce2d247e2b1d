package herd

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"pixretry/retry"
)

// The report's defaults: the herds of Plan and the contention sweep of Sweep.
var (
	// ReportPayers is the sweep of payers of every herd.
	ReportPayers = []int{10, 30, 100, 300, 1000}
	// ReportPolicy is every Client's Policy before its strategy changes it: 8 attempts,
	// ceilings from 100 ms doubling up to 4 s.
	ReportPolicy = retry.Policy{AttemptsMax: 8, DelayBase: 100 * time.Millisecond, DelayMax: 4 * time.Second}
	// ContentionClients is the sweep of the contention model: 10, 20, ..., 190 clients.
	ContentionClients = []int{10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190}
)

// The scenarios of the report.
const (
	// Recovery: the PSP is down for a second, then serves 20 payments at once, each taking
	// 50 ms (400 payments per second at most).
	Recovery = "recovery"
	// Outage: the PSP is down for the whole run.
	Outage = "outage"
	// Steady: SteadyPayers payers start one after the other over SteadySpread into an outage
	// of SteadyOutage, longer than a payment's whole budget, and the PSP then serves as in
	// Recovery.
	Steady = "steady"
	// SteadyPayers, SteadySpread and SteadyOutage shape the Steady herd: 100 payments per
	// second for 20 s, the first 12 s of them into the outage.
	SteadyPayers = 2000
	SteadySpread = 20 * time.Second
	SteadyOutage = 12 * time.Second
	// ContentionRuns is the number of runs of each cell of the contention sweep.
	ContentionRuns = 200
	// ReportSeed seeds every run of the report.
	ReportSeed = 2015
)

// Plan returns the herds of the report: the Recovery and Outage scenarios, every strategy,
// every number of payers in ReportPayers, with one Client per payer and then with one shared
// Client (a strategy that keeps state per payment runs with its own Clients only); then the
// Steady herd for every strategy of SteadyStrategies, with own Clients.
func Plan() []Scenario {
	var plan []Scenario
	for _, name := range []string{Recovery, Outage} {
		for _, shared := range []bool{false, true} {
			for _, st := range Strategies {
				if shared && st.perPayment {
					continue
				}
				for _, n := range ReportPayers {
					plan = append(plan, scenario(name, n, shared, st))
				}
			}
		}
	}
	for _, st := range SteadyStrategies {
		plan = append(plan, steady(st))
	}
	return plan
}

// steady is the Steady herd under st.
func steady(st Strategy) Scenario {
	sc := scenario(Steady, SteadyPayers, false, st)
	sc.Spread, sc.Outage = SteadySpread, SteadyOutage
	return sc
}

func scenario(name string, payers int, shared bool, st Strategy) Scenario {
	sc := Scenario{Name: name, Payers: payers, Shared: shared, Strategy: st, Policy: ReportPolicy,
		Outage: time.Second, Capacity: 20, ServiceTime: 50 * time.Millisecond, Seed: ReportSeed}
	if name == Outage {
		sc.Outage = time.Hour // longer than any payment's attempts and waits
	}
	return sc
}

// WriteReport writes the table of results to stdout, and to dir herd.csv, brooker.csv and the
// plots: timeline.svg (requests per 100 ms in the recovery of the largest herd with its own
// Clients; no backoff is left out, its requests all fall at time 0), per-payment-recovery.svg
// and per-payment-outage.svg (requests per payment against payers, own Clients),
// settled-recovery.svg (the share of payments settled against payers), steady-requests.svg and
// steady-settled.svg (requests and settlements per 100 ms in the Steady herd) and brooker.svg.
func WriteReport(dir string, stdout io.Writer, results []Result, cells []ContentionCell) error {
	if err := WriteTable(stdout, results); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "herd.csv"), func(w io.Writer) error { return WriteHerdCSV(w, results) }); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "brooker.csv"), func(w io.Writer) error { return WriteContentionCSV(w, cells) }); err != nil {
		return err
	}
	largest := slices.Max(ReportPayers)
	timeline := filter(results, func(r Result) bool {
		return r.Scenario.Name == Recovery && !r.Scenario.Shared && r.Scenario.Payers == largest &&
			r.Scenario.Strategy.Name != NoBackoff.Name
	})
	title := fmt.Sprintf("%d payers, own Clients: PSP down for 1 s, then 20 at once, 50 ms each", largest)
	if err := PlotTimeline(filepath.Join(dir, "timeline.svg"), title, "PSP requests", timeline, requested); err != nil {
		return err
	}
	if err := plotSteady(dir, results); err != nil {
		return err
	}
	for _, name := range []string{Recovery, Outage} {
		path := filepath.Join(dir, "per-payment-"+name+".svg")
		title := fmt.Sprintf("PSP requests per payment, %s, own Clients", name)
		if err := PlotAgainstPayers(path, title, "PSP requests per payment", byStrategy(results, name), Result.RequestsPerPayment); err != nil {
			return err
		}
	}
	settled := func(r Result) float64 { return 100 * float64(r.Settled) / float64(r.Scenario.Payers) }
	title = "Payments settled, recovery, own Clients"
	if err := PlotAgainstPayers(filepath.Join(dir, "settled-recovery.svg"), title, "payments settled (%)", byStrategy(results, Recovery), settled); err != nil {
		return err
	}
	return PlotContention(filepath.Join(dir, "brooker.svg"), cells)
}

// plotSteady draws the requests and the settlements per Bucket of the Steady herds.
func plotSteady(dir string, results []Result) error {
	herds := filter(results, func(r Result) bool { return r.Scenario.Name == Steady })
	title := fmt.Sprintf("%d payments over %v, PSP down for the first %v: %%s", SteadyPayers, SteadySpread, SteadyOutage)
	if err := PlotTimeline(filepath.Join(dir, "steady-requests.svg"), fmt.Sprintf(title, "requests"),
		"PSP requests", herds, requested); err != nil {
		return err
	}
	return PlotTimeline(filepath.Join(dir, "steady-settled.svg"), fmt.Sprintf(title, "settlements"),
		"payments settled", herds, func(r Result) []int { return r.SettledPerBucket })
}

func requested(r Result) []int { return r.PerBucket }

// byStrategy groups the results of scenario name with own Clients by strategy, in increasing
// order of payers.
func byStrategy(results []Result, name string) [][]Result {
	var groups [][]Result
	for _, st := range Strategies {
		groups = append(groups, filter(results, func(r Result) bool {
			return r.Scenario.Name == name && !r.Scenario.Shared && r.Scenario.Strategy.Name == st.Name
		}))
	}
	return groups
}

func filter(results []Result, keep func(Result) bool) []Result {
	var kept []Result
	for _, r := range results {
		if keep(r) {
			kept = append(kept, r)
		}
	}
	slices.SortFunc(kept, func(a, b Result) int { return a.Scenario.Payers - b.Scenario.Payers })
	return kept
}

// writeFile writes what write produces to path, replacing it only if write succeeds.
func writeFile(path string, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return fmt.Errorf("herd: %s: %w", path, err)
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
