package psp_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
)

func TestFaultsListsTheQueuesInTheirOrder(t *testing.T) {
	s := mustServer(t)
	if got := s.Faults(); len(got) != 0 {
		t.Errorf("Faults() of a new Server = %v, want none", got)
	}
	s.Inject(psp.Status(503), psp.Late(time.Second).ForLookup(), psp.Drop(), psp.ResetConn().ForLookup())
	want := []psp.Fault{psp.Status(503), psp.Drop(), psp.Late(time.Second).ForLookup(), psp.ResetConn().ForLookup()}
	got := s.Faults()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Faults() mismatch (-want +got):\n%s", diff)
	}
	got[0] = psp.Status(500) // a copy: the queue keeps its 503
	if a := pay(s, "k1", validBody); a.status != 503 {
		t.Fatalf("payment = %d %s, want the queued 503", a.status, a.body)
	}
	if diff := cmp.Diff(want[1:], s.Faults()); diff != "" {
		t.Errorf("Faults() after a payment consumed the 503 mismatch (-want +got):\n%s", diff)
	}
	s.ClearFaults()
	if got := s.Faults(); len(got) != 0 {
		t.Errorf("Faults() after ClearFaults = %v, want none", got)
	}
}

func TestLatestSettlementsCopiesTheTailOfTheLedger(t *testing.T) {
	s := mustServer(t, func(c *psp.Config) { c.MaxSettlements = 3 })
	for i := range 4 { // k0 is dropped from the ledger
		wantSettled(t, pay(s, fmt.Sprint("k", i), validBody))
	}
	keys := func(ledger []psp.Settlement) []string {
		var keys []string
		for _, st := range ledger {
			keys = append(keys, st.IdempotencyKey)
		}
		return keys
	}
	for n, want := range map[int][]string{-1: nil, 0: nil, 1: {"k3"}, 2: {"k2", "k3"}, 3: {"k1", "k2", "k3"}, 9: {"k1", "k2", "k3"}} {
		got := s.LatestSettlements(n)
		if diff := cmp.Diff(want, keys(got)); diff != "" {
			t.Errorf("LatestSettlements(%d) keys mismatch (-want +got):\n%s", n, diff)
		}
		if n > 0 && got[len(got)-1] != s.Settlements()[2] {
			t.Errorf("LatestSettlements(%d)'s last = %+v, want the ledger's %+v", n, got[len(got)-1], s.Settlements()[2])
		}
	}
	latest := s.LatestSettlements(1)
	latest[0].IdempotencyKey = "changed" // a copy: the ledger keeps its own
	if got := s.LatestSettlements(1)[0].IdempotencyKey; got != "k3" {
		t.Errorf("LatestSettlements(1) after changing a copy = %q, want k3", got)
	}
}
