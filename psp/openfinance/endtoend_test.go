package openfinance_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-json-experiment/json"

	"pixretry/psp"
	"pixretry/psp/openfinance"
)

// The endToEndIds the tests' client makes: paymentData's, and another of the same form.
const (
	clientEndToEndID = "E9040088820000101000000123873170"
	otherEndToEndID  = "E9040088820000101000100000000042"
)

// answerEndToEndID is the endToEndId of a, a POST's 201.
func answerEndToEndID(tb testing.TB, a answer) string {
	tb.Helper()
	paymentID(tb, a)
	id, _ := a.claims["data"].([]any)[0].(map[string]any)["endToEndId"].(string)
	return id
}

// ledgerEndToEndIDs are the endToEndIds of the core's ledger, in settlement order, joined by
// ", ".
func ledgerEndToEndIDs(core *psp.Server) string {
	var ids []string
	for _, s := range core.Settlements() {
		ids = append(ids, s.EndToEndID)
	}
	return strings.Join(ids, ", ")
}

// coreLookup is the endToEndId that the core's own status lookup of key answers.
func coreLookup(tb testing.TB, core *psp.Server, key string) string {
	tb.Helper()
	r := httptest.NewRequest(http.MethodGet, psp.PaymentsPath+"?"+url.Values{psp.LookupParam: {key}}.Encode(), nil)
	r.Header.Set("Authorization", "Bearer "+token)
	w := httptest.NewRecorder()
	core.ServeHTTP(w, r)
	var body struct {
		EndToEndID string `json:"endToEndId"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		tb.Fatalf("the core's lookup of %s = %d %q: %v", key, w.Code, w.Body, err)
	}
	return body.EndToEndID
}

// endReports collects the endToEndIds and statuses that psp.Config.OnEnd receives.
type endReports struct {
	mu  sync.Mutex
	got []string // "endToEndId status"
}

func (e *endReports) add(ended psp.Ended) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, ended.EndToEndID+" "+ended.Status)
}

func (e *endReports) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return strings.Join(e.got, ", ")
}

// reporting sets the core's OnEnd to collect into e.
func reporting(e *endReports) func(*psp.Config, *openfinance.Config) {
	return func(c *psp.Config, _ *openfinance.Config) { c.OnEnd = e.add }
}

// TestLedgerHoldsTheClientsEndToEndID: the endToEndId the client made is the one of the
// answer, of the core's ledger, of its report of the end and of its own lookup.
func TestLedgerHoldsTheClientsEndToEndID(t *testing.T) {
	var ended endReports
	b := mustBank(t, reporting(&ended))
	consent := b.mustConsent(consentData())
	if got := answerEndToEndID(t, b.pay("k1", paymentData(consent))); got != clientEndToEndID {
		t.Errorf("the answer's endToEndId = %q, want the client's %q", got, clientEndToEndID)
	}
	if got := ledgerEndToEndIDs(b.core); got != clientEndToEndID {
		t.Errorf("the ledger's endToEndIds = %q, want the client's %q", got, clientEndToEndID)
	}
	if got := coreLookup(t, b.core, "k1"); got != clientEndToEndID {
		t.Errorf("the core's lookup = %q, want the client's %q", got, clientEndToEndID)
	}
	b.core.Close() // waits for the report
	if got, want := ended.String(), clientEndToEndID+" REALIZADO"; got != want {
		t.Errorf("OnEnd got %q, want %q", got, want)
	}
}

// TestReplayAnswersTheClientsEndToEndID: a payment's key replayed answers the endToEndId the
// client made, and the ledger holds it once.
func TestReplayAnswersTheClientsEndToEndID(t *testing.T) {
	b := mustBank(t, nil)
	consent := b.mustConsent(consentData())
	for range 2 {
		if got := answerEndToEndID(t, b.pay("k1", paymentData(consent))); got != clientEndToEndID {
			t.Errorf("the answer's endToEndId = %q, want the client's %q", got, clientEndToEndID)
		}
	}
	if got := ledgerEndToEndIDs(b.core); got != clientEndToEndID {
		t.Errorf("the ledger's endToEndIds = %q, want the client's %q once", got, clientEndToEndID)
	}
}

// TestEachPaymentKeepsItsClientsEndToEndID: two payments under two keys each settle with the
// endToEndId their client made.
func TestEachPaymentKeepsItsClientsEndToEndID(t *testing.T) {
	b := mustBank(t, nil)
	for key, id := range map[string]string{"k1": clientEndToEndID, "k2": otherEndToEndID} {
		data := paymentData(b.mustConsent(consentData()))
		data[0] = edited(data[0].(map[string]any), id, "endToEndId")
		if got := answerEndToEndID(t, b.pay(key, data)); got != id {
			t.Errorf("%s: the answer's endToEndId = %q, want the client's %q", key, got, id)
		}
		if got := coreLookup(t, b.core, key); got != id {
			t.Errorf("%s: the core's lookup = %q, want the client's %q", key, got, id)
		}
	}
	if got := len(b.core.Settlements()); got != 2 {
		t.Errorf("the ledger holds %d settlements, want 2", got)
	}
}

// TestPendingPaymentSettlesWithTheClientsEndToEndID: a payment the core holds pending carries
// the client's endToEndId while pending, and into the ledger when it settles. One the core
// rejects is reported with it.
func TestPendingPaymentSettlesWithTheClientsEndToEndID(t *testing.T) {
	for _, tc := range []struct{ then, status, ledger string }{
		{"settled", "REALIZADO", clientEndToEndID},
		{"rejected", "NAO_REALIZADO", ""},
	} {
		t.Run(tc.then, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var ended endReports
				b := mustBank(t, reporting(&ended))
				b.core.Inject(psp.Pending(10*time.Second, tc.then))
				consent := b.mustConsent(consentData())
				if got := answerEndToEndID(t, b.pay("k1", paymentData(consent))); got != clientEndToEndID {
					t.Errorf("the answer's endToEndId = %q, want the client's %q", got, clientEndToEndID)
				}
				if got := coreLookup(t, b.core, "k1"); got != clientEndToEndID {
					t.Errorf("the core's lookup while pending = %q, want the client's %q", got, clientEndToEndID)
				}
				time.Sleep(10 * time.Second)
				synctest.Wait()
				if got := ledgerEndToEndIDs(b.core); got != tc.ledger {
					t.Errorf("the ledger's endToEndIds = %q, want %q", got, tc.ledger)
				}
				if got, want := ended.String(), clientEndToEndID+" "+tc.status; got != want {
					t.Errorf("OnEnd got %q, want %q", got, want)
				}
			})
		})
	}
}
