package durable

// How each job attempt ends, as River reports it: completed, cancelled, snoozed, or failed
// with the error of the write it could not make, and retried on the Payer's schedule.

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"pixretry/pix"
)

// checkRetryWait holds a failed job attempt, ended after before, to the schedule's wait after
// a first attempt under ttlConfig: half of an hour.
func checkRetryWait(tb testing.TB, ev *river.Event, before time.Time) {
	tb.Helper()
	want := 30 * time.Minute
	if got := ev.Job.ScheduledAt.Sub(before); got < want || got > want+time.Minute {
		tb.Errorf("failed job attempt retried after %v, want %v", got, want)
	}
}

// A job whose intent is already settled or refused, as by a run that died before its job
// ended, ends at once as its intent stands, and sends nothing. A job whose intent is gone
// fails with ErrNotFound, and River retries it on the Payer's schedule.
func TestWorkEndsTheJobOfAnIntentAlreadyAnswered(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change string // the SQL that answers the intent before its job runs
		kind   river.EventKind
		err    string // what the job's error holds; "" for none
	}{
		{"settled", "UPDATE pix_intent SET status = 'settled'", river.EventKindJobCompleted, ""},
		{"refused", "UPDATE pix_intent SET status = 'refused', last_error = 'test: refused by an earlier run'",
			river.EventKindJobCancelled, "test: refused by an earlier run"},
		{"gone", "DELETE FROM pix_intent", river.EventKindJobFailed, ErrNotFound.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := mustPSP(t)
			db, _ := mustSQLite(t)
			cfg := ttlConfig(l)
			cfg.JobTimeout = time.Second // a worker that loops instead fails fast
			p := mustPayer(t, db, cfg)
			mustPay(t, p, "a", payment(100))
			if _, err := db.Exec(tt.change); err != nil {
				t.Fatal(err)
			}
			before := time.Now()
			ev := firstAttempt(t, p)
			errs := ev.Job.Errors
			switch {
			case ev.Kind != tt.kind:
				t.Errorf("first job attempt: event %s, errors %+v; want %s", ev.Kind, errs, tt.kind)
			case tt.err == "" && len(errs) != 0:
				t.Errorf("job errors = %+v, want none", errs)
			case tt.err != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error, tt.err)):
				t.Errorf("job errors = %+v, want one holding %q", errs, tt.err)
			}
			if tt.kind == river.EventKindJobFailed {
				checkRetryWait(t, ev, before)
			}
			if s := l.settlements(); len(s) != 0 {
				t.Errorf("the PSP settled %+v, want nothing sent", s)
			}
			if in, err := p.Intent(context.Background(), "a"); err == nil && in.Attempts != 0 {
				t.Errorf("intent = %+v, want no attempt recorded", in)
			}
		})
	}
}

// Another worker rotates the key under this one, before its mark or before it records the
// PSP's answer: this worker reads the intent again and answers it under the new key in the
// same job attempt, which ends as the intent does. The job records no error.
func TestWorkFollowsAKeyRotatedMeanwhileInOneJobAttempt(t *testing.T) {
	tests := []struct {
		name  string
		cents int64
		point string // the crash point where the other worker rotates the key
		kind  river.EventKind
	}{
		{"settled, rotated before the mark", 100, "before-attempt", river.EventKindJobCompleted},
		{"refused, rotated before the record", refusedCents, "answered", river.EventKindJobCancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := mustPSP(t)
			db, _ := mustSQLite(t)
			p := mustPayer(t, db, ttlConfig(l))
			in := mustPay(t, p, "a", payment(tt.cents))
			var once sync.Once
			onCrashPoint(p, func(point string) {
				if point == tt.point {
					once.Do(func() { mustRotate(t, p, in) })
				}
			})
			ev := firstAttempt(t, p)
			if ev.Kind != tt.kind || ev.Job.Attempt != 1 || tt.kind == river.EventKindJobCompleted && len(ev.Job.Errors) != 0 {
				t.Errorf("first job attempt: event %s, attempt %d, errors %+v; want %s at attempt 1", ev.Kind,
					ev.Job.Attempt, ev.Job.Errors, tt.kind)
			}
			if got := mustIntent(t, p, "a"); len(got.Keys) != 2 || got.Attempts != 1 {
				t.Errorf("intent = %+v, want answered at its first attempt under its second key", got)
			}
		})
	}
}

// A job attempt whose write the database refuses fails with an error that names the intent
// and the write, and River retries it after the Payer's wait.
func TestWorkFailsTheJobWithTheWriteItCouldNotMake(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		cents int64
		aged  bool   // the key left long ago and never reached the PSP: it is looked up
		when  string // the writes the database refuses, as for failWrites
		want  string // how the job's error starts
	}{
		{"the settlement", 100, false, "NEW.status = 'settled'", `durable: record the settlement of intent "a": `},
		{"the refusal", refusedCents, false, "NEW.status = 'refused'", `durable: record intent "a": `},
		{"a new key", 100, true, "NEW.idempotency_key <> OLD.idempotency_key", `durable: give intent "a" a new key: `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := mustPSPTTL(t, shortTTL)
			db, _ := mustSQLite(t)
			p := mustPayer(t, db, ttlConfig(l))
			mustPay(t, p, "a", payment(tt.cents))
			if tt.aged {
				longAgo := time.Now().Add(-time.Hour).UnixMicro()
				if _, err := db.Exec("UPDATE pix_intent SET attempts = 1, first_sent = $1", longAgo); err != nil {
					t.Fatal(err)
				}
			}
			failWrites(t, db, tt.when)
			before := time.Now()
			ev := firstAttempt(t, p)
			checkFailedOnRefusal(t, ev)
			if errs := ev.Job.Errors; len(errs) != 1 || !strings.HasPrefix(errs[0].Error, tt.want) {
				t.Errorf("job errors = %+v, want one starting %q", errs, tt.want)
			}
			checkRetryWait(t, ev, before)
		})
	}
}

// mark, rotate and settle begin with the database: on an ended context they fail with its
// error and change nothing.
func TestWritesOfAnAttemptFailOnAnEndedContext(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	in := mustPay(t, p, "a", payment(100))
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	receipt := pix.Receipt{EndToEndID: "E00000000202601010000test0000001", SettledAt: time.Now()}
	writes := map[string]func() error{
		"mark":   func() error { _, _, err := p.mark(ended, "a"); return err },
		"rotate": func() error { _, err := p.rotate(ended, in, errors.New("test: a lookup")); return err },
		"settle": func() error { return p.settle(ended, "a", receipt) },
	}
	for name, write := range writes {
		if err := write(); !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "durable: ") {
			t.Errorf("%s(an ended context) error = %v, want a durable error wrapping context.Canceled", name, err)
		}
	}
	if got := mustIntent(t, p, "a"); got.Status != StatusPending || got.Attempts != 0 || got.Key != in.Key {
		t.Errorf("intent = %+v, want pending, untouched under key %s", got, in.Key)
	}
}

// A settlement that the database refuses is rolled back before settle returns: the database's
// one connection is free for the next read at once, though the job's context is still alive.
func TestSettleRollsBackWhatItCouldNotRecord(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	mustPay(t, p, "a", payment(100))
	failWrites(t, db, "NEW.status = 'settled'")
	alive, cancel := context.WithCancel(context.Background())
	defer cancel() // database/sql rolls back a transaction left open once its context ends
	receipt := pix.Receipt{EndToEndID: "E00000000202601010000test0000001", SettledAt: time.Now()}
	if err := p.settle(alive, "a", receipt); err == nil || !strings.Contains(err.Error(), refusal) {
		t.Fatalf("settle() error = %v, want the database's refusal", err)
	}
	if n := db.Stats().InUse; n != 0 {
		t.Fatalf("%d connections in use after a refused settlement, want 0", n)
	}
	read, done := context.WithTimeout(context.Background(), stallAfter())
	defer done()
	if in, err := p.Intent(read, "a"); err != nil || in.Status != StatusPending || in.EndToEndID != "" {
		t.Errorf("Intent() after a refused settlement = %+v, %v; want pending, with no receipt", in, err)
	}
}
