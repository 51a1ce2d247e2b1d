package main

import (
	"errors"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/retry"
)

// sorted is what a dialect's Sort said of a request.
type sorted struct {
	Kind requestKind
	Key  string
}

// sortingTransport records what sort says of each request, and fails it, so that nothing is
// sent.
type sortingTransport struct {
	sort func(*http.Request) (requestKind, string)
	got  []sorted
}

var errNotSent = errors.New("not sent")

func (s *sortingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	kind, key := s.sort(req)
	s.got = append(s.got, sorted{kind, key})
	return nil, errNotSent
}

// Each dialect's Sort tells the requests its client writes apart: a payment with the key it
// carries, a lookup (in Open Finance by the paymentId, or by the consent), and the readying of a
// payment, which is neither. The requests are those a pix.Client speaking the dialect writes.
func TestEachDialectSortsItsRequests(t *testing.T) {
	lookups := map[string][]pix.Ref{
		"pix": {{}}, "efi": {{}}, "openfinance": {{PaymentID: "payment-1"}, {ConsentID: "urn:pixretry:consent-1"}},
	}
	for _, d := range dialects {
		t.Run(d.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := mustPSPIn(t, d)
				tg := &target{BaseURL: p.URL, Dialect: d, Token: p.Token}
				dl, ready, err := d.Speak(t.Context(), tg, p.HTTPClient())
				if err != nil {
					t.Fatalf("Speak() error = %v", err)
				}
				wire := &sortingTransport{sort: d.Sort}
				c := &pix.Client{BaseURL: p.URL, Dialect: dl, Token: p.Token, HTTPClient: &http.Client{Transport: wire},
					Policy: retry.Policy{AttemptsMax: 1, DelayBase: policy.DelayBase, DelayMax: policy.DelayMax}}
				payment := scenarios[0].Payment
				payment.ConsentID = "urn:pixretry:consent-1" // what ready would have made, had it been sent
				var want []sorted
				if ready != nil {
					if _, err := ready(t.Context(), c, payment); !errors.Is(err, errNotSent) {
						t.Fatalf("ready() error = %v, want %v", err, errNotSent)
					}
					want = append(want, sorted{otherRequest, ""})
				}
				_, err = c.Send(t.Context(), payment)
				unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
				if !ok {
					t.Fatalf("Send() error = %v, want a *pix.OutcomeUnknownError", err)
				}
				want = append(want, sorted{paymentRequest, unknown.Key})
				for _, ref := range lookups[d.Name] {
					c.LookupRef(t.Context(), unknown.Key, ref)
					lookupKey := unknown.Key
					if d == openfinanceDialect {
						lookupKey = "" // Open Finance looks payments up by the PSP's ids
					}
					want = append(want, sorted{lookupRequest, lookupKey})
				}
				if diff := cmp.Diff(want, wire.got); diff != "" {
					t.Errorf("Sort() mismatch (-want +got):\n%s", diff)
				}
			})
		})
	}
}
