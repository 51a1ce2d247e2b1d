package herd

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"
)

// WriteContentionCSV writes cells as brooker.csv: a header
// "clients,algorithm,mean_calls,mean_time,runs", then one line per cell.
func WriteContentionCSV(w io.Writer, cells []ContentionCell) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"clients", "algorithm", "mean_calls", "mean_time", "runs"})
	for _, c := range cells {
		cw.Write([]string{strconv.Itoa(c.Clients), c.Algorithm.String(),
			strconv.FormatFloat(c.MeanCalls, 'f', 1, 64), strconv.FormatFloat(c.MeanTime, 'f', 1, 64),
			strconv.Itoa(c.Runs)})
	}
	cw.Flush()
	return cw.Error()
}

// herdColumns are the columns of herd.csv; durations are in milliseconds.
var herdColumns = []string{"scenario", "clients", "strategy", "payers", "requests", "requests_per_payment",
	"requests_per_settled", "shed", "settled", "failed", "peak_per_100ms", "end_ms", "p50_ms", "p99_ms", "outcome",
	"outage_payments", "outage_requests_per_payment", "first_settled_ms", "recovery_delay_ms", "failed_after_outage"}

// WriteHerdCSV writes results as herd.csv, one line per result.
func WriteHerdCSV(w io.Writer, results []Result) error {
	cw := csv.NewWriter(w)
	cw.Write(herdColumns)
	for _, r := range results {
		cw.Write([]string{r.Scenario.Name, clientsLabel(r.Scenario), r.Scenario.Strategy.Name,
			strconv.Itoa(r.Scenario.Payers), strconv.FormatInt(r.Requests, 10),
			strconv.FormatFloat(r.RequestsPerPayment(), 'f', 3, 64),
			strconv.FormatFloat(r.RequestsPerSettled(), 'f', 3, 64),
			strconv.FormatInt(r.Shed, 10), strconv.Itoa(r.Settled), strconv.Itoa(r.Failed),
			strconv.Itoa(r.Peak()), millis(r.End), millis(r.P50), millis(r.P99), outcome(r),
			strconv.Itoa(r.OutagePayments), strconv.FormatFloat(r.OutageRequestsPerPayment(), 'f', 3, 64),
			ifSettled(r, r.FirstSettled), ifSettled(r, r.RecoveryDelay()), strconv.Itoa(r.FailedAfterOutage)})
	}
	cw.Flush()
	return cw.Error()
}

// WriteTable writes results as an aligned text table.
func WriteTable(w io.Writer, results []Result) error {
	_, err := fmt.Fprintf(w, "%-9s %-7s %-25s %6s %8s %7s %7s %7s %7s %7s %6s %9s %9s %9s %8s %9s  %s\n",
		"scenario", "clients", "strategy", "payers", "requests", "req/pay", "req/set", "shed", "settled",
		"failed", "peak", "end_ms", "p50_ms", "p99_ms", "down_r/p", "recov_ms", "outcome")
	for _, r := range results {
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%-9s %-7s %-25s %6d %8d %7.2f %7.2f %7d %7d %7d %6d %9s %9s %9s %8.3f %9s  %s\n",
			r.Scenario.Name, clientsLabel(r.Scenario), r.Scenario.Strategy.Name, r.Scenario.Payers, r.Requests,
			r.RequestsPerPayment(), r.RequestsPerSettled(), r.Shed, r.Settled, r.Failed, r.Peak(),
			millis(r.End), millis(r.P50), millis(r.P99), r.OutageRequestsPerPayment(), ifSettled(r, r.RecoveryDelay()),
			outcome(r))
	}
	return err
}

func clientsLabel(sc Scenario) string {
	if sc.Shared {
		return "shared"
	}
	return "own"
}

// ifSettled is millis(d), or empty when no payment of r settled.
func ifSettled(r Result, d time.Duration) string {
	if r.Settled == 0 {
		return ""
	}
	return millis(d)
}

func millis(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64)
}

// outcome is "ok" or the number of broken outcome rules.
func outcome(r Result) string {
	if len(r.Violations) == 0 {
		return "ok"
	}
	return strconv.Itoa(len(r.Violations)) + " broken"
}
