package pix_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// TestObserverLearnsWhatEachAttemptCarries: the Call and the Attempts that an Observer gets for
// a Send whose first attempt met a 503 carry the key, the request's method, URL and server, and
// the attempt's error.
func TestObserverLearnsWhatEachAttemptCarries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, psp.Config{})
		f.psp.Inject(psp.Status(503))
		o := &observed{}
		r, err := f.client(quiet, observedBy(o)).Send(t.Context(), payment)
		if err != nil {
			t.Fatal(err)
		}
		base := pix.Attempt{Key: r.IdempotencyKey, Method: http.MethodPost, URL: f.srv.URL + psp.PaymentsPath,
			ServerAddress: "pipe", ServerPort: 80}
		first, second := base, base
		first.Number, first.Status, first.Outcome, first.Wait = 1, 503, pix.OutcomeTransient, 50*time.Millisecond
		second.Number, second.Status, second.Outcome, second.Stop = 2, 201, pix.OutcomeSettled, retry.StopSuccess
		if diff := cmp.Diff([]pix.Attempt{first, second}, o.attempts, cmpopts.IgnoreFields(pix.Attempt{}, "Err")); diff != "" {
			t.Errorf("attempts ended (-want +got):\n%s", diff)
		}
		if perr, ok := errors.AsType[*pix.Error](o.attempts[0].Err); !ok || perr.Status != 503 || o.attempts[1].Err != nil {
			t.Errorf("the attempts' Err = %v, %v; want the 503, then nil", o.attempts[0].Err, o.attempts[1].Err)
		}
		want := []pix.Call{{Kind: pix.CallSend, Key: r.IdempotencyKey, Outcome: pix.OutcomeSettled,
			Duration: 50 * time.Millisecond, Attempts: 2, Receipt: r}}
		if diff := cmp.Diff(want, o.calls); diff != "" {
			t.Errorf("calls ended (-want +got):\n%s", diff)
		}
	})
}

// TestObserverInjectsIntoEachRequest: every request carries what the Observer's Inject wrote
// under the attempt's context, here its name, as the PSP's journal shows. Beside a Logger, the
// Observer hears every event it hears alone, and the Logger writes its records.
func TestObserverInjectsIntoEachRequest(t *testing.T) {
	for _, logged := range []bool{false, true} {
		t.Run(fmt.Sprintf("logged=%v", logged), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, psp.Config{})
				f.psp.Inject(psp.Status(503))
				o := &observed{}
				c := f.client(quiet, observedBy(o))
				if logged {
					c.Logger = slogOf(f.log)
				}
				unknown := &pix.OutcomeUnknownError{Key: "order-1"}
				if _, err := c.SendWithKey(t.Context(), "order-1", payment); err != nil {
					t.Fatal(err)
				}
				if _, err := c.Resume(t.Context(), unknown, payment); err != nil {
					t.Fatal(err)
				}
				var got []string
				requests, _ := f.psp.Requests(psp.RequestFilter{})
				for _, r := range requests {
					got = append(got, r.Method+" "+r.Traceparent)
				}
				want := []string{"POST send_with_key/POST 1", "POST send_with_key/POST 2", "GET resume/lookup/GET 1"}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("the requests' traceparents (-want +got):\n%s", diff)
				}
				if got, want := len(o.calls), 3; got != want { // send_with_key, resume and its lookup
					t.Errorf("the Observer heard %d calls end, want %d", got, want)
				}
				if got, want := len(o.attempts), 3; got != want {
					t.Errorf("the Observer heard %d attempts end, want %d", got, want)
				}
				if got := len(f.log.all()); logged != (got > 0) {
					t.Errorf("the Logger wrote %d records, want some only when the Client has it", got)
				}
			})
		})
	}
}

// TestObserverLearnsThePSPsPort: an attempt's ServerAddress and ServerPort come from BaseURL,
// the port from its scheme when BaseURL names none. Here no request gets through.
func TestObserverLearnsThePSPsPort(t *testing.T) {
	tests := []struct {
		baseURL string
		host    string
		port    int
	}{
		{"http://psp.example", "psp.example", 80},
		{"https://psp.example", "psp.example", 443},
		{"http://psp.example:8080", "psp.example", 8080},
		{"https://[::1]:8443", "::1", 8443},
	}
	for _, tt := range tests {
		o := &observed{}
		c := &pix.Client{BaseURL: tt.baseURL, Policy: retry.Policy{AttemptsMax: 1}, Observer: o,
			HTTPClient: &http.Client{Transport: failing{}}}
		if _, err := c.Send(t.Context(), payment); err == nil {
			t.Fatalf("Send() through a failing transport succeeded")
		}
		a := o.attempts[0]
		if a.ServerAddress != tt.host || a.ServerPort != tt.port || a.Status != 0 {
			t.Errorf("BaseURL %s: the attempt went to %s port %d with status %d, want %s port %d with none",
				tt.baseURL, a.ServerAddress, a.ServerPort, a.Status, tt.host, tt.port)
		}
	}
}

// failing is a transport that sends nothing.
type failing struct{}

func (failing) RoundTrip(*http.Request) (*http.Response, error) { return nil, errors.New("no network") }
