package durable

// The worker when the database refuses one of its writes. A SQLite trigger makes the real
// database fail the one UPDATE of pix_intent under test. Each test reads the job's first
// attempt as River reports it, then lifts the failure and checks that nothing was lost.

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// refusal is the message of the failing trigger.
const refusal = "test: the database refuses this write"

// failWrites makes db refuse every UPDATE of pix_intent that matches when, a trigger's
// condition on OLD and NEW. It returns the function that lifts the failure.
func failWrites(tb testing.TB, db *sql.DB, when string) func() {
	tb.Helper()
	q := "CREATE TRIGGER fail_write BEFORE UPDATE ON pix_intent WHEN " + when +
		" BEGIN SELECT RAISE(ABORT, '" + refusal + "'); END"
	if _, err := db.Exec(q); err != nil {
		tb.Fatalf("create trigger: %v", err)
	}
	return func() {
		tb.Helper()
		if _, err := db.Exec("DROP TRIGGER fail_write"); err != nil {
			tb.Fatalf("drop trigger: %v", err)
		}
	}
}

// firstAttempt starts p and returns the event of its first job attempt to end.
func firstAttempt(tb testing.TB, p *Payer[*sql.Tx]) *river.Event {
	tb.Helper()
	events, cancel := p.river.Subscribe(river.EventKindJobCompleted, river.EventKindJobCancelled,
		river.EventKindJobSnoozed, river.EventKindJobFailed)
	defer cancel()
	mustStart(tb, p)
	ctx, done := context.WithTimeout(context.Background(), stallAfter())
	defer done()
	select {
	case ev := <-events:
		return ev
	case <-ctx.Done():
		tb.Fatalf("no job ended an attempt in %v", stallAfter())
		return nil
	}
}

// checkFailedOnRefusal holds ev to a job attempt that failed with the trigger's refusal, so
// that River retries it: neither completed, cancelled nor snoozed. With the tests' waits of
// milliseconds, the job may be available again by the time River reports it, or running again:
// so the tests hold an intent to at least one attempt before the trigger goes, and to at least
// two after.
func checkFailedOnRefusal(tb testing.TB, ev *river.Event) {
	tb.Helper()
	retried := ev.Job.State == rivertype.JobStateRetryable || ev.Job.State == rivertype.JobStateAvailable
	if ev.Kind != river.EventKindJobFailed || !retried {
		tb.Fatalf("first job attempt: event %s, job %s; want %s, job retryable or available", ev.Kind,
			ev.Job.State, river.EventKindJobFailed)
	}
	errs := ev.Job.Errors
	if len(errs) != 1 || !strings.Contains(errs[0].Error, refusal) {
		tb.Errorf("job errors = %+v, want one holding %q", errs, refusal)
	}
}

// mustIntent returns the intent id.
func mustIntent(tb testing.TB, p *Payer[*sql.Tx], id string) Intent {
	tb.Helper()
	in, err := p.Intent(context.Background(), id)
	if err != nil {
		tb.Fatalf("Intent(%q) error = %v", id, err)
	}
	return in
}

// The core promise: an attempt whose record could not be committed is never sent.
func TestWorkSendsNothingWhenItCannotRecordTheAttempt(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, l.config())
	mustPay(t, p, "a", payment(100))
	lift := failWrites(t, db, "NEW.attempts <> OLD.attempts")
	checkFailedOnRefusal(t, firstAttempt(t, p))
	if got := l.settlements(); len(got) != 0 {
		t.Fatalf("the PSP settled %+v, want nothing sent before its attempt was recorded", got)
	}
	if in := mustIntent(t, p, "a"); in.Status != StatusPending || in.Attempts != 0 {
		t.Errorf("intent = %+v, want pending with 0 attempts", in)
	}
	lift()
	all := awaitDone(t, p)
	checkLedger(t, l, all)
	if a := all[0]; a.Status != StatusSettled || a.Attempts != 1 {
		t.Errorf("intent = %+v, want settled at its first recorded attempt", a)
	}
}

func TestWorkRetriesWhenItCannotRecordTheSettlement(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, l.config())
	mustPay(t, p, "a", payment(100))
	lift := failWrites(t, db, "NEW.status = 'settled'")
	checkFailedOnRefusal(t, firstAttempt(t, p))
	if in := mustIntent(t, p, "a"); in.Status != StatusPending || in.Attempts < 1 || in.EndToEndID != "" {
		t.Errorf("intent = %+v, want pending after an attempt, with no receipt", in)
	}
	lift()
	all := awaitDone(t, p)
	checkLedger(t, l, all) // the retry resent the key: still one settlement, now recorded
	if a := all[0]; a.Status != StatusSettled || a.Attempts < 2 {
		t.Errorf("intent = %+v, want settled at a later attempt", a)
	}
}

func TestWorkRetriesWhenItCannotRecordTheRefusal(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, l.config())
	mustPay(t, p, "b", payment(refusedCents))
	lift := failWrites(t, db, "NEW.status = 'refused'")
	checkFailedOnRefusal(t, firstAttempt(t, p))
	if in := mustIntent(t, p, "b"); in.Status != StatusPending || in.Attempts < 1 || in.Error != "" {
		t.Errorf("intent = %+v, want pending after an attempt, with no refusal", in)
	}
	lift()
	all := awaitDone(t, p)
	checkLedger(t, l, all)
	if b := all[0]; b.Status != StatusRefused || b.Attempts < 2 || b.Error == "" {
		t.Errorf("intent = %+v, want refused with its refusal at a later attempt", b)
	}
}

func TestWorkRetriesWhenItCannotRecordAnUnknownOutcome(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	db, _ := mustSQLite(t)
	// The failed job waits half an hour, for the test: a retry's send, with no fault left,
	// would settle the intent before the test reads it.
	cfg := l.config()
	cfg.DelayBase, cfg.DelayMax, cfg.Rand = time.Hour, time.Hour, func() float64 { return 0.5 }
	p := mustPayer(t, db, cfg)
	l.inject(faultDrop, faultDrop) // pix's 2 attempts of the first job attempt
	mustPay(t, p, "a", payment(100))
	lift := failWrites(t, db, "NEW.status = 'pending' AND NEW.last_error <> OLD.last_error")
	ev := firstAttempt(t, p)
	checkFailedOnRefusal(t, ev)
	if in := mustIntent(t, p, "a"); in.Status != StatusPending || in.Attempts != 1 || in.Error != "" {
		t.Errorf("intent = %+v, want pending after one attempt, with no error recorded", in)
	}
	lift()
	retryNow(t, p, ev.Job.ID)
	all := awaitDone(t, p)
	checkLedger(t, l, all)
	if a := all[0]; a.Status != StatusSettled || a.Attempts < 2 {
		t.Errorf("intent = %+v, want settled at a later attempt", a)
	}
}

// An unknown outcome snoozes the job for the schedule's wait after every attempt recorded,
// those of a run that died before its answer included.
func TestWorkSnoozesForTheWaitOfTheAttemptsRecorded(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	db, _ := mustSQLite(t)
	cfg := l.config()
	cfg.DelayBase, cfg.DelayMax, cfg.Rand = time.Hour, 8*time.Hour, func() float64 { return 0.5 }
	p := mustPayer(t, db, cfg)
	l.inject(faultDrop, faultDrop) // pix's 2 attempts of the job attempt
	mustPay(t, p, "a", payment(100))
	if _, err := db.Exec("UPDATE pix_intent SET attempts = 1"); err != nil { // a dead run's attempt
		t.Fatal(err)
	}
	before := time.Now()
	ev := firstAttempt(t, p)
	if ev.Kind != river.EventKindJobSnoozed {
		t.Fatalf("first job attempt: event %s, want %s", ev.Kind, river.EventKindJobSnoozed)
	}
	want := time.Hour // half the ceiling after 2 attempts: 2 h
	if got := ev.Job.ScheduledAt.Sub(before); got < want || got > want+time.Minute {
		t.Errorf("snoozed for %v, want %v", got, want)
	}
	if in := mustIntent(t, p, "a"); in.Status != StatusPending || in.Attempts != 2 || in.Error == "" {
		t.Errorf("intent = %+v, want pending after 2 attempts, with the error", in)
	}
}
