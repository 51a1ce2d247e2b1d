package properties

import (
	"strings"
	"testing"
	"testing/synctest"

	"pixretry/pix"
	"pixretry/retry"
)

// edgePayments are payments at both sides of each edge of the contract: the largest amount, an
// e-mail key of 77 bytes and one of 78, 140 characters of description, and every broken input
// the generators know.
func edgePayments() []pix.Payment {
	const key = "pix@example.com"
	edges := []pix.Payment{{AmountCents: 1, PixKey: key}, {AmountCents: 999_999_999_999, PixKey: key},
		{AmountCents: 1, PixKey: strings.Repeat("a", 65) + "@example.com"}, // 77 bytes
		{AmountCents: 1, PixKey: strings.Repeat("a", 66) + "@example.com"}, // 78 bytes
		{AmountCents: 1, PixKey: key, Description: strings.Repeat("ç", 140)}}
	for _, a := range invalidAmounts {
		edges = append(edges, pix.Payment{AmountCents: a, PixKey: key})
	}
	for _, k := range invalidPixKeys {
		edges = append(edges, pix.Payment{AmountCents: 1, PixKey: k})
	}
	for _, d := range invalidDescriptions {
		edges = append(edges, pix.Payment{AmountCents: 1, PixKey: key, Description: d})
	}
	return edges
}

// TestEdgePaymentsKeepInvariants: each edge payment, sent once to a PSP whose balance covers the
// largest amount, keeps every invariant: pix's validation and the PSP's agree at every edge, on
// every run. A random payment reaches a given edge only now and then.
func TestEdgePaymentsKeepInvariants(t *testing.T) {
	for _, p := range edgePayments() {
		synctest.Test(t, func(t *testing.T) {
			tr, err := runScenario(scenario{Policy: retry.Policy{AttemptsMax: 1}, BalanceCents: 999_999_999_999,
				Calls: []callSpec{{Payment: p, Jitter: []float64{0}}}})
			if err == nil {
				err = checkAll(tr)
			}
			if err != nil {
				t.Fatalf("payment %+v:\n%v\ntrace:\n%s", p, err, tr)
			}
		})
	}
}
