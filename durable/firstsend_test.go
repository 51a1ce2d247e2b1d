package durable

// A key's first attempt sends it as a key that never left: the PSP's refusal of the payment
// as invalid refuses the intent. Once the key may have left, the same refusal stays unknown.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"pixretry/pix"
)

// unknownAfter is pix's unknown outcome of a call under key that ended with answer after one
// attempt.
func unknownAfter(key, answer string) string {
	return fmt.Sprintf("pix: outcome unknown for key %q after 1 attempt(s): %s", key, answer)
}

// refusedFirst unwraps the PSP's refusal of a payment as invalid, after one attempt only, and
// leaves every other error as pix gave it.
func TestRefusedFirst(t *testing.T) {
	unknown := func(attempts int, err error) *pix.OutcomeUnknownError {
		return &pix.OutcomeUnknownError{Key: "k", Attempts: attempts, Err: err}
	}
	invalid := &pix.Error{Status: 400, Code: "invalid_request"}
	consent := &pix.Error{Status: 422, Code: "CONSENTIMENTO_INVALIDO", Means: pix.ErrInvalidPayment}
	tests := []struct {
		name   string
		err    error
		inside bool // refusedFirst returns the refusal inside err, else err
	}{
		{"one attempt refused as invalid", unknown(1, invalid), true},
		{"one attempt refused as invalid in a dialect's codes", unknown(1, consent), true},
		{"a refusal as invalid after a failed attempt", unknown(2, invalid), false},
		{"no attempt", unknown(0, invalid), false},
		{"one attempt answered 401", unknown(1, &pix.Error{Status: 401, Code: "unauthorized"}), false},
		{"one attempt answered 404", unknown(1, &pix.Error{Status: 404}), false},
		{"one attempt answered 422 insufficient funds", unknown(1, &pix.Error{Status: 422, Code: "insufficient_funds"}), false},
		{"one attempt answered 503", unknown(1, &pix.Error{Status: 503, Code: "invalid_request"}), false},
		{"invalid, with no answer of the PSP", unknown(1, fmt.Errorf("test: %w", pix.ErrInvalidPayment)), false},
		{"a refusal that pix made definitive", invalid, false},
		{"a settlement", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.err
			if tt.inside {
				want = tt.err.(*pix.OutcomeUnknownError).Err
			}
			if got := refusedFirst(tt.err); got != want {
				t.Errorf("refusedFirst(%v) = %v, want %v", tt.err, got, want)
			}
		})
	}
}

// mark tells a key's first attempt from every later one, on both engines, whatever the
// marks that commit together: the one that took the key's attempts from 0 to 1. A new key's
// first attempt is one again.
func TestMarkTellsAKeysFirstAttempt(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	checkFirstMark(t, mustPayer(t, db, Config{}))
}

func TestPostgresMarkTellsAKeysFirstAttempt(t *testing.T) {
	t.Parallel()
	checkFirstMark[pgx.Tx](t, mustPostgresPayer(t, mustPostgresURL(t), Config{}))
}

func checkFirstMark[TTx any](t *testing.T, p *Payer[TTx]) {
	ctx := context.Background()
	mustPay(t, p, "a", payment(100))
	const workers = 8 // as many workers as run the job at once, their marks in one group commit or more
	var wg sync.WaitGroup
	first := make(chan Intent, workers)
	for range workers {
		wg.Go(func() {
			in, _, err := p.mark(ctx, "a")
			if err != nil {
				t.Errorf("mark() error = %v", err)
			}
			if neverSent(in) {
				first <- in
			}
		})
	}
	wg.Wait()
	close(first)
	if got := len(first); got != 1 {
		t.Fatalf("%d of %d marks made at once found the key never sent, want 1", got, workers)
	}
	if in := <-first; in.Attempts != 1 || in.FirstSent.IsZero() {
		t.Errorf("the first mark returned %+v, want 1 attempt and the time the key first left", in)
	}
	marked, _, err := p.mark(ctx, "a")
	if err != nil || neverSent(marked) || marked.Attempts != workers+1 {
		t.Fatalf("mark() after %d = %+v, %v; want %d attempts, the key sent before", workers, marked, err, workers+1)
	}
	key, err := p.rotate(ctx, marked, errors.New("test: a lookup found nothing"))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false} {
		in, _, err := p.mark(ctx, "a")
		if err != nil || in.Key != key || neverSent(in) != want {
			t.Errorf("mark() %d under the new key = %+v, %v; want key %s, never sent before: %v", i+1, in, err, key, want)
		}
	}
}

// A key's first attempt is sent as one that never left: the PSP's refusal of the payment as
// invalid is definitive. The next attempt resumes the key, which may have left: the same
// refusal leaves the outcome unknown.
func TestSendTellsAKeysFirstAttempt(t *testing.T) {
	t.Parallel()
	_, cfg := mustEfiPSP(t, efiWrongPayer)
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, cfg)
	mustPay(t, p, "a", payment(100))
	ctx := context.Background()
	for _, tt := range []struct {
		unknown bool
		want    verdict
	}{{false, refuse}, {true, snooze}} {
		in, firstSent, err := p.mark(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.send(ctx, in, firstSent)
		want := chaveInvalida
		if tt.unknown {
			want = unknownAfter(in.Key, chaveInvalida)
		}
		if err == nil || err.Error() != want || !errors.Is(err, pix.ErrInvalidPayment) ||
			errors.Is(err, pix.ErrOutcomeUnknown) != tt.unknown || judge(err) != tt.want {
			t.Errorf("attempt %d: send() error = %v, judged %d; want %q, judged %d", in.Attempts, err, judge(err), want, tt.want)
		}
	}
}

// Efí refuses a payout from a key that is not the payer's: the intent is refused at its first
// attempt, with the refusal.
func TestWrongPayerKeyIsRefusedAtTheFirstAttempt(t *testing.T) {
	t.Parallel()
	l, cfg := mustEfiPSP(t, efiWrongPayer)
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, cfg)
	mustPay(t, p, "a", payment(100))
	ev := firstAttempt(t, p)
	got := mustIntent(t, p, "a")
	if ev.Kind != river.EventKindJobCancelled || got.Status != StatusRefused || got.Attempts != 1 || got.Error != chaveInvalida {
		t.Errorf("first job attempt: event %s, intent %+v; want %s, refused at attempt 1 with %q", ev.Kind, got,
			river.EventKindJobCancelled, chaveInvalida)
	}
	if s := l.settlements(); len(s) != 0 {
		t.Errorf("ledger = %+v, want nothing paid", s)
	}
}

// A payments v4 intent whose consent another payment consumed before its key left is refused
// at its first attempt with the PSP's CONSENTIMENTO_INVALIDO.
func TestSpentConsentIsRefusedAtTheFirstAttempt(t *testing.T) {
	t.Parallel()
	l, cfg := mustOpenFinancePSP(t)
	paid := mustConsent(t, cfg, payment(100))
	if _, err := cfg.Client.Send(context.Background(), paid); err != nil {
		t.Fatalf("Send() of the consent's payment: %v", err)
	}
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, cfg)
	in := mustPay(t, p, "b", paid)
	ev := firstAttempt(t, p)
	got, want := mustIntent(t, p, "b"), consentConsumed(paid.ConsentID)
	if ev.Kind != river.EventKindJobCancelled || got.Status != StatusRefused || got.Attempts != 1 || got.Error != want {
		t.Errorf("first job attempt: event %s, intent %+v; want %s, refused at attempt 1 with %q", ev.Kind, got,
			river.EventKindJobCancelled, want)
	}
	checkUnpaid(t, l, in.Key)
}

// The answers to a key's first attempt were lost, so the key may have left; another payment
// then consumed the consent. The PSP's CONSENTIMENTO_INVALIDO to the next attempt may be the
// work of the first, so the outcome stays unknown and the intent waits.
func TestRefusalAfterAnUnansweredFirstAttemptStaysUnknown(t *testing.T) {
	t.Parallel()
	l, cfg := mustOpenFinancePSP(t)
	cfg.DelayBase, cfg.DelayMax, cfg.Rand = time.Hour, time.Hour, func() float64 { return 0.5 }
	pay := mustConsent(t, cfg, payment(100))
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, cfg)
	l.inject(fault503, fault503) // pix's 2 attempts of the first job attempt
	in := mustPay(t, p, "b", pay)
	ev := firstAttempt(t, p)
	if got := mustIntent(t, p, "b"); ev.Kind != river.EventKindJobSnoozed || got.Status != StatusPending {
		t.Fatalf("first job attempt: event %s, intent %+v; want %s, pending", ev.Kind, got, river.EventKindJobSnoozed)
	}
	if _, err := cfg.Client.Send(context.Background(), pay); err != nil {
		t.Fatalf("Send() of another payment under the consent: %v", err)
	}
	ev = nextAttempt(t, p, ev.Job.ID)
	got, want := mustIntent(t, p, "b"), unknownAfter(in.Key, consentConsumed(pay.ConsentID))
	if ev.Kind != river.EventKindJobSnoozed || got.Status != StatusPending || got.Attempts != 2 || got.Error != want {
		t.Errorf("second job attempt: event %s, intent %+v; want %s, pending after 2 attempts with %q", ev.Kind, got,
			river.EventKindJobSnoozed, want)
	}
	checkUnpaid(t, l, in.Key)
}

// Another worker marks the intent while the PSP refuses its key's first attempt: that
// worker's attempt may have paid before the refusal, so the refusal is not recorded. The
// job attempt resumes the key, and the intent waits.
func TestFirstAttemptsRefusalYieldsToALaterMark(t *testing.T) {
	t.Parallel()
	_, cfg := mustEfiPSP(t, efiWrongPayer)
	cfg.DelayBase, cfg.DelayMax, cfg.Rand = time.Hour, time.Hour, func() float64 { return 0.5 }
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, cfg)
	in := mustPay(t, p, "a", payment(100))
	var once sync.Once
	onCrashPoint(p, func(point string) {
		if point == "answered" {
			once.Do(func() {
				if _, _, err := p.mark(context.Background(), "a"); err != nil {
					t.Errorf("the other worker's mark() error = %v", err)
				}
			})
		}
	})
	ev := firstAttempt(t, p)
	got, want := mustIntent(t, p, "a"), unknownAfter(in.Key, chaveInvalida)
	if ev.Kind != river.EventKindJobSnoozed || got.Status != StatusPending || got.Attempts != 3 || got.Error != want {
		t.Errorf("first job attempt: event %s, intent %+v; want %s, pending after 3 attempts with %q", ev.Kind, got,
			river.EventKindJobSnoozed, want)
	}
}

// checkUnpaid holds the ledger to holding no settlement under key.
func checkUnpaid(tb testing.TB, l ledger, key string) {
	tb.Helper()
	for _, s := range l.settlements() {
		if s.Key == key {
			tb.Errorf("the PSP settled %+v under key %s, want nothing paid under it", s, key)
		}
	}
}

// nextAttempt makes the job id available at once and returns the event of the next job
// attempt to end.
func nextAttempt(tb testing.TB, p *Payer[*sql.Tx], id int64) *river.Event {
	tb.Helper()
	events, cancel := p.river.Subscribe(river.EventKindJobCompleted, river.EventKindJobCancelled,
		river.EventKindJobSnoozed, river.EventKindJobFailed)
	defer cancel()
	retryNow(tb, p, id)
	select {
	case ev := <-events:
		return ev
	case <-time.After(stallAfter()):
		tb.Fatalf("no job ended an attempt in %v", stallAfter())
		return nil
	}
}
