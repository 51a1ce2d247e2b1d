package herd

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"pixretry/pix"
	"pixretry/psp"
)

// result measures a finished run and checks its outcome.
func (sc Scenario) result(srv *psp.Server, arrived *arrivals, ends []ending) Result {
	stats := srv.Stats()
	requests := arrived.recorded()
	r := Result{Scenario: sc, Requests: stats.Requests, Shed: stats.Shed, PerBucket: buckets(requests)}
	for _, t := range requests {
		if t < sc.Outage {
			r.OutageRequests++
		}
	}
	times := make([]time.Duration, len(ends))
	var settled []time.Duration
	for i, e := range ends {
		times[i] = e.at
		r.account(i, e)
		if e.err == nil {
			settled = append(settled, e.at)
		}
	}
	slices.Sort(times)
	slices.Sort(settled)
	r.End, r.P50, r.P99 = times[len(times)-1], percentile(times, 50), percentile(times, 99)
	r.SettledPerBucket = buckets(settled)
	if len(settled) > 0 {
		r.FirstSettled = settled[0]
	}
	r.Violations = check(ends, srv.Settlements(), stats.BalanceCents)
	if stats.Settled != len(srv.Settlements()) {
		r.Violations = append(r.Violations, fmt.Sprintf("stats count %d settlements, the ledger %d", stats.Settled, len(srv.Settlements())))
	}
	return r
}

// account counts payment i, which ended as e, in r's totals.
func (r *Result) account(i int, e ending) {
	started := r.Scenario.start(i)
	if started < r.Scenario.Outage {
		r.OutagePayments++
	}
	if e.err == nil {
		r.Settled++
		return
	}
	r.Failed++
	if started >= r.Scenario.Outage {
		r.FailedAfterOutage++
	}
}

// percentile is the nearest-rank p-th percentile of sorted, which is not empty.
func percentile(sorted []time.Duration, p int) time.Duration {
	rank := (p*len(sorted) + 99) / 100 // ⌈p·n/100⌉
	return sorted[max(rank, 1)-1]
}

// check lists the broken outcome rules of a run whose payment i paid firstAmount+i cents:
// a payment that settled is in the ledger exactly once, under the endToEndId of its receipt;
// a payment that failed without pix.ErrOutcomeUnknown is not in the ledger (pix promises it);
// nothing is in the ledger twice or without a payment; and the balance is the starting
// balance less the ledger's amounts.
func check(ends []ending, ledger []psp.Settlement, balance int64) []string {
	var bad []string
	byAmount := map[int64][]psp.Settlement{}
	paid := int64(0)
	for _, s := range ledger {
		byAmount[s.AmountCents] = append(byAmount[s.AmountCents], s)
		paid += s.AmountCents
	}
	for i, e := range ends {
		amount := firstAmount + int64(i)
		found := byAmount[amount]
		delete(byAmount, amount)
		switch {
		case len(found) > 1:
			bad = append(bad, fmt.Sprintf("payment %d paid %d times", i, len(found)))
		case e.err == nil && (len(found) == 0 || found[0].EndToEndID != e.receipt.EndToEndID):
			bad = append(bad, fmt.Sprintf("payment %d settled as %s, not in the ledger", i, e.receipt.EndToEndID))
		case e.err != nil && !errors.Is(e.err, pix.ErrOutcomeUnknown) && len(found) > 0:
			bad = append(bad, fmt.Sprintf("payment %d failed without outcome unknown (%v) but settled", i, e.err))
		}
	}
	for amount := range byAmount {
		bad = append(bad, fmt.Sprintf("a settlement of %d cents belongs to no payment", amount))
	}
	if balance != startBalance-paid {
		bad = append(bad, fmt.Sprintf("balance %d, want %d less the ledger's %d", balance, int64(startBalance), paid))
	}
	slices.Sort(bad)
	return bad
}
