package main

import (
	"math/rand/v2"
	"net/http"
	"testing"
	"testing/synctest"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/psp/control"
)

// TestFaultsDoNotLeakIntoTheNextScenario plays each scenario after an earlier one left faults
// queued (faults that no attempt reached). Each must still come out as expected, because play
// clears the PSP's faults before it queues its own.
func TestFaultsDoNotLeakIntoTheNextScenario(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := mustPSP(t)
		ctl := control.Client{BaseURL: p.URL, HTTPClient: p.HTTPClient()}
		sent := &recorder{Next: p.Transport(), Sort: pixDialect.Sort}
		payer := &pix.Client{BaseURL: p.URL, Token: p.Token, HTTPClient: &http.Client{Transport: sent},
			Policy: policy, AttemptTimeout: attemptTimeout, Jitter: rand.New(rand.NewPCG(1, pcgStream)).Float64}
		s := &session{payer: payer, sent: sent, ctl: ctl}
		start := p.Stats().BalanceCents
		results, final := make([]result, len(scenarios)), start
		for i, sc := range scenarios {
			p.Inject(psp.Status(503), psp.Status(503), psp.Status(503), psp.Status(503)) // left over
			r, err := s.play(t.Context(), sc, pixDialect.Want[i], final)
			if err != nil {
				t.Fatalf("play(scenario %d) error = %v", i+1, err)
			}
			results[i], final = r, r.BalanceAfter
		}
		if err := check(pixDialect, results, p.Settlements(), start, final); err != nil {
			t.Errorf("the scenarios met faults an earlier one left queued:\n%v", err)
		}
	})
}
