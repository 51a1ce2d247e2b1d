package properties

import (
	"strings"
	"testing"
	"testing/synctest"

	"pixretry/pix"
	"pixretry/retry"
)

// edgePayments are payments at the edges of the contract, on both sides: the largest amount and
// one centavo more, an e-mail key of exactly 77 bytes and one of 78, 140 characters of
// description and 141, and every broken input the generators know.
func edgePayments() []pix.Payment {
	valid := pix.Payment{AmountCents: 1, PixKey: "pix@example.com"}
	with := func(change func(*pix.Payment)) pix.Payment { p := valid; change(&p); return p }
	edges := []pix.Payment{
		valid,
		with(func(p *pix.Payment) { p.AmountCents = 999_999_999_999 }),
		with(func(p *pix.Payment) { p.PixKey = strings.Repeat("a", 65) + "@example.com" }), // 77 bytes
		with(func(p *pix.Payment) { p.PixKey = strings.Repeat("a", 66) + "@example.com" }), // 78 bytes
		with(func(p *pix.Payment) { p.Description = strings.Repeat("ç", 140) }),
	}
	for _, a := range invalidAmounts {
		edges = append(edges, with(func(p *pix.Payment) { p.AmountCents = a }))
	}
	for _, k := range invalidPixKeys {
		edges = append(edges, with(func(p *pix.Payment) { p.PixKey = k }))
	}
	for _, d := range invalidDescriptions {
		edges = append(edges, with(func(p *pix.Payment) { p.Description = d }))
	}
	return edges
}

// TestEdgePaymentsKeepInvariants: each payment at an edge of the contract, sent once to a PSP
// whose balance covers the largest amount, keeps every invariant, so pix's validation and the
// PSP's agree at every edge on every run. The random payments reach a given edge only now and
// then.
func TestEdgePaymentsKeepInvariants(t *testing.T) {
	for _, p := range edgePayments() {
		synctest.Test(t, func(t *testing.T) {
			sc := scenario{Policy: retry.Policy{AttemptsMax: 1}, BalanceCents: 999_999_999_999,
				Calls: []callSpec{{Payment: p, Jitter: []float64{0}}}}
			tr, err := runScenario(sc)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkAll(tr); err != nil {
				t.Fatalf("payment %+v:\n%v\ntrace:\n%s", p, err, tr)
			}
		})
	}
}
