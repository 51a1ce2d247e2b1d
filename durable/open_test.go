package durable

// How durablesqlite.Open, New on SQLite and Start open a database, and what they refuse.

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"pixretry/durable/durablesqlite"

	"go.uber.org/goleak"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// durablesqlite.Open sets the file up as its doc says: WAL, synchronous=FULL, a busy timeout of 10 s,
// and one connection.
func TestSQLiteOpenConfiguresTheFile(t *testing.T) {
	t.Parallel()
	db, path := mustEmptySQLite(t)
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the database file: %v, want it at %s", err, path)
	}
	for _, tt := range []struct{ pragma, want string }{
		{"journal_mode", "wal"},
		{"synchronous", "2"}, // FULL
		{"busy_timeout", "10000"},
	} {
		var got string
		if err := db.QueryRow("PRAGMA " + tt.pragma).Scan(&got); err != nil || got != tt.want {
			t.Errorf("PRAGMA %s = %q (error %v), want %q", tt.pragma, got, err, tt.want)
		}
	}
	if got := db.Stats().MaxOpenConnections; got != 1 {
		t.Errorf("MaxOpenConnections = %d, want 1", got)
	}
}

// The path is a file name, not a URI: %41 stays %41, and the database lies beside its lock
// files.
func TestSQLiteOpenTakesThePathAsItIs(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a%41.db")
	db, err := durablesqlite.Open(path)
	if err != nil {
		t.Fatalf("durablesqlite.Open(%q) error = %v", path, err)
	}
	defer db.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the database file: %v, want it at %s", err, path)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), "aA.db")); err == nil {
		t.Errorf("durablesqlite.Open decoded %%41 in %s to aA.db", path)
	}
}

// A refused path is named in the error, which is all the caller gets.
func TestSQLiteOpenNamesTheRefusedPath(t *testing.T) {
	t.Chdir(t.TempDir()) // where a lock file for the path "" would land
	_, err := durablesqlite.Open("")
	if want := `durablesqlite: path "" is empty or holds ? or #`; err == nil || err.Error() != want {
		t.Errorf("durablesqlite.Open(\"\") error = %v, want %q", err, want)
	}
}

// durablesqlite.Open closes what it opened when it fails: nothing of the database outlives the call.
func TestSQLiteOpenFailsWithoutLeaking(t *testing.T) {
	// Not parallel: goleak would see the goroutines of the tests beside it.
	for _, tt := range []struct {
		name string
		make func(path string) error // makes path unusable
		want func(error) bool
	}{
		{"a directory at the database's path", func(path string) error { return os.Mkdir(path, 0o700) },
			func(err error) bool {
				var e *sqlite.Error
				return errors.As(err, &e) && e.Code() == sqlite3.SQLITE_CANTOPEN
			}},
		{"a directory at its migration lock's path", func(path string) error { return os.Mkdir(path+".migrate.lock", 0o700) },
			func(err error) bool { return errors.Is(err, syscall.EISDIR) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "pay.db")
			if err := tt.make(path); err != nil {
				t.Fatal(err)
			}
			before := goleak.IgnoreCurrent()
			db, err := durablesqlite.Open(path)
			if err == nil {
				db.Close()
			}
			if !tt.want(err) || !strings.HasPrefix(err.Error(), "durablesqlite: ") {
				t.Fatalf("durablesqlite.Open() error = %v, want a durablesqlite error wrapping the cause", err)
			}
			goleak.VerifyNone(t, before) // a *sql.DB left open keeps a goroutine
		})
	}
}

// Each lock file sits beside the database under its own name: durablesqlite.Open, New on SQLite and Start
// fail with the file system's error when theirs cannot be made.
func TestLockFilesThatCannotBeMadeAreReported(t *testing.T) {
	t.Parallel()
	// New on SQLite's migration lock: durablesqlite.Open made it, so it is replaced once the file is open.
	t.Run("migration lock", func(t *testing.T) {
		db, path := mustEmptySQLite(t)
		blockLockFile(t, path+".migrate.lock")
		if _, err := New(context.Background(), durablesqlite.New(db), Config{}); !errors.Is(err, syscall.EISDIR) {
			t.Errorf("New() error = %v, want EISDIR", err)
		}
	})
	t.Run("run lock", func(t *testing.T) {
		l := mustPSP(t)
		db, path := mustEmptySQLite(t)
		p := mustPayer(t, db, l.config())
		blockLockFile(t, path+".run.lock")
		err := p.Start(context.Background())
		if !errors.Is(err, syscall.EISDIR) || !strings.HasPrefix(err.Error(), "durablesqlite: lock file: ") {
			t.Errorf("Start() error = %v, want a lock file error wrapping EISDIR", err)
		}
	})
}

// blockLockFile puts a directory where the lock file path is expected.
func blockLockFile(tb testing.TB, path string) {
	tb.Helper()
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		tb.Fatal(err)
	}
	if err := os.Mkdir(path, 0o700); err != nil {
		tb.Fatal(err)
	}
}

// A Start that finds the database busy closes the lock file it opened: only the holder's stays.
func TestBusyStartClosesItsLockFile(t *testing.T) {
	t.Parallel()
	if _, err := os.ReadDir("/proc/self/fd"); err != nil {
		t.Skipf("no /proc/self/fd to count open files: %v", err)
	}
	l := mustPSP(t)
	db, path := mustEmptySQLite(t)
	defer mustHoldLock(t, path+".run.lock")() // as another process's Start would
	p := mustPayer(t, db, l.config())
	if err := p.Start(context.Background()); !errors.Is(err, durablesqlite.ErrBusy) {
		t.Fatalf("Start() error = %v, want durablesqlite.ErrBusy", err)
	}
	if got := openFilesAt(t, path+".run.lock"); got != 1 {
		t.Errorf("%d files open at the run lock after a busy Start, want 1, the holder's", got)
	}
}

// openFilesAt counts this process's open files at path.
func openFilesAt(tb testing.TB, path string) int {
	tb.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && target == path {
			n++
		}
	}
	return n
}

// New on SQLite refuses what it cannot work: a database it cannot read, one without a file, a
// bad Config, and River's refusals.
func TestNewOnSQLiteRefusals(t *testing.T) {
	t.Parallel()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	db, _ := mustEmptySQLite(t)
	if _, err := New(ended, durablesqlite.New(db), Config{}); !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "durablesqlite: ") {
		t.Errorf("New(an ended context) error = %v, want a durablesqlite error wrapping context.Canceled", err)
	}
	if _, err := New(context.Background(), durablesqlite.New(db), Config{Workers: -1}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("New(Workers -1) error = %v, want ErrInvalidConfig", err)
	}
	// River runs at most 10 000 workers a queue.
	cfg := testConfig("http://127.0.0.1:1")
	cfg.Workers = 10_001
	_, err := New(context.Background(), durablesqlite.New(db), cfg)
	if err == nil || errors.Unwrap(err) == nil || !strings.HasPrefix(err.Error(), "durable: ") {
		t.Errorf("New(Workers 10 001) error = %v, want a durable error wrapping River's", err)
	}
}

// A database without a file, such as :memory:, has nowhere to put its lock files.
func TestNewOnSQLiteRefusesADatabaseWithoutAFile(t *testing.T) {
	t.Chdir(t.TempDir()) // where a lock file named for no file would land
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = New(context.Background(), durablesqlite.New(db), Config{})
	if want := "durablesqlite: the database has no file; use Open"; err == nil || err.Error() != want {
		t.Errorf("New(:memory:) error = %v, want %q", err, want)
	}
}

// New on SQLite refuses the Workers that Validate refuses, River's limit passed, with a Client or
// without one: a Payer that only stores intents takes no count that a working one would refuse.
func TestNewOnSQLiteRefusesWhatValidateRefuses(t *testing.T) {
	t.Parallel()
	withClient := mustPSP(t).config()
	withClient.Workers = 10_001
	for name, cfg := range map[string]Config{"without a Client": {Workers: 10_001}, "with a Client": withClient} {
		if err := cfg.Validate(); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: Validate() = %v, want ErrInvalidConfig", name, err)
		}
		db, _ := mustEmptySQLite(t)
		if _, err := New(context.Background(), durablesqlite.New(db), cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: New() error = %v, want ErrInvalidConfig", name, err)
		}
	}
}

// River's migrations failing fail New on SQLite, with the database's error, before the intent
// table is made.
func TestNewOnSQLiteReportsRiversMigrationFailure(t *testing.T) {
	t.Parallel()
	db, _ := mustEmptySQLite(t)
	if _, err := db.Exec("CREATE TABLE river_migration (unexpected TEXT)"); err != nil {
		t.Fatal(err)
	}
	_, err := New(context.Background(), durablesqlite.New(db), Config{})
	var e *sqlite.Error
	if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), "durable: ") {
		t.Fatalf("New() over a broken river_migration: error = %v, want a durable error wrapping SQLite's", err)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM sqlite_schema WHERE name = 'pix_intent'").Scan(&n); err != nil || n != 0 {
		t.Errorf("pix_intent made (%d, error %v) after River's migrations failed, want not", n, err)
	}
}

// A Start refused because a live payer works the file leaves that payer's running job alone:
// it is not taken over, stays running with its one attempt, and settles once when its
// request returns. The live payer holds the run lock through its own open file, as another
// process would: flock(2) locks belong to the open file, not to the process.
func TestBusyStartLeavesTheRunningJobsAlone(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	db, path := mustEmptySQLite(t)
	cfg := l.config()
	cfg.Client.AttemptTimeout = 0 // the request waits for the test, not for a timeout
	hold := &heldTrips{next: cfg.Client.HTTPClient.Transport, entered: make(chan struct{}, 1),
		release: make(chan struct{})}
	cfg.Client.HTTPClient = &http.Client{Transport: hold}
	live := mustPayer(t, db, cfg)
	mustPay(t, live, "a", payment(100))
	mustStart(t, live)
	<-hold.entered

	other, err := durablesqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	refused := mustPayer(t, other, l.config())
	if err := refused.Start(context.Background()); !errors.Is(err, durablesqlite.ErrBusy) {
		t.Fatalf("Start() beside a live payer: error = %v, want durablesqlite.ErrBusy", err)
	}
	if state, attempt := payJob(t, other); state != "running" || attempt != 1 {
		t.Errorf("after a refused Start the job is %s at attempt %d, want running at attempt 1", state, attempt)
	}

	close(hold.release)
	all := awaitDone(t, live)
	if len(all) != 1 || all[0].Status != StatusSettled {
		t.Fatalf("intents = %+v, want a settled one", all)
	}
	if got := l.settlements(); len(got) != 1 {
		t.Errorf("the PSP settled %d payments, want 1", len(got))
	}
	if err := live.Stop(context.Background()); err != nil { // River completes the jobs it worked
		t.Fatal(err)
	}
	if state, attempt := payJob(t, other); state != "completed" || attempt != 1 {
		t.Errorf("the job ended %s at attempt %d, want completed at attempt 1", state, attempt)
	}
}

// heldTrips passes each round trip to next once release is closed, and says on entered that
// one is waiting.
type heldTrips struct {
	next    http.RoundTripper
	entered chan struct{}
	release chan struct{}
}

func (h *heldTrips) RoundTrip(r *http.Request) (*http.Response, error) {
	select {
	case h.entered <- struct{}{}:
	default:
	}
	select {
	case <-h.release:
		return h.next.RoundTrip(r)
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
}

// payJob returns the state and attempt of the database's one payment job.
func payJob(tb testing.TB, db *sql.DB) (state string, attempt int) {
	tb.Helper()
	err := db.QueryRow("SELECT state, attempt FROM river_job WHERE kind = $1", payArgs{}.Kind()).Scan(&state, &attempt)
	if err != nil {
		tb.Fatalf("reading the payment job: %v", err)
	}
	return state, attempt
}
