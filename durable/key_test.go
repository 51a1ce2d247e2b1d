package durable

import (
	"context"
	"database/sql"
	"errors"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"pixretry/pix/efi"
)

// shortTTL is the key TTL of the PSPs of these tests: short, since they wait for a PSP's real
// clock when they must prove that it forgot a key.
const shortTTL = time.Second

// ttlConfig is testConfig for a PSP that remembers keys for shortTTL. A job attempt whose
// outcome is unknown waits half an hour, so that the test moves the job on itself (retryNow).
func ttlConfig(l ledger) Config {
	cfg := l.config()
	cfg.KeyTTL = shortTTL
	cfg.DelayBase, cfg.DelayMax, cfg.Rand = time.Hour, time.Hour, func() float64 { return 0.5 }
	return cfg
}

// retryNow makes the job id available at once, though it waits for a later attempt.
func retryNow[TTx any](tb testing.TB, p *Payer[TTx], id int64) {
	tb.Helper()
	if _, err := p.river.JobRetry(context.Background(), id); err != nil {
		tb.Fatalf("JobRetry() error = %v", err)
	}
}

// afterTTL waits until a PSP that remembers a key for ttl has forgotten every key it completed
// before since. Its clock is real, so the wait is real.
func afterTTL(since time.Time, ttl time.Duration) {
	<-time.After(time.Until(since.Add(ttl + 10*time.Millisecond)))
}

// ageFirstSent moves the first_sent of every intent that has one back by d, as if its key had
// left d earlier.
func ageFirstSent(tb testing.TB, db *sql.DB, d time.Duration) {
	tb.Helper()
	if _, err := db.Exec("UPDATE pix_intent SET first_sent = first_sent - $1 WHERE first_sent > 0", d.Microseconds()); err != nil {
		tb.Fatal(err)
	}
}

// onCrashPoint has p call f at every crash point. Set it before p starts.
func onCrashPoint[TTx any](p *Payer[TTx], f func(point string)) {
	p.cfg.Testing.CrashPoint = f
}

// The PSP settled, both answers were lost, and the next job attempt comes after the PSP forgot
// the key: sending the key again would pay again, so it is looked up and settled with the
// PSP's receipt.
func TestWorkLooksUpAKeyPastItsTTL(t *testing.T) {
	t.Parallel()
	l := mustPSPTTL(t, shortTTL)
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, ttlConfig(l))
	l.inject(faultDrop, faultDrop)
	in := mustPay(t, p, "a", payment(100))
	ev := firstAttempt(t, p)
	if ev.Kind != river.EventKindJobSnoozed {
		t.Fatalf("first job attempt: event %s, want %s", ev.Kind, river.EventKindJobSnoozed)
	}
	afterTTL(time.Now(), shortTTL)
	retryNow(t, p, ev.Job.ID)
	all := awaitDone(t, p)
	checkLedger(t, l, all)
	if got := all[0]; got.Status != StatusSettled || !slices.Equal(got.Keys, []string{in.Key}) || got.Attempts != 2 {
		t.Errorf("intent = %+v, want settled under its one key after 2 job attempts", got)
	}
	if n := l.lookups(); n != 1 {
		t.Errorf("the PSP answered %d lookups, want 1", n)
	}
}

// Three 503s before any processing: nothing was paid. Past the key's TTL, the lookup proves it
// and closes the key, and the payment is made once, under a new key, in the same job attempt.
func TestWorkPaysUnderANewKeyWhatALookupFoundUnpaid(t *testing.T) {
	t.Parallel()
	l := mustPSPTTL(t, shortTTL)
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, ttlConfig(l))
	l.inject(fault503, fault503, fault503) // the job attempt's two, then the new key's first
	in := mustPay(t, p, "a", payment(100))
	ev := firstAttempt(t, p)
	if ev.Kind != river.EventKindJobSnoozed {
		t.Fatalf("first job attempt: event %s, want %s", ev.Kind, river.EventKindJobSnoozed)
	}
	ageFirstSent(t, db, shortTTL) // the PSP has nothing to forget: no need to wait for it
	retryNow(t, p, ev.Job.ID)
	all := awaitDone(t, p)
	checkLedger(t, l, all)
	got := all[0]
	if got.Status != StatusSettled || len(got.Keys) != 2 || got.Keys[0] != in.Key || got.Key != got.Keys[1] ||
		got.Attempts != 1 {
		t.Errorf("intent = %+v, want settled at the first attempt under a second key, after %s", got, in.Key)
	}
	if s := l.settlements(); len(s) != 1 || s[0].Key != got.Key {
		t.Errorf("ledger = %+v, want one settlement, under the new key %s", s, got.Key)
	}
}

// mark takes the time since the key first left from the database's clock, and keeps the
// first_sent of a key that already left.
func TestMarkTranslatesFirstSentToThisClock(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	checkMark(t, mustPayer(t, db, Config{}))
}

func checkMark[TTx any](t *testing.T, p *Payer[TTx]) {
	ctx := context.Background()
	in := mustPay(t, p, "a", payment(100))
	for n, age := range []time.Duration{0, time.Hour} {
		if _, err := p.db.ExecPool(ctx, "UPDATE pix_intent SET first_sent = first_sent - $1", age.Microseconds()); err != nil {
			t.Fatal(err)
		}
		stored, _ := p.Intent(ctx, "a")
		marked, firstSent, err := p.mark(ctx, "a")
		if err != nil {
			t.Fatalf("mark() error = %v", err)
		}
		if d := time.Since(firstSent) - age; d < 0 || d > time.Second {
			t.Errorf("mark() after a first attempt %v ago = %v, %v ago", age, firstSent, time.Since(firstSent))
		}
		got, _ := p.Intent(ctx, "a")
		if got.Attempts != n+1 || marked.Attempts != n+1 || !got.FirstSent.Equal(marked.FirstSent) ||
			n > 0 && !got.FirstSent.Equal(stored.FirstSent) || marked.Key != in.Key || marked.Payment != in.Payment {
			t.Errorf("intent after mark() = %+v, returned %+v; want %d attempts under %s, first_sent kept once set",
				got, marked, n+1, in.Key)
		}
	}
}

// Two workers that found the same key closed, a rescued job and a live one, rotate it at once:
// one wins, and the intent has one new key.
func TestRotateIsACompareAndSet(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	checkRotateRace(t, mustPayer(t, db, Config{}))
}

func checkRotateRace[TTx any](t *testing.T, p *Payer[TTx]) {
	ctx := context.Background()
	mustPay(t, p, "a", payment(100))
	in, _, err := p.mark(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	why := errors.New("test: the lookup found nothing under the key")
	var wg sync.WaitGroup
	keys, errs := make([]string, 2), make([]error, 2)
	for i := range 2 {
		wg.Go(func() { keys[i], errs[i] = p.rotate(ctx, in, why) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("rotate() error = %v", err)
	}
	won := slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return k == "" })
	got, err := p.Intent(ctx, "a")
	if err != nil || len(won) != 1 || !slices.Equal(got.Keys, []string{in.Key, won[0]}) {
		t.Fatalf("rotate() twice at once made keys %q; intent %+v, %v; want one new key after %s", keys, got, err, in.Key)
	}
	if got.Attempts != 0 || !got.FirstSent.IsZero() || got.Error != why.Error() {
		t.Errorf("intent = %+v, want no attempt under its new key, and the lookup's error", got)
	}
	// The loser's next mark takes the new key: the first attempt under it.
	if again, _, err := p.mark(ctx, "a"); err != nil || again.Key != won[0] || again.Attempts != 1 {
		t.Errorf("mark() after the rotation = %+v, %v; want the first attempt under %s", again, err, won[0])
	}
}

// Another worker rotates the key between this worker's read and its mark: the mark finds it,
// and the worker reads the intent again and pays under the new key only.
func TestWorkReadsAgainAKeyRotatedBeforeItsMark(t *testing.T) {
	l := mustPSP(t)
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, l.config())
	in := mustPay(t, p, "a", payment(100))
	var once sync.Once
	onCrashPoint(p, func(point string) {
		if point == "before-attempt" {
			once.Do(func() { mustRotate(t, p, in) })
		}
	})
	mustStart(t, p)
	all := awaitDone(t, p)
	checkLedger(t, l, all)
	if got := all[0]; got.Status != StatusSettled || len(got.Keys) != 2 || got.Attempts != 1 {
		t.Errorf("intent = %+v, want settled at its first attempt under its second key", got)
	}
	if s := l.settlements(); len(s) != 1 || s[0].Key == in.Key {
		t.Errorf("ledger = %+v, want one settlement, not under the rotated key %s", s, in.Key)
	}
}

// A refusal that comes back under a key that another worker has just replaced is not the
// intent's: it is not recorded, and the intent is tried under its new key.
func TestWorkRecordsNoRefusalUnderAKeyRotatedMeanwhile(t *testing.T) {
	l := mustPSP(t)
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, l.config())
	in := mustPay(t, p, "b", payment(refusedCents))
	var once sync.Once
	onCrashPoint(p, func(point string) {
		if point == "answered" {
			once.Do(func() { mustRotate(t, p, in) })
		}
	})
	mustStart(t, p)
	all := awaitDone(t, p)
	if got := all[0]; got.Status != StatusRefused || len(got.Keys) != 2 || got.Attempts != 1 {
		t.Errorf("intent = %+v, want refused at its first attempt under its second key", got)
	}
}

// After a rotation, the new key is tried once in the same job attempt. If its lookup also
// finds nothing, the job waits rather than rotate again.
func TestWorkRotatesOncePerJobAttempt(t *testing.T) {
	l := mustPSPTTL(t, shortTTL)
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, ttlConfig(l))
	mustPay(t, p, "a", payment(100))
	longAgo := time.Now().Add(-time.Hour).UnixMicro()
	aged := func() { // a dead run's attempt under the current key, long ago, that never reached the PSP
		if _, err := db.Exec("UPDATE pix_intent SET attempts = 1, first_sent = $1", longAgo); err != nil {
			t.Error(err)
		}
	}
	aged()
	var passes atomic.Int32
	onCrashPoint(p, func(point string) {
		if point == "before-attempt" && passes.Add(1) == 2 {
			aged()
		}
	})
	ev := firstAttempt(t, p)
	got := mustIntent(t, p, "a")
	if ev.Kind != river.EventKindJobSnoozed || got.Status != StatusPending || len(got.Keys) != 2 {
		t.Errorf("first job attempt: event %s, intent %+v; want snoozed, pending with 2 keys", ev.Kind, got)
	}
	if s := l.settlements(); len(s) != 0 || l.lookups() != 2 {
		t.Errorf("ledger = %+v after %d lookups, want nothing paid after 2", s, l.lookups())
	}
}

// mustRotate rotates the key of in, as another worker whose lookup found nothing would.
func mustRotate[TTx any](tb testing.TB, p *Payer[TTx], in Intent) {
	if key, err := p.rotate(context.Background(), in, errors.New("test: another worker's lookup")); key == "" || err != nil {
		tb.Errorf("rotate() = %q, %v; want a new key", key, err)
	}
}

// A Payer makes its keys in its Client's Dialect: Efí's idEnvio takes no hyphens, so an
// intent's key is a UUID's 32 hex digits, which Efí carries. A Payer without a Client makes
// UUIDs.
func TestKeysTakeTheDialectsForm(t *testing.T) {
	db, _ := mustSQLite(t)
	cfg := testConfig("http://psp.test")
	cfg.Client.Dialect = efi.Dialect{PayerKey: "pagador@example.com"}
	in := mustPay(t, mustPayer(t, db, cfg), "efi-1", payment(100))
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(in.Key) {
		t.Errorf("Pay() key = %q with an Efí Client, want 32 hex digits", in.Key)
	}
	db, _ = mustSQLite(t)
	in = mustPay(t, mustPayer(t, db, Config{}), "none-1", payment(100))
	if _, err := uuid.Parse(in.Key); err != nil || len(in.Key) != 36 {
		t.Errorf("Pay() key = %q without a Client, want a UUID", in.Key)
	}
}
