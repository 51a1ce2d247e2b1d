package durable

// What an operator reads of the worker: its log records, and the crash points it passes, in
// the order they happen.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/riverqueue/river"

	"pixretry/pix"
)

// workTape records, in order, the crash points a Payer passes and the records it logs, each
// as one line. A log line reads "LEVEL message key=value ...". Records whose message does not
// start with "durable: " are River's: only its errors are kept, as "ERROR message", since a
// worker's panic is one.
type workTape struct {
	mu    sync.Mutex
	lines []string
}

func (w *workTape) add(line string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines = append(w.lines, line)
}

// read returns the lines so far.
func (w *workTape) read() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.lines)
}

// tapeHandler is the slog.Handler that writes a workTape.
type tapeHandler struct {
	tape  *workTape
	attrs []slog.Attr // from WithAttrs
}

func (h tapeHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h tapeHandler) Handle(_ context.Context, r slog.Record) error {
	if !strings.HasPrefix(r.Message, "durable: ") {
		if r.Level >= slog.LevelError {
			h.tape.add(r.Level.String() + " " + r.Message)
		}
		return nil
	}
	var b strings.Builder
	b.WriteString(r.Level.String() + " " + r.Message)
	attrs := slices.Clip(h.attrs) // shared with other records: never appended to in place
	r.Attrs(func(a slog.Attr) bool {
		attrs = append(attrs, a)
		return true
	})
	for _, a := range attrs {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
	}
	h.tape.add(b.String())
	return nil
}

func (h tapeHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return tapeHandler{h.tape, append(slices.Clip(h.attrs), attrs...)}
}

func (h tapeHandler) WithGroup(string) slog.Handler { return h } // the Payer's records use no group

// mustWorkTape gives cfg a Logger that writes a new tape, and a CrashPoint that writes every
// crash point there. At crash point recorded, it also writes the state of the only job in db.
func mustWorkTape(tb testing.TB, db *sql.DB, cfg *Config) *workTape {
	tape := &workTape{}
	cfg.Logger = slog.New(tapeHandler{tape: tape})
	cfg.Testing.CrashPoint = func(point string) {
		if point != "recorded" {
			tape.add(point)
			return
		}
		var state string
		if err := db.QueryRow("SELECT state FROM river_job").Scan(&state); err != nil {
			tb.Errorf("read the job's state at crash point recorded: %v", err)
		}
		tape.add("recorded, job " + state)
	}
	return tape
}

// Each job attempt passes the crash points in order, and logs its outcome once it is
// recorded, with the intent's id, key and attempts. Every outcome is recorded before River
// ends its job: at crash point recorded the job is still running. River then completes a
// settled intent's job, cancels a refused one's and snoozes one whose outcome is unknown.
func TestWorkLogsEachOutcomeOnceRecorded(t *testing.T) {
	started := "INFO durable: started jobs_taken_over=0"
	attempt := []string{started, "before-attempt", "marked", "answered"}
	tests := []struct {
		name   string
		cents  int64
		faults []fault
		want   func(in Intent) []string // the tape, from the intent stored after the attempt
		kind   river.EventKind
		tried  int // River's attempt count after it: a snooze gives the attempt back
	}{
		{"settled", 100, nil, func(in Intent) []string {
			return append(attempt, fmt.Sprintf("INFO durable: settled id=a key=%s resumptions=1 endToEndId=%s",
				in.Key, in.EndToEndID), "recorded, job running")
		}, river.EventKindJobCompleted, 1},
		{"refused", refusedCents, nil, func(in Intent) []string {
			return append(attempt, fmt.Sprintf("WARN durable: refused id=a key=%s resumptions=1 error=%s",
				in.Key, in.Error), "recorded, job running")
		}, river.EventKindJobCancelled, 1},
		{"outcome unknown", 100, []fault{faultDrop, faultDrop}, func(in Intent) []string {
			return append(attempt, fmt.Sprintf("WARN durable: outcome unknown id=a key=%s resumptions=1 error=%s "+
				"quota_empty=false wait=30m0s", in.Key, in.Error), "recorded, job running")
		}, river.EventKindJobSnoozed, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := mustPSP(t)
			db, _ := mustSQLite(t)
			cfg := ttlConfig(l) // waits of half an hour: the first attempt is the only one
			tape := mustWorkTape(t, db, &cfg)
			p := mustPayer(t, db, cfg)
			l.inject(tt.faults...)
			mustPay(t, p, "a", payment(tt.cents))
			ev := firstAttempt(t, p)
			in := mustIntent(t, p, "a")
			if in.Error == "" && tt.kind != river.EventKindJobCompleted {
				t.Errorf("intent = %+v, want its error stored", in)
			}
			if diff := cmp.Diff(tt.want(in), tape.read()); diff != "" {
				t.Errorf("tape mismatch (-want +got):\n%s", diff)
			}
			if ev.Kind != tt.kind || ev.Job.Attempt != tt.tried || tt.kind == river.EventKindJobCompleted && len(ev.Job.Errors) != 0 {
				t.Errorf("first job attempt: event %s, attempt %d, errors %+v; want %s, attempt %d", ev.Kind,
					ev.Job.Attempt, ev.Job.Errors, tt.kind, tt.tried)
			}
		})
	}
}

// Each new key is logged with the one it replaces and the lookup's answer, then passes crash
// point rotated. The past keys are kept in order.
func TestRotateLogsEachNewKey(t *testing.T) {
	db, _ := mustSQLite(t)
	cfg := Config{}
	tape := mustWorkTape(t, db, &cfg)
	p := mustPayer(t, db, cfg)
	ctx := context.Background()
	in := mustPay(t, p, "a", payment(100))
	keys := []string{in.Key}
	var want []string
	for _, why := range []string{"test: the first lookup", "test: the second lookup"} {
		key, err := p.rotate(ctx, in, errors.New(why))
		if err != nil || key == "" {
			t.Fatalf("rotate() = %q, %v; want a new key", key, err)
		}
		want = append(want, fmt.Sprintf("WARN durable: new key id=a key=%s past_key=%s error=%s", key, in.Key, why), "rotated")
		keys = append(keys, key)
		in = mustIntent(t, p, "a")
	}
	if diff := cmp.Diff(want, tape.read()); diff != "" {
		t.Errorf("tape mismatch (-want +got):\n%s", diff)
	}
	if !slices.Equal(in.Keys, keys) {
		t.Errorf("intent keys = %q, want %q", in.Keys, keys)
	}
}

// keyRotationRecorder is a pix.Observer that also records the keys given up, as
// pix/pixotel's does. Only KeyRotated is called here: no payment is sent.
type keyRotationRecorder struct {
	pix.Observer
	rotated [][2]string
}

func (r *keyRotationRecorder) KeyRotated(_ context.Context, from, to string) {
	r.rotated = append(r.rotated, [2]string{from, to})
}

// The Client's Observer learns of each new key with the one it replaces; a rotation that
// finds the intent moved on tells it nothing.
func TestRotateTellsTheClientsObserver(t *testing.T) {
	db, _ := mustSQLite(t)
	cfg := mustPSP(t).config()
	rec := &keyRotationRecorder{}
	client := *cfg.Client
	client.Observer = rec
	cfg.Client = &client
	p := mustPayer(t, db, cfg)
	ctx := context.Background()
	in := mustPay(t, p, "a", payment(100))
	key, err := p.rotate(ctx, in, errors.New("test: a lookup"))
	if err != nil || key == "" {
		t.Fatalf("rotate() = %q, %v; want a new key", key, err)
	}
	if again, err := p.rotate(ctx, in, errors.New("test: a stale lookup")); err != nil || again != "" {
		t.Fatalf("rotate() of a key already given up = %q, %v; want \"\", nil", again, err)
	}
	if diff := cmp.Diff([][2]string{{in.Key, key}}, rec.rotated); diff != "" {
		t.Errorf("KeyRotated calls mismatch (-want +got):\n%s", diff)
	}
}
