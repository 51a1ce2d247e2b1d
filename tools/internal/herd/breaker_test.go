package herd

import (
	"testing"
	"time"
)

// smallSteady is a Steady herd small enough for -race: 200 payers over 4 s, one every 20 ms,
// into an outage of 3 s, longer than a payment's whole budget (at most 3.1 s of waits).
func smallSteady(st Strategy, seed uint64) Scenario {
	sc := small(st, false, seed)
	sc.Name, sc.Payers, sc.Spread, sc.Outage = Steady, 200, 4*time.Second, 3*time.Second
	return sc
}

// TestBreakerStopsFirstAttemptsInAnOutage: the quota bounds retries but never first attempts,
// so every payment that starts in the outage sends at least one request. The breaker lets
// BreakerFailures through, then one probe per BreakerTimeout at most. Once the PSP is back, the
// first probe settles within a BreakerTimeout (plus the wait for the next payment and the
// service time), and the breaker closes.
func TestBreakerStopsFirstAttemptsInAnOutage(t *testing.T) {
	for _, seed := range herdSeeds[:3] {
		quota := runInBubble(t, smallSteady(FullJitterQuota, seed))
		breaker := runInBubble(t, smallSteady(FullJitterQuotaBreaker, seed))
		sc := breaker.Scenario
		if quota.OutagePayments != 150 || breaker.OutagePayments != 150 {
			t.Fatalf("seed %d: %d and %d payments started in the outage, want 150 (3 s of 4 s)",
				seed, quota.OutagePayments, breaker.OutagePayments)
		}
		if quota.OutageRequests < quota.OutagePayments {
			t.Errorf("seed %d: quota only: %d requests in the outage, want one per payment at least (%d)",
				seed, quota.OutageRequests, quota.OutagePayments)
		}
		probes := int(sc.Outage / BreakerTimeout)
		if got, most := breaker.OutageRequests, BreakerFailures+probes; got > most || got < BreakerFailures {
			t.Errorf("seed %d: breaker: %d requests in the outage, want %d failures and at most %d probes",
				seed, got, BreakerFailures, probes)
		}
		if got, most := breaker.RecoveryDelay(), BreakerTimeout+sc.Spread/time.Duration(sc.Payers)+sc.ServiceTime; got > most || got <= 0 {
			t.Errorf("seed %d: breaker: first settlement %v after the outage, want within (0, %v]", seed, got, most)
		}
		if got, most := breaker.FailedAfterOutage, int(BreakerTimeout*time.Duration(sc.Payers)/sc.Spread); got > most {
			t.Errorf("seed %d: breaker: %d payments started after the outage failed, want at most %d (one Timeout's)",
				seed, got, most)
		}
		if quota.FailedAfterOutage != 0 {
			t.Errorf("seed %d: quota only: %d payments started after the outage failed, want 0", seed, quota.FailedAfterOutage)
		}
	}
}
