package durable

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"pixretry/pix"
)

// An intent keeps its payment's consent: Pay returns it, Intent and Intents read it, and so
// does another Payer on the same database, as after a restart.
func TestIntentKeepsItsConsentThroughListAndRestart(t *testing.T) {
	t.Parallel()
	db, path := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	want := []Intent{mustPay(t, p, "a", consented("a", 100)), mustPay(t, p, "b", payment(200))}
	if got := want[0].Payment.ConsentID; got != "urn:consent:a" {
		t.Errorf("Pay() returned consent %q, want urn:consent:a", got)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	again := mustPayer(t, mustOpenSQLite(t, path), Config{})
	got, err := collect(again.Intents(context.Background()))
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("Intents() after a restart: error %v, mismatch (-want +got):\n%s", err, diff)
	}
	if in, err := again.Intent(context.Background(), "a"); err != nil || in.Payment != want[0].Payment {
		t.Errorf("Intent(a) after a restart = %+v, %v; want payment %+v", in, err, want[0].Payment)
	}
}

// A reused id with another consent, or without the consent stored, is another payment: refused
// as another valor is, storing nothing. The same consent returns the stored intent.
func TestPayTxRefusesAReusedIDWithAnotherConsent(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	stored := mustPay(t, p, "a", consented("a", 100))
	mustPay(t, p, "b", payment(100))
	for _, tt := range []struct {
		id      string
		payment pix.Payment
		want    string
	}{
		{"a", consented("other", 100), `durable: id already stored with another payment: "a" holds R$ 1.00 to the Pix key ` +
			`pix@example.com, described "rent", under consent "urn:consent:a"`},
		{"a", payment(100), `durable: id already stored with another payment: "a" holds R$ 1.00 to the Pix key ` +
			`pix@example.com, described "rent", under consent "urn:consent:a"`},
		{"b", consented("b", 100), `durable: id already stored with another payment: "b" holds R$ 1.00 to the Pix key ` +
			`pix@example.com, described "rent"`},
	} {
		_, err := p.Pay(context.Background(), tt.id, tt.payment)
		if !errors.Is(err, ErrIDReused) || err.Error() != tt.want {
			t.Errorf("Pay(%q, consent %q) error = %v, want %s", tt.id, tt.payment.ConsentID, err, tt.want)
		}
	}
	if in, err := p.Pay(context.Background(), "a", consented("a", 100)); err != nil || in.Key != stored.Key {
		t.Errorf("Pay(a) again with its consent = %+v, %v; want the stored intent, key %s", in, err, stored.Key)
	}
}

// A payment the PSP holds pending across a restart, with its key past the deadline: the
// restarted Payer looks it up by the PSP's id stored with the intent, and by its consent, and
// sends no payment again. Without them, refDialect has no lookup, and the intent never ends.
func TestPendingPaymentIsLookedUpByItsStoredRefAfterARestart(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	db, path := mustSQLite(t)
	cfg := refConfig(l)
	cfg.DelayBase, cfg.DelayMax = time.Hour, time.Hour // the first Payer tries once only
	first := mustPayer(t, db, cfg)
	l.inject(faultPending)
	mustPay(t, first, "a", consented("a", 100))
	ev := firstAttempt(t, first)
	if err := first.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	pending := mustIntent(t, first, "a")
	if ev.Kind != river.EventKindJobSnoozed || pending.PaymentID == "" || pending.Status != StatusPending {
		t.Fatalf("first job attempt: event %s, intent %+v; want snoozed, pending with the PSP's id", ev.Kind, pending)
	}
	ageFirstSent(t, db, 24*time.Hour)

	restarted := mustPayer(t, mustOpenSQLite(t, path), refConfig(l))
	mustStart(t, restarted)
	retryNow(t, restarted, ev.Job.ID)
	all := awaitDoneWithin(t, restarted, stallAfter(), stallAfter()) // it ends 100 ms after its first attempt
	checkLedger(t, l, all)
	got := all[0]
	if got.Status != StatusSettled || got.EndToEndID != pending.PaymentID || got.PaymentID != pending.PaymentID ||
		got.Payment != pending.Payment || got.Key != pending.Key {
		t.Errorf("intent = %+v, want settled as payment %s under key %s, its payment kept", got, pending.PaymentID, pending.Key)
	}
	if n := l.payments(); n != 1 {
		t.Errorf("the PSP answered %d payment requests, want 1: after the restart, lookups only", n)
	}
	if l.lookups() == 0 {
		t.Errorf("the PSP answered no lookup")
	}
}

// A payment id learned once stays through a later attempt that learned none, unknown or
// settled, even one that read the intent before the id was stored; a new key drops it, since
// it was the old key's payment's.
func TestPaymentIDOutlivesCallsThatDidNotLearnIt(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	checkPaymentIDKept(t, mustPayer(t, db, Config{}))
}

func TestPostgresPaymentIDOutlivesCallsThatDidNotLearnIt(t *testing.T) {
	t.Parallel()
	checkPaymentIDKept[pgx.Tx](t, mustPostgresPayer(t, mustPostgresURL(t), Config{}))
}

func checkPaymentIDKept[TTx any](t *testing.T, p *Payer[TTx]) {
	ctx := context.Background()
	w := &worker[TTx]{payer: p}
	stored := func(id string) Intent {
		t.Helper()
		in, err := p.Intent(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	mustPay(t, p, "a", consented("a", 100))
	read, _, err := p.mark(ctx, "a") // before any id is stored
	if err != nil || read.Payment != consented("a", 100) {
		t.Fatalf("mark() = %+v, %v; want the payment under its consent", read, err)
	}
	for _, step := range []struct {
		learned string // what the attempt learned
		want    string // the id stored after it
	}{{"", ""}, {"p1", "p1"}, {"", "p1"}, {"p2", "p2"}} {
		unknown := &pix.OutcomeUnknownError{Key: read.Key, Ref: pix.Ref{PaymentID: step.learned}, Err: errors.New("test: lost")}
		if err := w.outcome(ctx, read, pix.Receipt{}, unknown); !errors.As(err, new(*river.JobSnoozeError)) {
			t.Fatalf("outcome(payment id %q) = %v, want a snooze", step.learned, err)
		}
		if got := stored("a").PaymentID; got != step.want {
			t.Errorf("after an unknown outcome with payment id %q: PaymentID = %q, want %q", step.learned, got, step.want)
		}
	}
	if key, err := p.rotate(ctx, read, errors.New("test: nothing paid")); key == "" || err != nil {
		t.Fatalf("rotate() = %q, %v", key, err)
	}
	if got := stored("a").PaymentID; got != "" {
		t.Errorf("PaymentID under a new key = %q, want none", got)
	}
	// A receipt stores the id it gives, and keeps the stored one if it gives none.
	mustPay(t, p, "b", consented("b", 200))
	b, _, err := p.mark(ctx, "b")
	if err != nil || p.record(ctx, b, "payment_id = $4", "p2") != nil {
		t.Fatalf("storing payment id p2 for b: %v", err)
	}
	for id, learned := range map[string]string{"a": "p3", "b": ""} {
		r := pix.Receipt{EndToEndID: "E1", SettledAt: time.Now(), Ref: pix.Ref{PaymentID: learned}}
		if err := p.settle(ctx, id, r); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"a": "p3", "b": "p2"}[id]
		if got := stored(id); got.PaymentID != want || got.Status != StatusSettled {
			t.Errorf("intent %s settled by a receipt with payment id %q = %+v, want settled with payment id %s", id,
				learned, got, want)
		}
	}
}

// A child process learns the PSP's id of a pending payment and is killed once it recorded it.
// With the key past its deadline, the next child resumes the unknown outcome by a lookup with
// the id and the consent stored, and settles the intent without sending the payment again.
func TestCrashResumesAnUnknownOutcomeByItsStoredRef(t *testing.T) {
	t.Parallel()
	l := mustLoopbackPSP(t, crashTTL)
	db := filepath.Join(t.TempDir(), "crash.db")
	l.inject(faultPending)
	if !startChild(t, "sqlite:"+db, l.url, crashTTL, "a=500", "recorded:1", dialectEnv+"=ref").killOrWait(t) {
		t.Fatal("child at recorded:1: exited without reaching the point")
	}
	killed := reopen(t, db)
	if len(killed) != 1 || killed[0].Status != StatusPending || killed[0].PaymentID == "" ||
		killed[0].Payment != consented("a", 500) {
		t.Fatalf("intents after the kill = %+v, want a, pending with the PSP's id and its consent", killed)
	}
	ageKeys.pass(t, db)
	// The payment ended 100 ms after its first attempt: a child that cannot look it up fails soon.
	bound := waitEnv + "=" + stallAfter().String()
	if startChild(t, "sqlite:"+db, l.url, crashTTL, "a=500", "", dialectEnv+"=ref", bound).killOrWait(t) {
		t.Fatal("the last child reached a crash point, and has none")
	}
	all := reopen(t, db)
	checkLedger(t, l, all)
	if got := all[0]; got.Status != StatusSettled || got.EndToEndID != killed[0].PaymentID || got.Key != killed[0].Key {
		t.Errorf("intent = %+v, want settled as payment %s under key %s", got, killed[0].PaymentID, killed[0].Key)
	}
	if n := l.payments(); n != 1 {
		t.Errorf("the PSP answered %d payment requests, want 1: after the kill, lookups only", n)
	}
}
