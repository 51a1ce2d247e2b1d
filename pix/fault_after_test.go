package pix_test

import (
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/pix"
	"pixretry/psp"
)

// A PSP that fails after it commits, or answers outside its contract, must be reported
// honestly: the error is ErrOutcomeUnknown whenever the PSP may hold a settlement (with
// ErrContract when the answer broke the contract), and reconciling under the key gets the one
// stored settlement back.
func TestAnswersThatBreakTheContract(t *testing.T) {
	for _, tc := range []struct {
		name         string
		fault        psp.Fault
		settles      bool  // the PSP commits behind the answer
		contract     bool  // the error wraps ErrContract
		wrapped      error // the error also wraps this one; nil: none
		attemptsSend int   // attempts Send makes under the test policy
	}{
		{name: "502 after the commit", fault: psp.CommitStatus(502), settles: true, attemptsSend: 2},
		{name: "504 with Retry-After after the commit", fault: psp.Fault{Kind: "commit_status", Status: 504, RetryAfter: time.Second}, settles: true, attemptsSend: 2},
		{name: "500 after the commit", fault: psp.CommitStatus(500), settles: true, attemptsSend: 2},
		{name: "501 after the commit", fault: psp.CommitStatus(501), settles: true, attemptsSend: 1},
		{name: "200 instead of 201", fault: psp.CommitStatus(200), settles: true, contract: true, attemptsSend: 1},
		{name: "202 instead of 201", fault: psp.CommitStatus(202), settles: true, contract: true, attemptsSend: 1},
		{name: "201 not JSON", fault: psp.BadBody("not_json"), settles: true, contract: true, attemptsSend: 1},
		{name: "201 another amount", fault: psp.BadBody("valor"), settles: true, contract: true, attemptsSend: 1},
		{name: "201 another Pix key", fault: psp.BadBody("chave"), settles: true, contract: true, attemptsSend: 1},
		{name: "201 endToEndId malformed", fault: psp.BadBody("end_to_end_id"), settles: true, contract: true, attemptsSend: 1},
		{name: "201 without endToEndId", fault: psp.Fault{Kind: "bad_body", Breach: "missing", Member: "endToEndId"}, settles: true, contract: true, attemptsSend: 1},
		{name: "201 without valor", fault: psp.Fault{Kind: "bad_body", Breach: "missing", Member: "valor"}, settles: true, contract: true, attemptsSend: 1},
		{name: "201 without chave", fault: psp.Fault{Kind: "bad_body", Breach: "missing", Member: "chave"}, settles: true, contract: true, attemptsSend: 1},
		{name: "201 without status", fault: psp.Fault{Kind: "bad_body", Breach: "missing", Member: "status"}, settles: true, contract: true, attemptsSend: 1},
		{name: "201 without horario", fault: psp.Fault{Kind: "bad_body", Breach: "missing", Member: "horario"}, settles: true, contract: true, attemptsSend: 1},
		{name: "201 shorter than its Content-Length", fault: psp.BadBody("short"), settles: true, wrapped: io.ErrUnexpectedEOF, attemptsSend: 2},
		{name: "201 cut mid-body", fault: psp.BadBody("cut"), settles: true, wrapped: io.ErrUnexpectedEOF, attemptsSend: 2},
		{name: "307 before any processing", fault: psp.Redirect(307), contract: true, attemptsSend: 1},
		{name: "301 before any processing", fault: psp.Redirect(301), contract: true, attemptsSend: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, psp.Config{})
				f.psp.Inject(tc.fault)
				_, err := f.client(oneAttempt).SendWithKey(t.Context(), "k1", payment)

				if !errors.Is(err, pix.ErrOutcomeUnknown) || errors.Is(err, pix.ErrContract) != tc.contract {
					t.Fatalf("SendWithKey() error = %v, want ErrOutcomeUnknown, ErrContract %t", err, tc.contract)
				}
				if tc.wrapped != nil && !errors.Is(err, tc.wrapped) {
					t.Errorf("SendWithKey() error = %v, want it to wrap %v", err, tc.wrapped)
				}
				if got, want := len(f.settlementsFor("k1")), map[bool]int{true: 1}[tc.settles]; got != want {
					t.Fatalf("%d settlements behind the answer, want %d", got, want)
				}
				r, err := f.client().SendWithKey(t.Context(), "k1", payment)
				ledger := f.settlementsFor("k1")
				if err != nil || len(ledger) != 1 || r.EndToEndID != ledger[0].EndToEndID || r.Replayed != tc.settles {
					t.Errorf("reconciling = %+v, %v with ledger %+v; want its one settlement, replayed %t", r, err, ledger, tc.settles)
				}
			})
		})
	}
}

// Under a budget, Send retries what may be retried and gets the stored settlement back; a
// contract breach ends the call at once.
func TestSendThroughAnswersThatBreakTheContract(t *testing.T) {
	for _, tc := range []struct {
		fault    psp.Fault
		attempts int // 0: the call fails
	}{
		{psp.CommitStatus(503), 2},
		{psp.BadBody("short"), 2},
		{psp.BadBody("cut"), 2},
		{psp.CommitStatus(505), 0},
		{psp.CommitStatus(200), 0},
		{psp.BadBody("valor"), 0},
		{psp.Redirect(308), 0},
	} {
		t.Run(string(tc.fault.Kind)+string(tc.fault.Breach), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, psp.Config{})
				f.psp.Inject(tc.fault)
				r, err := f.client().Send(t.Context(), payment)
				if tc.attempts == 0 {
					assertOutcome(t, err, f.rec.keys()[0], true, 1)
					return
				}
				if err != nil || !r.Replayed || r.Attempts != tc.attempts || len(f.psp.Settlements()) != 1 {
					t.Errorf("Send() = %+v, %v with %d settlements; want the settlement replayed on attempt %d",
						r, err, len(f.psp.Settlements()), tc.attempts)
				}
			})
		})
	}
}

// A problem code names a refusal only on a 4xx: on any other status it is not the PSP's word
// on the payment.
func TestProblemCodeCountsOnlyOn4xx(t *testing.T) {
	for _, status := range []int{200, 399, 500, 503} {
		err := &pix.Error{Status: status, Code: "insufficient_funds"}
		if errors.Is(err, pix.ErrInsufficientFunds) {
			t.Errorf("errors.Is(Error{Status: %d, Code: insufficient_funds}, ErrInsufficientFunds) = true, want false", status)
		}
	}
	for _, status := range []int{400, 422, 499} {
		err := &pix.Error{Status: status, Code: "insufficient_funds"}
		if !errors.Is(err, pix.ErrInsufficientFunds) {
			t.Errorf("errors.Is(Error{Status: %d, Code: insufficient_funds}, ErrInsufficientFunds) = false, want true", status)
		}
	}
}

// A status the contract never gives (a 2xx other than 201, a 3xx) is a contract breach.
func TestStatusOutsideTheContractIsErrContract(t *testing.T) {
	for status, want := range map[int]bool{200: true, 202: true, 302: true, 399: true, 400: false, 409: false, 503: false} {
		if got := errors.Is(&pix.Error{Status: status}, pix.ErrContract); got != want {
			t.Errorf("errors.Is(Error{Status: %d}, ErrContract) = %t, want %t", status, got, want)
		}
	}
}

// A 200 over the stored refusal carries the refusal's problem: it is not the PSP's refusal.
func TestCommitStatus200OverARefusalIsNotARefusal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, psp.Config{BalanceCents: 100})
		f.psp.Inject(psp.CommitStatus(200))
		_, err := f.client().SendWithKey(t.Context(), "k1", payment)
		if !errors.Is(err, pix.ErrOutcomeUnknown) || errors.Is(err, pix.ErrInsufficientFunds) {
			t.Errorf("SendWithKey() error = %v, want ErrOutcomeUnknown and not ErrInsufficientFunds", err)
		}
	})
}
