package psp_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
)

// viaRelay relays r to next through a recorder, and fails the test if Relay wrote to the
// recorder or reported a hang-up.
func viaRelay(tb testing.TB, next http.Handler, r *http.Request) answer {
	tb.Helper()
	rec := httptest.NewRecorder()
	a, ok := psp.Relay(next, rec, r)
	if !ok {
		tb.Fatalf("Relay() ok = false, want true")
	}
	if rec.Body.Len() != 0 || len(rec.Header()) != 0 || rec.Flushed {
		tb.Errorf("Relay() wrote %d %v %q, want nothing written", rec.Code, rec.Header(), rec.Body)
	}
	return answer{a.Status, a.Header, string(a.Body)}
}

func TestRelayCatchesTheAnswerServeHTTPWrites(t *testing.T) {
	s := mustServer(t)
	got := viaRelay(t, s, paymentRequest("k1", validBody))
	wantSettled(t, got)
	if got, want := got.header.Get(psp.IdempotencyKeyHeader), "k1"; got != want {
		t.Errorf("Idempotency-Key = %q, want %q", got, want)
	}
	if got, want := got.header.Get("Content-Length"), itoa(len(got.body)); got != want {
		t.Errorf("Content-Length = %q, want %q", got, want)
	}
	replay := viaRelay(t, s, paymentRequest("k1", validBody))
	if replay.status != http.StatusCreated || replay.body != got.body || replay.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay = %d %q replayed %q, want 201, the same body, replayed", replay.status, replay.body,
			replay.header.Get("Idempotent-Replayed"))
	}
	wantFound(t, viaRelay(t, s, lookupRequest("k1")), got)
}

func TestRelayCatchesARefusal(t *testing.T) {
	s := mustServer(t)
	viaRelay(t, s, paymentRequest("k1", validBody))
	other := strings.Replace(validBody, "150.00", "150.01", 1)
	wantProblem(t, viaRelay(t, s, paymentRequest("k1", other)), http.StatusUnprocessableEntity, "idempotency_key_reused")
}

func TestRelayCatchesA409(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		s.Inject(psp.Duplicate(time.Second))
		wantProblem(t, viaRelay(t, s, paymentRequest("k1", validBody)), http.StatusConflict, "idempotency_key_in_use")
		s.Wait()
	})
}

func TestRelayCatchesAPending202(t *testing.T) {
	s := mustServer(t)
	t.Cleanup(s.Close)
	s.Inject(psp.Pending(time.Hour, "settled"))
	a := viaRelay(t, s, paymentRequest("k1", validBody))
	wantStatus(t, a, http.StatusAccepted, false, "EM_PROCESSAMENTO")
	wantStatus(t, viaRelay(t, s, lookupRequest("k1")), http.StatusAccepted, false, "EM_PROCESSAMENTO")
}

func TestRelayHoldsALateAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		s.Inject(psp.Late(time.Minute))
		start := time.Now()
		wantSettled(t, viaRelay(t, s, paymentRequest("k1", validBody)))
		if got, want := time.Since(start), time.Minute; got != want {
			t.Errorf("Relay() returned after %v, want %v", got, want)
		}
	})
}

// TestRelayHangsUpOnTheFrontEndsConnection relays payments through a front end served over
// TCP, which answers 299 when Relay reports an answer. Every fault that closes the connection
// under ServeHTTP closes the front end's, and Relay reports no answer.
func TestRelayHangsUpOnTheFrontEndsConnection(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fault  psp.Fault
		wantOK bool
	}{
		{"none", psp.Late(0), true},
		{"drop", psp.Drop(), false},
		{"reset", psp.ResetConn(), false},
		{"down", psp.Down(time.Hour), false},
		{"short", psp.BadBody("short"), false},
		{"cut", psp.BadBody("cut"), false},
		{"not json", psp.BadBody("not_json"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustServer(t)
			oks := make(chan bool, 1)
			front := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, ok := psp.Relay(s, w, r)
				oks <- ok
				if ok {
					w.WriteHeader(299)
				}
			})
			srv := httptest.NewServer(front)
			t.Cleanup(srv.Close)
			tr := &http.Transport{DisableKeepAlives: true}
			t.Cleanup(tr.CloseIdleConnections)
			client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
			s.Inject(tc.fault)
			resp, err := post(t.Context(), client, srv.URL, "k1", validBody)
			if got := <-oks; got != tc.wantOK {
				t.Errorf("Relay() ok = %v, want %v", got, tc.wantOK)
			}
			switch {
			case tc.wantOK && err != nil:
				t.Fatalf("POST error = %v, want the front end's 299", err)
			case tc.wantOK:
				if a := readAnswer(t, resp); a.status != 299 || a.body != "" {
					t.Errorf("POST = %d %q, want the front end's 299 alone", a.status, a.body)
				}
			case err == nil:
				resp.Body.Close()
				t.Errorf("POST answered %d, want a closed connection", resp.StatusCode)
			}
		})
	}
}

// TestRelayAbortsWhenItCannotHangUp checks that a hang-up on a connection that cannot be
// hijacked (a recorder's) aborts the handler as ServeHTTP does, having written nothing.
func TestRelayAbortsWhenItCannotHangUp(t *testing.T) {
	for _, f := range []psp.Fault{psp.Drop(), psp.BadBody("short")} {
		t.Run(f.Kind+f.Breach, func(t *testing.T) {
			s := mustServer(t)
			s.Inject(f)
			rec := httptest.NewRecorder()
			if got := relayPanic(s, rec, paymentRequest("k1", validBody)); got != http.ErrAbortHandler {
				t.Errorf("Relay() panicked with %v, want http.ErrAbortHandler", got)
			}
			if rec.Body.Len() != 0 || len(rec.Header()) != 0 {
				t.Errorf("Relay() wrote %v %q, want nothing", rec.Header(), rec.Body)
			}
		})
	}
}

// relayPanic relays r and returns what Relay panicked with, or nil.
func relayPanic(s *psp.Server, w http.ResponseWriter, r *http.Request) (v any) {
	defer func() { v = recover() }()
	psp.Relay(s, w, r)
	return nil
}

func TestRelayedRequestsAreJournaledAndCounted(t *testing.T) {
	s := mustServer(t)
	paid := viaRelay(t, s, paymentRequest("k1", validBody))
	viaRelay(t, s, lookupRequest("k1"))
	got, dropped := s.Requests(psp.RequestFilter{})
	want := []psp.Request{
		{Seq: 1, Method: http.MethodPost, Path: psp.PaymentsPath, Key: "k1", KeyHeader: "k1", Token: 1,
			Payload: []byte(validBody), Status: http.StatusCreated},
		{Seq: 2, Method: http.MethodGet, Path: psp.PaymentsPath + "?idempotency_key=k1", Key: "k1", Token: 1,
			Status: http.StatusOK},
	}
	ignore := cmp.FilterPath(func(p cmp.Path) bool {
		name := p.Last().String()
		return name == ".Arrived" || name == ".Elapsed"
	}, cmp.Ignore())
	if diff := cmp.Diff(want, got, ignore); diff != "" || dropped != 0 {
		t.Errorf("Requests() mismatch (-want +got), dropped %d:\n%s", dropped, diff)
	}
	st := s.Stats()
	if st.Requests != 1 || st.Lookups != 1 || st.Settled != 1 || st.Keys != 1 {
		t.Errorf("Stats() = %+v, want 1 request, 1 lookup, 1 settlement, 1 key", st)
	}
	if got, want := st.BalanceCents, psp.DefaultConfig().BalanceCents-15000; got != want {
		t.Errorf("BalanceCents = %d after %s, want %d", got, paid.body, want)
	}
}

// TestRelayServesThroughAHandlerInFrontOfTheServer relays to a handler in front of the Server,
// which notes the requests it passes on and answers one itself, as a gateway does: Relay
// catches the Server's answers and the handler's own alike, and the Server counts only the
// requests that reached it.
func TestRelayServesThroughAHandlerInFrontOfTheServer(t *testing.T) {
	s := mustServer(t)
	var keys []string
	front := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keys = append(keys, r.Header.Get(psp.IdempotencyKeyHeader))
		if r.Header.Get(psp.IdempotencyKeyHeader) == "busy" {
			w.Header().Set("Retry-After", "2")
			http.Error(w, "gateway: busy", http.StatusBadGateway)
			return
		}
		s.ServeHTTP(w, r)
	})
	busy := viaRelay(t, front, paymentRequest("busy", validBody))
	if busy.status != http.StatusBadGateway || busy.header.Get("Retry-After") != "2" || busy.body != "gateway: busy\n" {
		t.Errorf("Relay() of the gateway's answer = %d %v %q, want 502 with Retry-After 2", busy.status, busy.header,
			busy.body)
	}
	wantSettled(t, viaRelay(t, front, paymentRequest("k1", validBody)))
	if want := []string{"busy", "k1"}; !cmp.Equal(keys, want) {
		t.Errorf("the handler passed on keys %q, want %q", keys, want)
	}
	if st := s.Stats(); st.Requests != 1 || st.Settled != 1 {
		t.Errorf("Stats() = %d requests, %d settled, want 1 and 1: the gateway's answer never reached the Server",
			st.Requests, st.Settled)
	}
}

// TestRelayClosesAShortBodysConnectionAsNetHTTPDoes relays a 201 whose body is shorter than
// its Content-Length over TCP: Relay reports no answer, and closes the front end's connection
// as net/http closes it after such a body, with a FIN: the client reads EOF, not a reset.
func TestRelayClosesAShortBodysConnectionAsNetHTTPDoes(t *testing.T) {
	s := mustServer(t)
	oks := make(chan bool, 1)
	front := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, ok := psp.Relay(s, w, r)
		oks <- ok
		if ok {
			w.WriteHeader(299)
		}
	})
	srv := httptest.NewServer(front)
	t.Cleanup(srv.Close)
	tr := &http.Transport{DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	s.Inject(psp.BadBody("short"))
	resp, err := post(t.Context(), &http.Client{Transport: tr, Timeout: 10 * time.Second}, srv.URL, "k1", validBody)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("POST answered %d, want the connection closed", resp.StatusCode)
	}
	if !errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("POST error = %v, want EOF: a connection closed, not reset", err)
	}
	if ok := <-oks; ok {
		t.Errorf("Relay() ok = true, want false: the body was cut short")
	}
	if n := len(s.Settlements()); n != 1 {
		t.Errorf("%d settlements, want 1: the payment was made before its answer was cut short", n)
	}
}

// TestRelayHandsNextABody relays a lookup built as a client's request, whose Body is nil, to a
// handler that reads the body, as a recorder in front of the Server does: it reads an empty
// one, and the caller's request keeps its nil Body.
func TestRelayHandsNextABody(t *testing.T) {
	s := mustServer(t)
	var read []string
	reader := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		read = append(read, fmt.Sprintf("%q %v", body, err))
		s.ServeHTTP(w, r)
	})
	viaRelay(t, s, paymentRequest("k1", validBody))
	r, _ := http.NewRequest(http.MethodGet, psp.PaymentsPath+"?"+psp.LookupParam+"=k1", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	if got := viaRelay(t, reader, r); got.status != http.StatusOK {
		t.Errorf("Relay() of the lookup = %d %s, want 200", got.status, got.body)
	}
	if want := []string{`"" <nil>`}; !cmp.Equal(read, want) {
		t.Errorf("the handler read %q, want %q", read, want)
	}
	if r.Body != nil {
		t.Errorf("the caller's request has Body %v after Relay, want nil as it was", r.Body)
	}
}
