package psp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/internal/pipenet"
	"pixretry/psp"
)

// pipe is a Server reached over in-memory connections, usable inside a synctest bubble.
type pipe struct {
	URL    string
	client *http.Client // one connection per request
}

// mustPipe serves h over pipenet until the test ends. Its client opens a connection per
// request: on a reused connection net/http would silently resend a request that carries an
// Idempotency-Key when the connection closes, hiding the fault from the test. A Server that
// mustServer made is checked (see checked).
func mustPipe(tb testing.TB, h http.Handler) pipe {
	srv := pipenet.NewServer(h)
	tb.Cleanup(srv.Close)
	tr := srv.Transport().Clone()
	tr.DisableKeepAlives = true
	return pipe{srv.URL, &http.Client{Transport: tr}}
}

// post sends a payment with key over client to baseURL.
func post(ctx context.Context, client *http.Client, baseURL, key, body string) (*http.Response, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+psp.PaymentsPath, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	r.Header.Set("Authorization", "Bearer "+token)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(psp.IdempotencyKeyHeader, key)
	return client.Do(r)
}

// mustPost is post that expects an answer.
func mustPost(tb testing.TB, client *http.Client, baseURL, key, body string) answer {
	tb.Helper()
	resp, err := post(context.Background(), client, baseURL, key, body)
	if err != nil {
		tb.Fatalf("POST error = %v, want an answer", err)
	}
	return readAnswer(tb, resp)
}

// wantClosed checks that a POST got no answer: its connection was closed.
func wantClosed(tb testing.TB, client *http.Client, baseURL, key string) {
	tb.Helper()
	resp, err := post(context.Background(), client, baseURL, key, validBody)
	if err == nil {
		resp.Body.Close()
		tb.Fatalf("POST answered %d, want the connection closed", resp.StatusCode)
	}
	if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		tb.Fatalf("POST error = %v, want EOF", err)
	}
}

func TestStatusFaultStrikesFirst(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.Status(503), psp.Fault{Kind: "status", Status: 429, RetryAfter: 1500 * time.Millisecond})

	r := paymentRequest("k1", `not even JSON`)
	r.Header.Del("Authorization")
	a := serve(s, r)
	wantProblem(t, a, 503, "injected_fault")
	if got := a.header.Values("Retry-After"); got != nil {
		t.Errorf("Retry-After = %q, want none", got)
	}
	if got := a.header.Get(psp.IdempotencyKeyHeader); got != "" {
		t.Errorf("echoed key = %q before the key was read, want none", got)
	}

	a = pay(s, "k1", validBody)
	wantProblem(t, a, 429, "injected_fault")
	if got := a.header.Get("Retry-After"); got != "2" {
		t.Errorf("Retry-After = %q, want 2 (1.5s rounded up)", got)
	}
	s.Inject(psp.Status(400)) // the lowest status a status fault takes is still a problem
	wantProblem(t, pay(s, "k1", validBody), 400, "injected_fault")
	wantSettled(t, pay(s, "k1", validBody)) // nothing stored; the queue is empty
	if n := len(s.Settlements()); n != 1 {
		t.Errorf("%d settlements, want 1", n)
	}
}

func TestOnlyPaymentRequestsConsumeFaults(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.Status(500))
	serve(s, httptest.NewRequest(http.MethodPut, psp.PaymentsPath, nil))
	serve(s, httptest.NewRequest(http.MethodGet, "/elsewhere", nil))
	serve(s, lookupRequest("other")) // a lookup consumes lookup faults only
	wantProblem(t, pay(s, "k1", validBody), 500, "injected_fault")
	wantSettled(t, pay(s, "k1", validBody))
}

func TestFaultsAreConsumedInOrder(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.Status(500))
	s.Inject(psp.Status(502), psp.Status(503))
	for _, want := range []int{500, 502, 503, 201} {
		if got := pay(s, "k1", validBody).status; got != want {
			t.Errorf("status = %d, want %d", got, want)
		}
	}
}

func TestClearFaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		srv := mustPipe(t, s)
		s.Inject(psp.Down(time.Hour), psp.Status(503))
		wantClosed(t, srv.client, srv.URL, "k1")
		s.ClearFaults() // ends the outage and empties the queue
		wantSettled(t, mustPost(t, srv.client, srv.URL, "k1", validBody))
	})
}

func TestSlowFaultOutlivesTheClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		srv := mustPipe(t, s)
		s.Inject(psp.Slow(time.Minute))

		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err := post(ctx, srv.client, srv.URL, "k1", validBody)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("POST error = %v, want %v", err, context.DeadlineExceeded)
		}
		if n := len(s.Settlements()); n != 0 {
			t.Fatalf("%d settlements before the delay is over, want 0", n)
		}
		wantProblem(t, mustPost(t, srv.client, srv.URL, "k1", validBody), 409, "idempotency_key_in_use")

		time.Sleep(time.Minute) // the abandoned request commits anyway
		synctest.Wait()
		if n := len(s.Settlements()); n != 1 {
			t.Fatalf("%d settlements after the delay, want 1", n)
		}
		a := mustPost(t, srv.client, srv.URL, "k1", validBody)
		if a.status != 201 || a.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("retry = %d, %s %q; want a replayed 201", a.status, "Idempotent-Replayed", a.header.Get("Idempotent-Replayed"))
		}
	})
}

func TestLateFaultCommitsThenAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		srv := mustPipe(t, s)
		s.Inject(psp.Late(3 * time.Second))

		start := time.Now()
		var late answer
		var wg sync.WaitGroup
		wg.Go(func() { late = mustPost(t, srv.client, srv.URL, "k1", validBody) })
		synctest.Wait()
		if n := len(s.Settlements()); n != 1 {
			t.Fatalf("%d settlements while the answer is held, want 1", n)
		}
		early := mustPost(t, srv.client, srv.URL, "k1", validBody) // the key has completed
		wg.Wait()
		if got := time.Since(start); got != 3*time.Second {
			t.Errorf("the late answer came after %v, want 3s", got)
		}
		wantSettled(t, late)
		wantReplay(t, early, late)
	})
}

func TestLateAnswerLostToAClientTimeoutIsReplayed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		srv := mustPipe(t, s)
		s.Inject(psp.Late(5 * time.Second))
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if _, err := post(ctx, srv.client, srv.URL, "k1", validBody); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("POST error = %v, want %v", err, context.DeadlineExceeded)
		}
		a := mustPost(t, srv.client, srv.URL, "k1", validBody)
		if a.status != 201 || a.header.Get("Idempotent-Replayed") != "true" || len(s.Settlements()) != 1 {
			t.Errorf("retry = %d replayed %q with %d settlements, want a replayed 201 and 1",
				a.status, a.header.Get("Idempotent-Replayed"), len(s.Settlements()))
		}
		time.Sleep(3 * time.Second) // the held answer goes out to a closed connection; the handler ends
	})
}

func TestLateAndDropApplyToAnyAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		srv := mustPipe(t, s)
		s.Inject(psp.Late(time.Second), psp.Drop())
		start := time.Now()
		a := mustPost(t, srv.client, srv.URL, "k1", `{"valor":"1.5","chave":"pix@example.com"}`)
		wantProblem(t, a, 400, "invalid_request")
		if got := time.Since(start); got != time.Second {
			t.Errorf("the 400 came after %v, want 1s", got)
		}
		wantClosed(t, srv.client, srv.URL, "k1")
	})
}

func TestDropFaultLosesTheAnswerNotThePayment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		srv := mustPipe(t, s)
		s.Inject(psp.Drop())
		wantClosed(t, srv.client, srv.URL, "k1")
		ledger := s.Settlements()
		if len(ledger) != 1 {
			t.Fatalf("%d settlements after a drop, want 1", len(ledger))
		}
		a := mustPost(t, srv.client, srv.URL, "k1", validBody)
		if got := mustDecode[receipt](t, a.body); a.header.Get("Idempotent-Replayed") != "true" ||
			got.EndToEndID != ledger[0].EndToEndID {
			t.Errorf("retry = %s replayed %q, want the dropped answer replayed", a.body, a.header.Get("Idempotent-Replayed"))
		}
	})
}

func TestResetFaultProcessesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		srv := mustPipe(t, s)
		s.Inject(psp.ResetConn())
		wantClosed(t, srv.client, srv.URL, "k1")
		if n := len(s.Settlements()); n != 0 {
			t.Fatalf("%d settlements after a reset, want 0", n)
		}
		wantSettled(t, mustPost(t, srv.client, srv.URL, "k1", validBody))
	})
}

func TestDownFaultClosesEveryConnectionForItsDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		srv := mustPipe(t, s)
		s.Inject(psp.Down(10*time.Second), psp.Status(503))
		wantClosed(t, srv.client, srv.URL, "k1")
		time.Sleep(10*time.Second - time.Nanosecond)
		wantClosed(t, srv.client, srv.URL, "k1")
		time.Sleep(time.Nanosecond)
		// Up again; the requests refused while down consumed no fault.
		wantProblem(t, mustPost(t, srv.client, srv.URL, "k1", validBody), 503, "injected_fault")
		wantSettled(t, mustPost(t, srv.client, srv.URL, "k1", validBody))
		if n := len(s.Settlements()); n != 1 {
			t.Errorf("%d settlements, want 1", n)
		}
	})
}

func TestResetEndsAnOutage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		srv := mustPipe(t, s)
		s.Inject(psp.Down(time.Hour))
		wantClosed(t, srv.client, srv.URL, "k1")
		s.Reset()
		wantSettled(t, mustPost(t, srv.client, srv.URL, "k1", validBody))
	})
}

func TestHangUpWithoutAConnectionAbortsTheHandler(t *testing.T) {
	for _, f := range []psp.Fault{psp.Drop(), psp.ResetConn(), psp.Down(time.Second)} {
		t.Run(string(f.Kind), func(t *testing.T) {
			s := mustServer(t)
			s.Inject(f)
			defer func() {
				if got := recover(); got != http.ErrAbortHandler {
					t.Errorf("ServeHTTP on a recorder panicked with %v, want http.ErrAbortHandler", got)
				}
			}()
			pay(s, "k1", validBody) // a ResponseRecorder cannot be hijacked
		})
	}
}
