package pix_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// TestOutcomeUnknown proves the promise for Send (a fresh key): an error that is not
// ErrOutcomeUnknown means the PSP holds no settlement for the key. Each row drives the real PSP through a sequence of faults;
// rows that end unknown show why they must (some hold a settlement), rows that do not end
// unknown have the ledger checked.
func TestOutcomeUnknown(t *testing.T) {
	tooMuch := pix.Payment{AmountCents: startBalance + 1, PixKey: "pix@example.com"}
	for _, tc := range []struct {
		name    string
		faults  []psp.Fault
		change  func(*pix.Client)
		payment pix.Payment // the default payment if zero

		wantUnknown     bool
		wantAttempts    int
		wantSettlements int // under the key, once every held answer is done
		wantStatus      int // of the last attempt's *pix.Error; 0: none
	}{
		// The PSP settled and then failed to say so.
		{name: "late, then 400", faults: []psp.Fault{psp.Late(time.Hour), psp.Status(400)},
			wantUnknown: true, wantAttempts: 2, wantSettlements: 1, wantStatus: 400},
		{name: "late, then 401", faults: []psp.Fault{psp.Late(time.Hour), psp.Status(401)},
			wantUnknown: true, wantAttempts: 2, wantSettlements: 1, wantStatus: 401},
		{name: "dropped, budget of 1", faults: []psp.Fault{psp.Drop()}, change: oneAttempt,
			wantUnknown: true, wantAttempts: 1, wantSettlements: 1},
		{name: "slow past the attempt timeout, then in flight until the budget is spent",
			faults:      []psp.Fault{psp.Slow(time.Minute)},
			wantUnknown: true, wantAttempts: 4, wantSettlements: 1, wantStatus: http.StatusConflict},
		// The PSP may have settled, as far as the client can tell.
		{name: "down past the budget", faults: []psp.Fault{psp.Down(time.Hour)},
			wantUnknown: true, wantAttempts: 4},
		{name: "503 until the budget is spent", faults: repeat(psp.Status(503), 4),
			wantUnknown: true, wantAttempts: 4, wantStatus: 503},
		{name: "Retry-After beyond DelayMax", faults: []psp.Fault{{Kind: "status", Status: 503, RetryAfter: 2 * time.Second}},
			wantUnknown: true, wantAttempts: 1, wantStatus: 503},
		{name: "409 on the only attempt", faults: []psp.Fault{psp.Status(409)}, change: oneAttempt,
			wantUnknown: true, wantAttempts: 1, wantStatus: 409},
		{name: "429 on the only attempt", faults: []psp.Fault{psp.Status(429)}, change: oneAttempt,
			wantUnknown: true, wantAttempts: 1, wantStatus: 429},
		{name: "500 on the only attempt", faults: []psp.Fault{psp.Status(500)}, change: oneAttempt,
			wantUnknown: true, wantAttempts: 1, wantStatus: 500},
		{name: "501, permanent", faults: []psp.Fault{psp.Status(501)},
			wantUnknown: true, wantAttempts: 1, wantStatus: 501},
		{name: "503, then 400", faults: []psp.Fault{psp.Status(503), psp.Status(400)},
			wantUnknown: true, wantAttempts: 2, wantStatus: 400},
		{name: "connection reset, budget of 1", faults: []psp.Fault{psp.ResetConn()}, change: oneAttempt,
			wantUnknown: true, wantAttempts: 1},
		// The PSP's answer proves it holds no settlement.
		{name: "400 on the first attempt", faults: []psp.Fault{psp.Status(400)},
			wantAttempts: 1, wantStatus: 400},
		{name: "401 on the first attempt", faults: []psp.Fault{psp.Status(401)},
			wantAttempts: 1, wantStatus: 401},
		{name: "415 on the first attempt", faults: []psp.Fault{psp.Status(415)},
			wantAttempts: 1, wantStatus: 415},
		{name: "499 on the first attempt", faults: []psp.Fault{psp.Status(499)},
			wantAttempts: 1, wantStatus: 499},
		{name: "unknown token", change: func(c *pix.Client) { c.Token = "stolen" },
			wantAttempts: 1, wantStatus: 401},
		{name: "insufficient funds", payment: tooMuch,
			wantAttempts: 1, wantStatus: 422},
		{name: "503, then insufficient funds (a stored refusal)", payment: tooMuch,
			faults:       []psp.Fault{psp.Status(503)},
			wantAttempts: 2, wantStatus: 422},
		{name: "dropped refusal, then its replay", payment: tooMuch, faults: []psp.Fault{psp.Drop()},
			wantAttempts: 2, wantStatus: 422},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, psp.Config{})
				f.psp.Inject(tc.faults...)
				_, err := f.client(tc.change).Send(t.Context(), orDefault(tc.payment))
				time.Sleep(time.Hour) // every held answer is done: the ledger is final

				key := f.rec.keys()[0]
				assertOutcome(t, err, key, tc.wantUnknown, tc.wantAttempts)
				if got := len(f.settlementsFor(key)); got != tc.wantSettlements {
					t.Errorf("PSP holds %d settlements for the key, want %d", got, tc.wantSettlements)
				}
				var perr *pix.Error
				if got := errors.As(err, &perr); got != (tc.wantStatus != 0) || got && perr.Status != tc.wantStatus {
					t.Errorf("Send() error = %v, want the last attempt's status %d reachable", err, tc.wantStatus)
				}
			})
		})
	}
}

// assertOutcome checks the honesty of err: ErrOutcomeUnknown exactly when wantUnknown, with
// the key and the attempt count; otherwise the attempt count from the log.
func assertOutcome(t *testing.T, err error, key string, wantUnknown bool, wantAttempts int) {
	t.Helper()
	if err == nil {
		t.Fatalf("Send() succeeded, want an error")
	}
	if got := errors.Is(err, pix.ErrOutcomeUnknown); got != wantUnknown {
		t.Fatalf("errors.Is(err, ErrOutcomeUnknown) = %t, want %t; err = %v", got, wantUnknown, err)
	}
	var unknown *pix.OutcomeUnknownError
	if errors.As(err, &unknown) && (unknown.Key != key || unknown.Attempts != wantAttempts) {
		t.Errorf("OutcomeUnknownError = {Key %q, Attempts %d}, want {%s, %d}", unknown.Key, unknown.Attempts, key, wantAttempts)
	}
}

func repeat(f psp.Fault, n int) []psp.Fault {
	out := make([]psp.Fault, n)
	for i := range out {
		out[i] = f
	}
	return out
}

func TestOutcomeUnknownErrorReconcilesWithSendWithKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, psp.Config{})
		f.psp.Inject(psp.Drop())
		c := f.client(oneAttempt)

		_, err := c.Send(t.Context(), payment)
		var unknown *pix.OutcomeUnknownError
		if !errors.As(err, &unknown) {
			t.Fatalf("Send() error = %v, want an *OutcomeUnknownError", err)
		}
		r, err := c.SendWithKey(t.Context(), unknown.Key, payment)
		if err != nil {
			t.Fatalf("SendWithKey(%q) error = %v", unknown.Key, err)
		}
		ledger := f.psp.Settlements()
		if !r.Replayed || len(ledger) != 1 || ledger[0].EndToEndID != r.EndToEndID {
			t.Errorf("SendWithKey() = %+v with ledger %+v, want the one settlement, replayed", r, ledger)
		}
	})
}

func TestOutcomeUnknownErrorMessage(t *testing.T) {
	err := &pix.OutcomeUnknownError{Key: "order-1", Attempts: 3, Err: &pix.Error{Status: 503}}
	if got, want := err.Error(), `pix: outcome unknown for key "order-1" after 3 attempt(s): pix: PSP answered 503`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, pix.ErrOutcomeUnknown) || errors.Is(err, pix.ErrContract) {
		t.Errorf("errors.Is: want ErrOutcomeUnknown only")
	}
	if got := errors.Unwrap(err); got != err.Err {
		t.Errorf("Unwrap() = %v, want %v", got, err.Err)
	}
	if !retry.Transient(err) {
		t.Errorf("retry.Transient(%v) = false, want true (the 503 inside)", err)
	}
}

// TestSendWithKeyOutcomeIsUnknownUntilThePSPAnswersForTheKey proves the promise for a key
// with a history: the key already holds this payment's settlement (a first call settled it),
// and a second call that gets no definitive answer for the key must not claim that nothing
// was paid. A property test found the first version of pix saying "400, nothing paid" here.
func TestSendWithKeyOutcomeIsUnknownUntilThePSPAnswersForTheKey(t *testing.T) {
	for _, tc := range []struct {
		name        string
		faults      []psp.Fault
		change      func(*pix.Client)
		ctx         func(context.Context) (context.Context, context.CancelFunc)
		payment     pix.Payment // the default payment if zero
		wantUnknown bool
		wantErr     error // also reachable; nil: none
	}{
		{name: "400 on the first attempt", faults: []psp.Fault{psp.Status(400)}, wantUnknown: true},
		{name: "415 on the first attempt", faults: []psp.Fault{psp.Status(415)}, wantUnknown: true},
		{name: "unknown token", change: func(c *pix.Client) { c.Token = "stolen" }, wantUnknown: true},
		{name: "context ended before the first attempt", ctx: canceled, wantUnknown: true, wantErr: context.Canceled},
		{name: "invalid Client", change: func(c *pix.Client) { c.BaseURL = "pipe" }, wantUnknown: true},
		{name: "another amount: key reused", payment: pix.Payment{AmountCents: 1, PixKey: payment.PixKey},
			wantErr: pix.ErrKeyReused},
		{name: "invalid payment: nothing sent", payment: pix.Payment{AmountCents: -1, PixKey: payment.PixKey},
			wantErr: pix.ErrInvalidPayment},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, psp.Config{})
				if _, err := f.client().SendWithKey(t.Context(), "order-1", payment); err != nil {
					t.Fatalf("first SendWithKey() error = %v", err)
				}
				f.psp.Inject(tc.faults...)
				ctx, cancel := context.WithCancel(t.Context())
				if tc.ctx != nil {
					ctx, cancel = tc.ctx(ctx)
				}
				defer cancel()
				_, err := f.client(tc.change).SendWithKey(ctx, "order-1", orDefault(tc.payment))

				if err == nil {
					t.Fatal("second SendWithKey() succeeded, want an error")
				}
				if got := errors.Is(err, pix.ErrOutcomeUnknown); got != tc.wantUnknown {
					t.Errorf("errors.Is(err, ErrOutcomeUnknown) = %t, want %t; err = %v", got, tc.wantUnknown, err)
				}
				if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
					t.Errorf("second SendWithKey() error = %v, want one wrapping %v", err, tc.wantErr)
				}
				if got := len(f.settlementsFor("order-1")); got != 1 {
					t.Errorf("PSP holds %d settlements for the key, want the first call's 1", got)
				}
			})
		})
	}
}
