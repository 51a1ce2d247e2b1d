package durable

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"pixretry/durable/durablesqlite"
	"pixretry/pix"
)

func TestWorkSettlesAndRefuses(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, l.config())
	mustPay(t, p, "a", payment(100))
	mustPay(t, p, "b", payment(refusedCents))
	mustStart(t, p)
	all := awaitDone(t, p)
	checkLedger(t, l, all)
	if a := all[0]; a.Status != StatusSettled || a.Attempts != 1 || a.Error != "" {
		t.Errorf("intent a = %+v, want settled at its first attempt", a)
	}
	if b := all[1]; b.Status != StatusRefused || b.Attempts != 1 || b.Error == "" {
		t.Errorf("intent b = %+v, want refused with its refusal", b)
	}
}

func TestWorkResumesUnknownOutcomes(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, l.config())
	// pix makes 2 attempts per job attempt: each pair leaves the outcome unknown.
	l.inject(faultCommit503, faultDrop, faultLate, faultLate, faultDown, faultDown)
	in := mustPay(t, p, "a", payment(100))
	mustStart(t, p)
	all := awaitDone(t, p)
	checkLedger(t, l, all)
	if got := all[0]; got.Status != StatusSettled || got.Key != in.Key || got.Attempts < 2 {
		t.Errorf("intent = %+v, want settled under key %s after 2 or more job attempts", got, in.Key)
	}
}

func TestIntentsReportOverdue(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{MaxAge: time.Hour})
	stored := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p.now = func() time.Time { return stored }
	mustPay(t, p, "a", payment(100))
	for age, want := range map[time.Duration]Status{time.Hour: StatusPending, time.Hour + time.Microsecond: StatusOverdue} {
		p.now = func() time.Time { return stored.Add(age) }
		got, err := p.Intent(context.Background(), "a")
		if err != nil || got.Status != want {
			t.Errorf("Intent() at age %v = %+v, %v; want status %s", age, got, err, want)
		}
	}
}

func TestConfigDefaults(t *testing.T) {
	t.Parallel()
	got, err := Config{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Workers: 10, DelayBase: 10 * time.Second, DelayMax: 5 * time.Minute, MaxAge: 24 * time.Hour,
		JobTimeout: 10 * time.Second, RescueAfter: 15 * time.Second, PollInterval: time.Second, KeyTTL: 24 * time.Hour,
		OutageMax: time.Minute, PSPOutageMax: time.Minute, FetchCooldown: time.Millisecond}
	if got.Logger == nil || got.Rand == nil {
		t.Errorf("Config{}.withDefaults() leaves Logger or Rand nil")
	}
	got.Logger, got.Rand = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Config{}.withDefaults() = %+v, want %+v", got, want)
	}
	got, _ = Config{JobTimeout: time.Minute}.withDefaults()
	if got.RescueAfter != time.Minute+5*time.Second {
		t.Errorf("RescueAfter for a JobTimeout of 1 min = %v, want 1m5s", got.RescueAfter)
	}
}

// Config.KeyTTL defaults to the Client's, and the Payer sends with a copy of the Client whose
// KeyTTL is Config.KeyTTL, leaving the caller's Client as it was.
func TestConfigKeyTTL(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name           string
		config, client time.Duration
		want           time.Duration
	}{
		{"neither set", 0, 0, 24 * time.Hour},
		{"the Client's", 0, time.Hour, time.Hour},
		{"the Config's", time.Minute, 0, time.Minute},
		{"the Config's over the Client's", time.Minute, time.Hour, time.Minute},
	} {
		client := &pix.Client{BaseURL: "http://127.0.0.1:1", KeyTTL: tt.client, Policy: testConfig("").Client.Policy}
		got, err := Config{Client: client, KeyTTL: tt.config}.withDefaults()
		if err != nil || got.KeyTTL != tt.want || got.Client.KeyTTL != tt.want {
			t.Errorf("%s: withDefaults() = KeyTTL %v, Client.KeyTTL %v, %v; want %v", tt.name, got.KeyTTL,
				got.Client.KeyTTL, err, tt.want)
		}
		if got.Client == client || client.KeyTTL != tt.client {
			t.Errorf("%s: withDefaults() changed the caller's Client", tt.name)
		}
	}
}

// A Client that Config.KeyTTL makes invalid (an AttemptTimeout past KeyTTL less a tenth), or
// that is invalid as given, makes the Config invalid: the Payer would otherwise snooze every
// job with the Client's error.
func TestConfigRefusesAnInvalidClient(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		breakIt func(*Config)
	}{
		{"AttemptTimeout at KeyTTL less a tenth", func(c *Config) { c.KeyTTL = c.Client.AttemptTimeout * 10 / 9 }},
		{"a Client's KeyTTL too short for its AttemptTimeout", func(c *Config) {
			c.Client.KeyTTL = c.Client.AttemptTimeout
		}},
		{"BaseURL empty", func(c *Config) { c.Client.BaseURL = "" }},
	} {
		cfg := testConfig("http://127.0.0.1:1")
		if err := cfg.Validate(); err != nil {
			t.Fatalf("%s: Validate() of the unbroken Config = %v", tt.name, err)
		}
		tt.breakIt(&cfg)
		if err := cfg.Validate(); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: Validate() = %v, want ErrInvalidConfig", tt.name, err)
		}
	}
	cfg := testConfig("http://127.0.0.1:1")
	cfg.KeyTTL = cfg.Client.AttemptTimeout*10/9 + time.Millisecond
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate() with KeyTTL just above AttemptTimeout·10/9 = %v, want nil", err)
	}
}

func TestStopCancelsAttemptsInFlightWhenItsContextEnds(t *testing.T) {
	l := mustPSP(t)
	db, _ := mustSQLite(t)
	cfg := l.config()
	cfg.Client.AttemptTimeout = 0
	p := mustPayer(t, db, cfg)
	l.inject(faultSlow)
	mustPay(t, p, "a", payment(100))
	sent := make(chan struct{})
	onCrashPoint(p, func(point string) {
		if point == "before-attempt" {
			close(sent)
		}
	})
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sent:
	case <-time.After(stallAfter()):
		t.Fatalf("no attempt started in %v", stallAfter())
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Stop(ended); err != nil {
		t.Errorf("Stop(an ended context) error = %v, want nil", err)
	}
	in, err := p.Intent(context.Background(), "a")
	if err != nil || in.Status != StatusPending {
		t.Errorf("intent after Stop = %+v, %v; want pending, its outcome unknown", in, err)
	}
}

func TestSQLiteMigratesOnceWhenOpenedAtOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "pay.db")
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			db, err := durablesqlite.Open(path)
			if err != nil {
				t.Error(err)
				return
			}
			defer db.Close()
			if _, err := New(context.Background(), durablesqlite.New(db), Config{}); err != nil {
				t.Errorf("New() beside others: error = %v", err)
			}
		})
	}
	wg.Wait()
}

func TestSecondStartIsBusy(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	db, path := mustSQLite(t)
	mustStart(t, mustPayer(t, db, l.config()))
	other, err := durablesqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	q := mustPayer(t, other, l.config())
	if err := q.Start(context.Background()); !errors.Is(err, durablesqlite.ErrBusy) {
		t.Errorf("a second Start() error = %v, want durablesqlite.ErrBusy", err)
	}
}

// Stop releases the database's run lock, so that another payer on the same file may start; a
// second Stop has no lock to release and is no error.
func TestStopLetsAnotherStart(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	db, path := mustSQLite(t)
	p := mustPayer(t, db, l.config())
	if err := p.Start(context.Background()); err != nil {
		t.Fatalf("Start() error = %v", err)
	}
	if err := p.Stop(context.Background()); err != nil {
		t.Fatalf("Stop() error = %v", err)
	}
	if err := p.Stop(context.Background()); err != nil {
		t.Errorf("a second Stop() error = %v, want nil", err)
	}
	other, err := durablesqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() }) // after mustStart's Stop: cleanups run last first
	mustStart(t, mustPayer(t, other, l.config()))
}

func TestConfigDelay(t *testing.T) {
	t.Parallel()
	cfg, err := Config{DelayBase: time.Second, DelayMax: 5 * time.Second, Rand: func() float64 { return 0.5 }}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]time.Duration{1: 500 * time.Millisecond, 2: time.Second, 3: 2 * time.Second, 9: 2500 * time.Millisecond} {
		if got := cfg.delay(n); got != want {
			t.Errorf("delay(%d) = %v, want %v", n, got, want)
		}
	}
}

func TestConfigRefusesBadValues(t *testing.T) {
	t.Parallel()
	negative := "are not negative"
	for name, tt := range map[string]struct {
		cfg  Config
		says string // what the error says of the value
	}{
		"negative Workers":         {Config{Workers: -1}, "Workers is -1"},
		"negative MaxAge":          {Config{MaxAge: -1}, negative},
		"negative JobTimeout":      {Config{JobTimeout: -1}, negative},
		"negative PollInterval":    {Config{PollInterval: -1}, negative},
		"negative KeyTTL":          {Config{KeyTTL: -1}, negative},
		"negative OutageMax":       {Config{OutageMax: -1}, negative},
		"negative PSPOutageMax":    {Config{PSPOutageMax: -1}, negative},
		"negative FetchCooldown":   {Config{FetchCooldown: -1}, negative},
		"RescueAfter < JobTimeout": {Config{JobTimeout: time.Minute, RescueAfter: time.Second}, "RescueAfter 1s is below"},
		"DelayMax < DelayBase":     {Config{DelayBase: time.Minute, DelayMax: time.Second}, "DelayMax"},
		"Workers past River's":     {Config{Workers: 10_001}, "Workers is 10001, want at most 10000"},
		"PollInterval below 1 ms":  {Config{PollInterval: 999 * time.Microsecond}, "PollInterval is 999µs"},
		"FetchCooldown below 1 ms": {Config{FetchCooldown: 999 * time.Microsecond}, "FetchCooldown is 999µs"},
		"FetchCooldown past PollInterval": {Config{PollInterval: 10 * time.Millisecond,
			FetchCooldown: 11 * time.Millisecond}, "FetchCooldown is 11ms"},
	} {
		if err := tt.cfg.Validate(); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%s: Validate() = %v, want ErrInvalidConfig saying %q", name, err, tt.says)
		}
	}
}

// Each bound is inclusive, and River takes a Config at its bounds.
func TestConfigTakesValuesAtTheirBounds(t *testing.T) {
	t.Parallel()
	for name, cfg := range map[string]Config{
		"RescueAfter == JobTimeout": {JobTimeout: time.Second, RescueAfter: time.Second},
		"River's most Workers":      {Workers: 10_000},
		"PollInterval of 1 ms":      {PollInterval: time.Millisecond},
		"FetchCooldown of 1 ms":     {FetchCooldown: time.Millisecond},
		"FetchCooldown == PollInterval": {PollInterval: 10 * time.Millisecond,
			FetchCooldown: 10 * time.Millisecond},
	} {
		if err := cfg.Validate(); err != nil {
			t.Errorf("%s: Validate() = %v, want nil", name, err)
		}
	}
	db, _ := mustSQLite(t)
	l := mustPSP(t)
	cfg := l.config()
	cfg.Workers, cfg.PollInterval, cfg.FetchCooldown = 10_000, time.Millisecond, time.Millisecond
	mustPayer(t, db, cfg) // River's NewClient checks its own bounds
}

func TestWaitWithoutClientPolls(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{PollInterval: 10 * time.Millisecond})
	found, cancelFound := context.WithTimeout(context.Background(), stallAfter())
	defer cancelFound()
	if err := p.Wait(found); err != nil {
		t.Errorf("Wait() with nothing pending: error = %v, want nil", err)
	}
	mustPay(t, p, "a", payment(100))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait(an ended context) with an intent pending: error = %v, want context.Canceled", err)
	}
}

func TestSQLiteOpenRefusesBadPaths(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"", filepath.Join(t.TempDir(), "a?b.db"), filepath.Join(t.TempDir(), "a#b.db")} {
		if db, err := durablesqlite.Open(path); err == nil {
			db.Close()
			t.Errorf("durablesqlite.Open(%q) error = nil, want one", path)
		}
	}
}

func TestStartTakesOverTheJobsOfADeadRun(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	mustPay(t, p, "a", payment(100))
	mustPay(t, p, "b", payment(100))
	if _, err := db.Exec("UPDATE river_job SET state = 'running', attempt = 1"); err != nil {
		t.Fatal(err)
	}
	n, err := p.db.TakeOver(context.Background(), payArgs{}.Kind())
	if err != nil || n != 2 {
		t.Errorf("takeOver() = %d, %v; want the 2 running jobs", n, err)
	}
	if err := p.db.Release(); err != nil {
		t.Error(err)
	}
	var available int
	if err := db.QueryRow("SELECT count(*) FROM river_job WHERE state = 'available'").Scan(&available); err != nil || available != 2 {
		t.Errorf("%d jobs available (error %v), want 2", available, err)
	}
}

func TestStopFreesTheDatabaseForTheNextStart(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	db, path := mustSQLite(t)
	p := mustPayer(t, db, l.config())
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(context.Background()); err != nil {
		t.Fatalf("Stop() error = %v", err)
	}
	other, err := durablesqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	q := mustPayer(t, other, l.config())
	if err := q.Start(context.Background()); err != nil {
		t.Errorf("Start() after the first Payer stopped: error = %v, want nil", err)
	}
	if err := q.Stop(context.Background()); err != nil {
		t.Errorf("Stop() error = %v", err)
	}
}
