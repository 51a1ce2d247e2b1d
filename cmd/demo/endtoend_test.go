package main

import (
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// In every dialect the check holds the ledger's endToEndId to the receipt's: a settlement that
// names another is a breach, and nothing else is.
func TestCheckComparesEndToEndIDsInEachDialect(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			r := goodRun()
			for i := range r.results[:3] { // times whole seconds, as every dialect carries them
				r.results[i].Receipt.SettledAt = r.results[i].Receipt.SettledAt.Truncate(time.Second)
				r.ledger[i].SettledAt = r.results[i].Receipt.SettledAt
			}
			if err := check(d, r.results, r.ledger, r.start, r.final); err != nil {
				t.Fatalf("check() of a good run = %v, want nil", err)
			}
			r.ledger[0].EndToEndID = "E9"
			want := []string{`1: the ledger's endToEndId "E9", the receipt's "E1"`}
			if diff := cmp.Diff(want, breaches(check(d, r.results, r.ledger, r.start, r.final))); diff != "" {
				t.Errorf("check() breaches mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// settledAs finds the endToEndId of each settlement the demo reports, in scenario order.
var settledAs = regexp.MustCompile(`(?m)^=> settled .* as (E[0-9A-Za-z]+) \(`)

// In every dialect the double's ledger holds the endToEndIds the demo's client received, in
// order. In openfinance the client made them, of its own ISPB (initiatorISPB).
func TestLedgerHoldsTheReceiptsEndToEndIDsInEachDialect(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := mustPSPIn(t, d)
				out, err := runDemoIn(t, d, p, 1, false)
				if err != nil {
					t.Fatalf("demo() error = %v\noutput:\n%s", err, out)
				}
				var received, ledger []string
				for _, m := range settledAs.FindAllStringSubmatch(out, -1) {
					received = append(received, m[1])
				}
				for _, s := range p.Settlements() {
					ledger = append(ledger, s.EndToEndID)
				}
				if len(received) != 3 || !cmp.Equal(received, ledger) {
					t.Errorf("the ledger's endToEndIds = %q, the receipts' %q; want the same three\noutput:\n%s",
						ledger, received, out)
				}
				wantISPB := map[bool]string{true: initiatorISPB, false: "12345678"}[d == openfinanceDialect]
				for _, id := range received {
					if !strings.HasPrefix(id, "E"+wantISPB) {
						t.Errorf("endToEndId %s, want one of ISPB %s", id, wantISPB)
					}
				}
			})
		})
	}
}
