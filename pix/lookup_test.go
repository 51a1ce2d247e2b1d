package pix_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// TestLookupFindsTheSettlement: the receipt of a lookup is the settlement's, as the 201 gave
// it, marked replayed, with the lookup's attempts. It holds however long ago the PSP forgot
// the key.
func TestLookupFindsTheSettlement(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, psp.Config{KeyTTL: time.Minute})
		c := f.client()
		paid, err := c.SendWithKey(t.Context(), "order-1", payment)
		if err != nil {
			t.Fatalf("SendWithKey() error = %v", err)
		}
		time.Sleep(time.Hour) // the PSP forgot the key long ago

		got, err := c.Lookup(t.Context(), "order-1")

		if err != nil {
			t.Fatalf("Lookup() error = %v", err)
		}
		want := paid
		want.Replayed = true
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Lookup() receipt mismatch (-want +got):\n%s", diff)
		}
		if got := f.psp.Stats(); got.Lookups != 1 || got.Settled != 1 {
			t.Errorf("PSP Stats() = %+v, want 1 lookup and the 1 settlement", got)
		}
	})
}

// TestLookupAnswers: every answer to a lookup, from the real PSP. Only a receipt is a receipt,
// and only 404 payment_not_found proves that nothing was paid. Every other answer leaves the
// outcome unknown, after retries where it is transient (409, 5xx, timeouts, broken
// connections) and at once where it is not.
func TestLookupAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    psp.Config
		paid   bool // order-1, the key looked up, was paid first
		others int  // payments then settled under other keys
		faults []psp.Fault
		change func(*pix.Client)
		// inFlight: a payment under the key is still being processed (slow) during the lookup.
		inFlight bool

		wantFound     bool
		wantNone      bool // ErrNoSettlement
		wantAttempts  int
		wantStatus    int   // of the *pix.Error reachable; 0: none
		wantErr       error // also reachable, if not nil
		wantTook      time.Duration
		wantTransient bool // the last attempt's verdict
	}{
		{name: "200: the receipt", paid: true, wantFound: true, wantAttempts: 1},
		{name: "404 payment_not_found: no settlement", wantNone: true, wantAttempts: 1, wantStatus: 404},
		{name: "404 not_found: another path", change: func(c *pix.Client) { c.BaseURL += "/elsewhere" },
			wantAttempts: 1, wantStatus: 404},
		{name: "401: unknown token", paid: true, change: func(c *pix.Client) { c.Token = "stolen" },
			wantAttempts: 1, wantStatus: 401},
		{name: "400", faults: []psp.Fault{psp.Status(400).ForLookup()}, wantAttempts: 1, wantStatus: 400},
		{name: "410 outcome_unprovable: the ledger dropped a settlement", cfg: psp.Config{MaxSettlements: 1},
			others: 2, wantAttempts: 1, wantStatus: 410},
		{name: "302: no redirect is followed", paid: true, faults: []psp.Fault{psp.Redirect(302).ForLookup()},
			wantAttempts: 1, wantStatus: 302, wantErr: pix.ErrContract},
		{name: "200 not JSON", paid: true, faults: []psp.Fault{psp.BadBody("not_json").ForLookup()},
			wantAttempts: 1, wantErr: pix.ErrContract},
		{name: "200 without endToEndId", paid: true,
			faults:       []psp.Fault{psp.Fault{Kind: "bad_body", Breach: "missing", Member: "endToEndId"}.ForLookup()},
			wantAttempts: 1, wantErr: pix.ErrContract},
		{name: "200 cut short: retried, then the receipt", paid: true,
			faults:    []psp.Fault{psp.BadBody("cut").ForLookup()},
			wantFound: true, wantAttempts: 2, wantTook: 50 * time.Millisecond},
		{name: "409 while the payment is in flight, until the budget is spent", inFlight: true,
			wantAttempts: 4, wantStatus: 409, wantTook: 350 * time.Millisecond, wantTransient: true},
		{name: "503, then the receipt", paid: true, faults: []psp.Fault{psp.Status(503).ForLookup()},
			wantFound: true, wantAttempts: 2, wantTook: 50 * time.Millisecond},
		{name: "503 until the budget is spent", paid: true, faults: repeat(psp.Status(503).ForLookup(), 4),
			wantAttempts: 4, wantStatus: 503, wantTook: 350 * time.Millisecond, wantTransient: true},
		{name: "connection reset, then the receipt", paid: true, faults: []psp.Fault{psp.ResetConn().ForLookup()},
			wantFound: true, wantAttempts: 2, wantTook: 50 * time.Millisecond},
		{name: "down past the budget", paid: true, faults: []psp.Fault{psp.Down(time.Hour).ForLookup()},
			wantAttempts: 4, wantTook: 350 * time.Millisecond, wantTransient: true},
		{name: "late beyond AttemptTimeout", paid: true, faults: repeat(psp.Late(time.Hour).ForLookup(), 4),
			wantAttempts: 4, wantErr: context.DeadlineExceeded, wantTook: 4350 * time.Millisecond, wantTransient: true},
		{name: "no AttemptTimeout", paid: true, change: func(c *pix.Client) { c.AttemptTimeout = 0 },
			faults: []psp.Fault{psp.Late(time.Minute).ForLookup()}, wantFound: true, wantAttempts: 1, wantTook: time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, tc.cfg)
				paid := payLedger(t, f, tc.paid, tc.others)
				if tc.inFlight {
					payInFlight(t, f)
				}
				f.psp.Inject(tc.faults...)
				start := time.Now()

				r, err := f.client(tc.change).Lookup(t.Context(), "order-1")

				if got := time.Since(start); got != tc.wantTook {
					t.Errorf("Lookup() returned after %v, want %v", got, tc.wantTook)
				}
				if tc.wantFound {
					want := paid
					want.Replayed, want.Attempts = true, tc.wantAttempts
					if err != nil || !cmp.Equal(want, r) {
						t.Fatalf("Lookup() = %+v, %v; want %+v", r, err, want)
					}
					return
				}
				assertLookupError(t, err, tc.wantNone, tc.wantAttempts)
				var perr *pix.Error
				if got := errors.As(err, &perr); got != (tc.wantStatus != 0) || got && perr.Status != tc.wantStatus {
					t.Errorf("Lookup() error = %v, want the last attempt's status %d reachable", err, tc.wantStatus)
				}
				if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
					t.Errorf("Lookup() error = %v, want one wrapping %v", err, tc.wantErr)
				}
				if got := lastAttempt(f.log.all(), "pix lookup attempt").Attrs["transient"]; got != tc.wantTransient {
					t.Errorf("last attempt logged transient = %v, want %t; err = %v", got, tc.wantTransient, err)
				}
			})
		})
	}
}

// payLedger settles payment under order-1 if paid, then others payments under keys of their
// own, each of its own amount, and returns the first one's receipt (zero if not paid).
func payLedger(t *testing.T, f *fixture, paid bool, others int) pix.Receipt {
	t.Helper()
	var r pix.Receipt
	var err error
	if paid {
		if r, err = f.client().SendWithKey(t.Context(), "order-1", payment); err != nil {
			t.Fatalf("SendWithKey() error = %v", err)
		}
	}
	for i := range others {
		if _, err := f.client().Send(t.Context(), pix.Payment{AmountCents: 100 + int64(i), PixKey: payment.PixKey}); err != nil {
			t.Fatalf("Send() error = %v", err)
		}
	}
	return r
}

// payInFlight starts a payment under order-1 that the PSP holds in flight for an hour, and
// returns once the PSP has it.
func payInFlight(t *testing.T, f *fixture) {
	t.Helper()
	f.psp.Inject(psp.Slow(time.Hour))
	go f.client(oneAttempt).SendWithKey(context.WithoutCancel(t.Context()), "order-1", payment)
	synctest.Wait()
}

// lastAttempt is the last record of log with message msg.
func lastAttempt(log []record, msg string) record {
	var last record
	for _, r := range log {
		if r.Message == msg {
			last = r
		}
	}
	return last
}

// assertLookupError checks the error of a lookup that found nothing: ErrNoSettlement alone
// when wantNone, else an *OutcomeUnknownError for order-1 after attempts, with no FirstSent.
func assertLookupError(t *testing.T, err error, wantNone bool, attempts int) {
	t.Helper()
	if got := errors.Is(err, pix.ErrNoSettlement); got != wantNone {
		t.Errorf("errors.Is(err, ErrNoSettlement) = %t, want %t; err = %v", got, wantNone, err)
	}
	var unknown *pix.OutcomeUnknownError
	if got := errors.As(err, &unknown); got == wantNone {
		t.Fatalf("Lookup() error = %v, want an *OutcomeUnknownError: %t", err, !wantNone)
	}
	if unknown != nil && (unknown.Key != "order-1" || unknown.Attempts != attempts || !unknown.FirstSent.IsZero()) {
		t.Errorf("OutcomeUnknownError = %+v, want key order-1, %d attempts, no FirstSent", unknown, attempts)
	}
}

// TestLookupNotFoundClosesTheKey: after a lookup's 404, a payment under the key pays nothing,
// and the key stays closed for the next lookup.
func TestLookupNotFoundClosesTheKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, psp.Config{})
		c := f.client()
		if _, err := c.Lookup(t.Context(), "order-1"); !errors.Is(err, pix.ErrNoSettlement) {
			t.Fatalf("Lookup() error = %v, want ErrNoSettlement", err)
		}

		_, err := c.SendWithKey(t.Context(), "order-1", payment)

		var perr *pix.Error
		if !errors.As(err, &perr) || perr.Status != 422 || perr.Code != "idempotency_key_closed" {
			t.Errorf("SendWithKey() error = %v, want 422 idempotency_key_closed", err)
		}
		if got := f.psp.Settlements(); len(got) != 0 {
			t.Errorf("PSP settled %+v, want nothing", got)
		}
		if _, err := c.Lookup(t.Context(), "order-1"); !errors.Is(err, pix.ErrNoSettlement) {
			t.Errorf("second Lookup() error = %v, want ErrNoSettlement", err)
		}
	})
}

func TestLookupOfAnInvalidKeySendsNothing(t *testing.T) {
	for _, tc := range invalidKeys {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, psp.Config{})
			_, err := f.client().Lookup(t.Context(), tc.key)
			if !errors.Is(err, pix.ErrInvalidPayment) || errors.Is(err, pix.ErrOutcomeUnknown) {
				t.Errorf("Lookup() error = %v, want ErrInvalidPayment and not ErrOutcomeUnknown", err)
			}
			if got := f.psp.Stats().Lookups; got != 0 {
				t.Errorf("PSP got %d lookups, want none", got)
			}
		})
	}
}

// TestLookupWithAnInvalidClientSendsNothing: the error names the field, and the key's outcome
// stays unknown, since it may hold a settlement.
func TestLookupWithAnInvalidClientSendsNothing(t *testing.T) {
	for _, tc := range []struct {
		name    string
		breakIt func(*pix.Client)
	}{
		{"BaseURL without scheme", func(c *pix.Client) { c.BaseURL = "pipe" }},
		{"AttemptsMax 0", func(c *pix.Client) { c.Policy.AttemptsMax = 0 }},
		{"AttemptTimeout negative", func(c *pix.Client) { c.AttemptTimeout = -time.Nanosecond }},
		{"KeyTTL negative", func(c *pix.Client) { c.KeyTTL = -time.Nanosecond }},
		{"AttemptTimeout at KeyTTL less a tenth", func(c *pix.Client) {
			c.KeyTTL, c.AttemptTimeout = 10*time.Second, 9*time.Second
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, psp.Config{})
			_, err := f.client(tc.breakIt).Lookup(t.Context(), "order-1")
			if !strings.Contains(err.Error(), "pix: invalid Client: ") || errors.Is(err, pix.ErrInvalidPayment) {
				t.Errorf("Lookup() error = %v, want the invalid Client's", err)
			}
			assertLookupError(t, err, false, 0)
			if got := f.psp.Stats().Lookups; got != 0 {
				t.Errorf("PSP got %d lookups, want none", got)
			}
		})
	}
}

// TestLookupCarriesEveryValidKey: the key goes percent-encoded in the query and comes back
// whole, whatever visible ASCII characters it holds.
func TestLookupCarriesEveryValidKey(t *testing.T) {
	for _, tc := range []struct{ name, key string }{
		{"1 character", "!"},
		{"255 characters", strings.Repeat("~", 255)},
		{"every visible ASCII character", visibleASCII()},
		{"query syntax", "a=b&idempotency_key=c#d+e%41"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, psp.Config{})
			c := f.client()
			paid, err := c.SendWithKey(t.Context(), tc.key, payment)
			if err != nil {
				t.Fatalf("SendWithKey() error = %v", err)
			}
			r, err := c.Lookup(t.Context(), tc.key)
			if err != nil || r.EndToEndID != paid.EndToEndID || r.IdempotencyKey != tc.key {
				t.Errorf("Lookup() = %+v, %v; want the settlement %s under the key", r, err, paid.EndToEndID)
			}
		})
	}
}

// TestLookupIsNeverResentByNetHTTP: net/http resends a GET by itself when a pooled connection
// fails before the answer. pix keeps it from doing so, so that every lookup on the wire is an
// attempt: it retries the lookup itself, and counts and logs both attempts.
func TestLookupIsNeverResentByNetHTTP(t *testing.T) {
	f := newFixture(t, psp.Config{})
	var armed atomic.Bool
	c := f.client(func(c *pix.Client) {
		c.HTTPClient = breakingClient(t, f.srv, &armed, false)
		c.Policy = retry.Policy{AttemptsMax: 4} // zero waits: no clock involved
	})
	if _, err := c.SendWithKey(t.Context(), "order-1", payment); err != nil { // a pooled connection
		t.Fatalf("SendWithKey() error = %v", err)
	}
	armed.Store(true)

	r, err := c.Lookup(t.Context(), "order-1")

	if err != nil || r.Attempts != 2 {
		t.Fatalf("Lookup() = %+v, %v; want the receipt on attempt 2", r, err)
	}
	if got := messages(f.log.all(), "pix lookup attempt"); got != 2 {
		t.Errorf("%d lookup attempts logged, want 2", got)
	}
}

// TestLookupIsAGETWithoutABody: what the PSP's contract asks of a lookup, and nothing a payment
// carries.
func TestLookupIsAGETWithoutABody(t *testing.T) {
	reqs := make(chan *http.Request, 1)
	srv := serveLookup(t, func(w http.ResponseWriter, r *http.Request) {
		reqs <- r
		writeFound(w, encoded(validSettled()))
	})
	if _, err := clientOf(srv).Lookup(t.Context(), "1"); err != nil {
		t.Fatalf("Lookup() error = %v", err)
	}
	r := <-reqs
	got := map[string]any{"method": r.Method, "uri": r.RequestURI, "authorization": r.Header.Get("Authorization"),
		"length": r.ContentLength, "chunked": r.TransferEncoding, "key": r.Header.Get("Idempotency-Key"),
		"content-type": r.Header.Get("Content-Type")}
	want := map[string]any{"method": "GET", "uri": "/v1/pix/payments?idempotency_key=1", "authorization": "Bearer " + token,
		"length": int64(0), "chunked": []string(nil), "key": "", "content-type": ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lookup request mismatch (-want +got):\n%s", diff)
	}
}
