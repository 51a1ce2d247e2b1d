package psp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/psp"
)

// The endToEndIds a front end hands the Server in these tests: ids its client made, of
// another ISPB and in base 62, which the Server never makes.
const (
	clientEndToEndID = "E99999999202612071230AbCdEfGhIjK"
	otherEndToEndID  = "E99999999202612071231ZyXwVuTsRqP"
)

// payWithID sends a valid payment under key whose context carries id, as a front end relays it
// (psp.WithEndToEndID), or none if id is "".
func payWithID(h http.Handler, key, id string) answer {
	r := paymentRequest(key, validBody)
	if id != "" {
		r = r.WithContext(psp.WithEndToEndID(r.Context(), id))
	}
	return serve(h, r)
}

// endToEndIDOf is the endToEndId of a's body, a receipt of any status.
func endToEndIDOf(tb testing.TB, a answer) string {
	tb.Helper()
	var body struct{ EndToEndID string }
	if err := json.Unmarshal([]byte(a.body), &body); err != nil {
		tb.Fatalf("answer %d %q: %v", a.status, a.body, err)
	}
	return body.EndToEndID
}

// endedIDs collects the endToEndIds and statuses that Config.OnEnd receives.
type endedIDs struct {
	mu  sync.Mutex
	got []string // "endToEndId status"
}

func (e *endedIDs) add(ended psp.Ended) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, ended.EndToEndID+" "+ended.Status)
}

func (e *endedIDs) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return strings.Join(e.got, ", ")
}

// ledgerIDs are the endToEndIds of s's ledger, in settlement order, joined by ", ".
func ledgerIDs(s *psp.Server) string {
	var ids []string
	for _, st := range s.Settlements() {
		ids = append(ids, st.EndToEndID)
	}
	return strings.Join(ids, ", ")
}

// TestHandedEndToEndIDIsThePayments: a payment whose context carries an endToEndId settles
// with it: its 201, the ledger, Config.OnEnd and a lookup all carry it.
func TestHandedEndToEndIDIsThePayments(t *testing.T) {
	var ended endedIDs
	s := mustServer(t, func(c *psp.Config) { c.OnEnd = ended.add })
	if got := endToEndIDOf(t, payWithID(s, "k1", clientEndToEndID)); got != clientEndToEndID {
		t.Errorf("201's endToEndId = %q, want %q", got, clientEndToEndID)
	}
	if got := ledgerIDs(s); got != clientEndToEndID {
		t.Errorf("the ledger's endToEndIds = %q, want %q", got, clientEndToEndID)
	}
	s.Close() // waits for the report
	if got, want := ended.String(), clientEndToEndID+" REALIZADO"; got != want {
		t.Errorf("OnEnd got %q, want %q", got, want)
	}
	if got := endToEndIDOf(t, serve(s, lookupRequest("k1"))); got != clientEndToEndID {
		t.Errorf("lookup's endToEndId = %q, want %q", got, clientEndToEndID)
	}
}

// TestReplayKeepsTheFirstEndToEndID: a request under a key the Server holds answers with the
// key's endToEndId, whether it carries another or none, and adds nothing to the ledger.
func TestReplayKeepsTheFirstEndToEndID(t *testing.T) {
	s := mustServer(t)
	wantSettled(t, payWithID(s, "k1", clientEndToEndID))
	for _, id := range []string{otherEndToEndID, ""} {
		a := payWithID(s, "k1", id)
		if got := endToEndIDOf(t, a); a.status != http.StatusCreated || got != clientEndToEndID {
			t.Errorf("replay with %q = %d %q, want 201 %q", id, a.status, got, clientEndToEndID)
		}
	}
	if got := ledgerIDs(s); got != clientEndToEndID {
		t.Errorf("the ledger's endToEndIds = %q, want %q", got, clientEndToEndID)
	}
}

// TestOwnEndToEndIDWithoutOne: a payment whose context carries no endToEndId gets one the
// Server makes, of its ISPB, as the Server's own API always did; the next payment's is
// another.
func TestOwnEndToEndIDWithoutOne(t *testing.T) {
	s := mustServer(t, func(c *psp.Config) { c.ISPB = "87654321" })
	wantSettled(t, payWithID(s, "k1", clientEndToEndID))
	first := wantSettled(t, payWithID(s, "k2", "")).EndToEndID
	second := wantSettled(t, payWithID(s, "k3", "")).EndToEndID
	own := regexp.MustCompile(`^E87654321[0-9]{12}[0-9a-z]{11}$`)
	if !own.MatchString(first) || !own.MatchString(second) || first == second {
		t.Errorf("endToEndIds = %q and %q, want two of the Server's own, of ISPB 87654321", first, second)
	}
	if got, want := ledgerIDs(s), clientEndToEndID+", "+first+", "+second; got != want {
		t.Errorf("the ledger's endToEndIds = %q, want %q", got, want)
	}
}

// TestPendingPaymentKeepsItsHandedEndToEndID: a payment accepted pending carries the handed
// endToEndId in its 202, in its lookups, then in the ledger and Config.OnEnd when it settles.
// One rejected carries it in OnEnd and its lookup.
func TestPendingPaymentKeepsItsHandedEndToEndID(t *testing.T) {
	for _, then := range []string{"REALIZADO", "NAO_REALIZADO"} {
		t.Run(then, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var ended endedIDs
				s := mustServer(t, func(c *psp.Config) { c.OnEnd = ended.add })
				defer s.Close()
				s.Inject(psp.Pending(10*time.Second, map[string]string{"REALIZADO": "settled", "NAO_REALIZADO": "rejected"}[then]))
				a := payWithID(s, "k1", clientEndToEndID)
				if got := endToEndIDOf(t, a); a.status != http.StatusAccepted || got != clientEndToEndID {
					t.Errorf("payment = %d %q, want 202 %q", a.status, got, clientEndToEndID)
				}
				if got := endToEndIDOf(t, serve(s, lookupRequest("k1"))); got != clientEndToEndID {
					t.Errorf("lookup while pending = %q, want %q", got, clientEndToEndID)
				}
				time.Sleep(10 * time.Second)
				synctest.Wait()
				wantLedger := map[string]string{"REALIZADO": clientEndToEndID, "NAO_REALIZADO": ""}[then]
				if got := ledgerIDs(s); got != wantLedger {
					t.Errorf("the ledger's endToEndIds = %q, want %q", got, wantLedger)
				}
				if got, want := ended.String(), clientEndToEndID+" "+then; got != want {
					t.Errorf("OnEnd got %q, want %q", got, want)
				}
				if got := endToEndIDOf(t, serve(s, lookupRequest("k1"))); got != clientEndToEndID {
					t.Errorf("lookup once ended = %q, want %q", got, clientEndToEndID)
				}
			})
		})
	}
}

// TestDuplicatedCopyCommitsTheHandedEndToEndID: under a duplicate fault, the copy that commits
// in the background settles with the endToEndId its request carried.
func TestDuplicatedCopyCommitsTheHandedEndToEndID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		s.Inject(psp.Duplicate(time.Second))
		wantProblem(t, payWithID(s, "k1", clientEndToEndID), http.StatusConflict, "idempotency_key_in_use")
		s.Wait()
		if got := ledgerIDs(s); got != clientEndToEndID {
			t.Errorf("the ledger's endToEndIds = %q, want %q", got, clientEndToEndID)
		}
	})
}

// A front end relays its client's payment with the endToEndId the client made, and the
// Server's ledger holds it.
func ExampleWithEndToEndID() {
	s, err := psp.NewServer(psp.DefaultConfig())
	if err != nil {
		panic(err)
	}
	body := strings.NewReader(`{"valor":"150.00","chave":"pix@example.com"}`)
	r := httptest.NewRequest(http.MethodPost, psp.PaymentsPath, body)
	r.Header.Set("Authorization", "Bearer "+psp.DefaultToken)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(psp.IdempotencyKeyHeader, "order-1")
	r = r.WithContext(psp.WithEndToEndID(r.Context(), "E99999999202612071230AbCdEfGhIjK"))
	a, _ := psp.Relay(s, httptest.NewRecorder(), r)
	fmt.Println(a.Status, s.Settlements()[0].EndToEndID)
	// Output: 201 E99999999202612071230AbCdEfGhIjK
}
