package psp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
)

// get looks key up over client at baseURL.
func get(ctx context.Context, client *http.Client, baseURL, key string) (*http.Response, error) {
	u := baseURL + psp.PaymentsPath + "?" + url.Values{psp.LookupParam: {key}}.Encode()
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	r.Header.Set("Authorization", "Bearer "+token)
	return client.Do(r)
}

// mustGet is get that expects an answer.
func mustGet(tb testing.TB, srv pipe, key string) answer {
	tb.Helper()
	resp, err := get(context.Background(), srv.client, srv.URL, key)
	if err != nil {
		tb.Fatalf("GET error = %v, want an answer", err)
	}
	return readAnswer(tb, resp)
}

// wantLookupClosed checks that a lookup got no answer: its connection was closed.
func wantLookupClosed(tb testing.TB, srv pipe, key string) {
	tb.Helper()
	resp, err := get(context.Background(), srv.client, srv.URL, key)
	if err == nil {
		resp.Body.Close()
		tb.Fatalf("GET answered %d, want the connection closed", resp.StatusCode)
	}
	if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		tb.Fatalf("GET error = %v, want EOF", err)
	}
}

func TestLookupStatusFaultStrikesFirst(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.Fault{Kind: "status", Status: 503, RetryAfter: time.Second}.ForLookup())
	paid := pay(s, "k1", validBody) // a payment does not consume it
	r := lookupRequest("k1")
	r.Header.Del("Authorization")
	a := serve(s, r)
	wantProblem(t, a, 503, "injected_fault")
	if got := a.header.Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After = %q, want 1", got)
	}
	wantFound(t, lookUp(s, "k1"), paid)
}

// TestLookupFaultBeforeAnyProcessingClosesNothing: a status fault answers before the key is
// read, so the key stays open.
func TestLookupFaultBeforeAnyProcessingClosesNothing(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.Status(500).ForLookup())
	wantProblem(t, lookUp(s, "k1"), 500, "injected_fault")
	if got := s.Stats().ClosedKeys; got != 0 {
		t.Errorf("Stats().ClosedKeys = %d, want 0", got)
	}
	wantSettled(t, pay(s, "k1", validBody))
}

func TestEachRequestConsumesItsOwnFaults(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.Status(500), psp.Status(502).ForLookup(), psp.Status(503))
	if got := s.Stats().Faults; got != 3 {
		t.Errorf("Stats().Faults = %d, want 3: both queues", got)
	}
	wantProblem(t, lookUp(s, "k1"), 502, "injected_fault")
	wantProblem(t, pay(s, "k1", validBody), 500, "injected_fault")
	wantProblem(t, pay(s, "k1", validBody), 503, "injected_fault")
	paid := pay(s, "k1", validBody)
	wantFound(t, lookUp(s, "k1"), paid)
	if st := s.Stats(); st.Faults != 0 || st.Requests != 3 || st.Lookups != 2 {
		t.Errorf("Stats() = %+v, want no fault left, 3 requests and 2 lookups", st)
	}
}

// TestLookupDownWindowClosesLookupsOnly: a lookup fault's down window leaves payments alone.
func TestLookupDownWindowClosesLookupsOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		srv := mustPipe(t, s)
		s.Inject(psp.Down(10*time.Second).ForLookup(), psp.Status(503).ForLookup())
		wantLookupClosed(t, srv, "k1")
		paid := mustPost(t, srv.client, srv.URL, "k1", validBody)
		wantSettled(t, paid)
		time.Sleep(10*time.Second - time.Nanosecond)
		wantLookupClosed(t, srv, "k1")
		time.Sleep(time.Nanosecond)
		// Up again; the lookups refused while down consumed no fault.
		wantProblem(t, mustGet(t, srv, "k1"), 503, "injected_fault")
		wantFound(t, mustGet(t, srv, "k1"), paid)
	})
}

// TestPaymentDownWindowClosesLookupsToo: a PSP that is down answers nothing, lookups included.
func TestPaymentDownWindowClosesLookupsToo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		srv := mustPipe(t, s)
		paid := mustPost(t, srv.client, srv.URL, "k1", validBody)
		s.Inject(psp.Down(10 * time.Second))
		wantFound(t, mustGet(t, srv, "k1"), paid) // no window until a payment consumes the fault
		s.Inject(psp.Status(502).ForLookup())
		wantClosed(t, srv.client, srv.URL, "k2")
		wantLookupClosed(t, srv, "k1")
		time.Sleep(10*time.Second - time.Nanosecond)
		wantLookupClosed(t, srv, "k1")
		time.Sleep(time.Nanosecond)
		// Up again; the lookups refused while down consumed no fault.
		wantProblem(t, mustGet(t, srv, "k1"), 502, "injected_fault")
		wantFound(t, mustGet(t, srv, "k1"), paid)
		if st := s.Stats(); st.Lookups != 5 || st.ClosedKeys != 0 {
			t.Errorf("Stats() = %+v, want 5 lookups and no closed key", st)
		}
	})
}

func TestLookupResetFaultClosesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		srv := mustPipe(t, s)
		s.Inject(psp.ResetConn().ForLookup())
		wantLookupClosed(t, srv, "k1")
		if got := s.Stats().ClosedKeys; got != 0 {
			t.Errorf("Stats().ClosedKeys = %d after a reset, want 0", got)
		}
		wantSettled(t, mustPost(t, srv.client, srv.URL, "k1", validBody))
	})
}

func TestLookupLateFaultHoldsTheAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		srv := mustPipe(t, s)
		paid := mustPost(t, srv.client, srv.URL, "k1", validBody)
		s.Inject(psp.Late(3 * time.Second).ForLookup())
		start := time.Now()
		var late answer
		var wg sync.WaitGroup
		wg.Go(func() { late = mustGet(t, srv, "k1") })
		synctest.Wait()
		early := mustGet(t, srv, "k1") // the next lookup meets no fault
		if got := time.Since(start); got != 0 {
			t.Errorf("the next lookup came after %v, want no wait", got)
		}
		wg.Wait()
		if got := time.Since(start); got != 3*time.Second {
			t.Errorf("the late answer came after %v, want 3s", got)
		}
		wantFound(t, late, paid)
		wantFound(t, early, paid)
	})
}

func TestLookupRedirectFault(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.Redirect(307).ForLookup())
	a := serve(s, rawLookupRequest("%zz"))
	if a.status != 307 || a.header.Get("Location") != psp.PaymentsPath || a.body != "" {
		t.Errorf("answer = %d Location %q %q, want 307 to %s with no body", a.status, a.header.Get("Location"), a.body, psp.PaymentsPath)
	}
	wantProblem(t, lookUp(s, "k1"), 404, "payment_not_found")
}

// TestLookupBadBodyBreaksTheReceipt: a bad_body fault breaks a lookup's 200 as it breaks a 201.
func TestLookupBadBodyBreaksTheReceipt(t *testing.T) {
	for _, tc := range brokenBodies {
		t.Run(string(tc.fault.Breach)+tc.fault.Member, func(t *testing.T) {
			s := mustServer(t)
			paid := pay(s, "k1", validBody)
			s.Inject(tc.fault.ForLookup())
			broken := lookUp(s, "k1")
			if broken.status != 200 {
				t.Fatalf("broken answer = %d, want 200", broken.status)
			}
			want := mustDecode[map[string]any](t, paid.body)
			tc.edit(want)
			if diff := cmp.Diff(want, mustDecode[map[string]any](t, broken.body)); diff != "" {
				t.Errorf("broken body mismatch (-want +got):\n%s", diff)
			}
			wantFound(t, lookUp(s, "k1"), paid)
		})
	}
}

func TestLookupBadBodyNotJSON(t *testing.T) {
	s := mustServer(t)
	pay(s, "k1", validBody)
	s.Inject(psp.BadBody("not_json").ForLookup())
	a := lookUp(s, "k1")
	if a.status != 200 || json.Valid([]byte(a.body)) || !strings.Contains(a.body, "<h1>200 OK</h1>") {
		t.Errorf("answer = %d %q, want a 200 with an HTML body", a.status, a.body)
	}
}

// TestLookupBadBodyLeavesOtherAnswersAlone: a lookup's answer that is no receipt is sent as it
// is, and consumes the fault.
func TestLookupBadBodyLeavesOtherAnswersAlone(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.BadBody("not_json").ForLookup())
	wantProblem(t, lookUp(s, "k1"), 404, "payment_not_found")
	if got := s.Stats().Faults; got != 0 {
		t.Errorf("Stats().Faults = %d, want 0", got)
	}
}

func TestLookupBadBodyTruncated(t *testing.T) {
	for _, breach := range []string{"short", "cut"} {
		t.Run(string(breach), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := mustServer(t)
				srv := mustPipe(t, s)
				paid := mustPost(t, srv.client, srv.URL, "k1", validBody)
				s.Inject(psp.BadBody(breach).ForLookup())
				resp, err := get(t.Context(), srv.client, srv.URL, "k1")
				if err != nil {
					t.Fatalf("GET error = %v, want the 200's header", err)
				}
				defer resp.Body.Close()
				got, err := io.ReadAll(resp.Body)
				if resp.StatusCode != 200 || !errors.Is(err, io.ErrUnexpectedEOF) || string(got) != paid.body[:len(paid.body)/2] {
					t.Errorf("answer = %d %q, read error %v; want 200, half the receipt and %v",
						resp.StatusCode, got, err, io.ErrUnexpectedEOF)
				}
			})
		})
	}
}

func TestClearFaultsAndResetEndLookupFaults(t *testing.T) {
	for name, end := range map[string]func(*psp.Server){"ClearFaults": (*psp.Server).ClearFaults, "Reset": (*psp.Server).Reset} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := mustServer(t)
				srv := mustPipe(t, s)
				s.Inject(psp.Down(time.Hour).ForLookup(), psp.Status(503).ForLookup(), psp.Down(time.Hour))
				wantLookupClosed(t, srv, "k1")
				wantClosed(t, srv.client, srv.URL, "k1")
				s.Inject(psp.Status(502).ForLookup())
				end(s)
				if got := s.Stats().Faults; got != 0 {
					t.Errorf("Stats().Faults = %d after %s, want 0", got, name)
				}
				wantProblem(t, mustGet(t, srv, "k1"), 404, "payment_not_found")
			})
		})
	}
}
