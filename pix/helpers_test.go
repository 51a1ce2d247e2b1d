package pix_test

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	"go.uber.org/goleak"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/psp/psptest"
	"pixretry/retry"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const token = "test-token"

// A payment the default PSP can settle, and the policy most tests use.
var (
	payment = pix.Payment{AmountCents: 15000, PixKey: "pix@example.com", Description: "aluguel"}
	policy  = retry.Policy{AttemptsMax: 4, DelayBase: 100 * time.Millisecond, DelayMax: time.Second}
)

// halfDraw makes every wait half its ceiling (plus the Retry-After floor): exact in tests.
func halfDraw() float64 { return 0.5 }

// seen is one payment request as the PSP received it.
type seen struct {
	Key string    // its Idempotency-Key
	At  time.Time // when it arrived
	// Replayed: the PSP answered with Idempotent-Replayed: true. Set when the handler returns,
	// which for a late answer can be after the client gave up.
	Replayed bool
}

// recorder wraps the real psp handler and records every payment request that reaches it.
// Lookups (GET) are not recorded: the PSP counts them (Stats.Lookups).
type recorder struct {
	next http.Handler
	mu   sync.Mutex
	reqs []seen
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != psp.PaymentsPath || req.Method != http.MethodPost {
		r.next.ServeHTTP(w, req)
		return
	}
	r.mu.Lock()
	i := len(r.reqs)
	r.reqs = append(r.reqs, seen{Key: req.Header.Get("Idempotency-Key"), At: time.Now()})
	r.mu.Unlock()
	r.next.ServeHTTP(w, req)
	r.mu.Lock()
	r.reqs[i].Replayed = w.Header().Get("Idempotent-Replayed") == "true"
	r.mu.Unlock()
}

// requests returns the payment requests received so far.
func (r *recorder) requests() []seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]seen(nil), r.reqs...)
}

// keys returns the Idempotency-Key of each payment request received so far.
func (r *recorder) keys() []string {
	var keys []string
	for _, s := range r.requests() {
		keys = append(keys, s.Key)
	}
	return keys
}

// fixture is a real psp served over in-memory pipes (psptest), so that it also works inside a
// synctest bubble, with a recorder in front of it.
type fixture struct {
	psp *psp.Server     // the double: inject faults, read the ledger
	srv *psptest.Server // serves rec, and so psp
	rec *recorder
	log *logRecorder
}

// newFixture starts a psp with cfg (token and balance as testConfig gives them) and closes it
// when the test ends. Make it inside the synctest bubble that uses it, if any: closing waits
// until every answer the PSP holds (slow, late) is out, which in a bubble is virtual time.
func newFixture(t testing.TB, cfg psp.Config) *fixture {
	t.Helper()
	f := &fixture{log: &logRecorder{}}
	srv, err := psptest.NewServerBehind(testConfig(cfg), func(p *psp.Server) http.Handler {
		f.rec = &recorder{next: p}
		return f.rec
	})
	if err != nil {
		t.Fatalf("psptest.NewServerBehind() error = %v", err)
	}
	t.Cleanup(srv.Close)
	f.psp, f.srv = srv.Server, srv
	return f
}

// startBalance is the PSP's starting balance, in cents, unless a test sets one.
var startBalance = psp.DefaultConfig().BalanceCents

// testConfig is cfg with the test token and startBalance where it leaves them zero.
func testConfig(cfg psp.Config) psp.Config {
	if cfg.Tokens == nil {
		cfg.Tokens = []string{token}
	}
	if cfg.BalanceCents == 0 {
		cfg.BalanceCents = startBalance
	}
	return cfg
}

// client is a pix.Client of the fixture's PSP with the test policy, a 1 s attempt timeout,
// half draws and a recording logger; change sets other fields (a nil change is skipped, so
// that table cases can leave theirs out).
func (f *fixture) client(change ...func(*pix.Client)) *pix.Client {
	c := f.srv.Client(policy)
	c.AttemptTimeout, c.Logger, c.Jitter = time.Second, slogOf(f.log), halfDraw
	for _, ch := range change {
		if ch != nil {
			ch(c)
		}
	}
	return c
}

// newFixtureWithClient starts a PSP of cfg (see newFixture) with faults queued for the test's
// calls, and returns it with its client, changed by change (see fixture.client).
func newFixtureWithClient(t testing.TB, cfg psp.Config, faults []psp.Fault,
	change ...func(*pix.Client)) (*fixture, *pix.Client) {
	t.Helper()
	f := newFixture(t, cfg)
	f.psp.Inject(faults...)
	return f, f.client(change...)
}

// orDefault is p, or the default test payment when p is zero (a table case that leaves its
// payment out).
func orDefault(p pix.Payment) pix.Payment {
	if p == (pix.Payment{}) {
		return payment
	}
	return p
}

// settlementsFor returns the PSP's settlements under key.
func (f *fixture) settlementsFor(key string) []psp.Settlement {
	var out []psp.Settlement
	for _, s := range f.psp.Settlements() {
		if s.IdempotencyKey == key {
			out = append(out, s)
		}
	}
	return out
}

// offsets returns the instants of requests relative to start.
func offsets(reqs []seen, start time.Time) []time.Duration {
	var out []time.Duration
	for _, r := range reqs {
		out = append(out, r.At.Sub(start))
	}
	return out
}

// record is one log record, its attributes by key.
type record struct {
	Level   slog.Level
	Message string
	Attrs   map[string]any
}

// logRecorder is a slog.Handler that keeps every record. pix never calls WithAttrs or
// WithGroup; they panic so that a change that does is noticed.
type logRecorder struct {
	mu      sync.Mutex
	records []record
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	attrs := map[string]any{}
	r.Attrs(func(a slog.Attr) bool {
		attrs[a.Key] = a.Value.Any()
		return true
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, record{Level: r.Level, Message: r.Message, Attrs: attrs})
	return nil
}

func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler {
	panic("logRecorder: WithAttrs not supported")
}
func (l *logRecorder) WithGroup(string) slog.Handler { panic("logRecorder: WithGroup not supported") }

// all returns the records so far.
func (l *logRecorder) all() []record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]record(nil), l.records...)
}

// cmpIgnoreAt compares seen requests without their arrival instants.
var cmpIgnoreAt = cmpopts.IgnoreFields(seen{}, "At")

func slogOf(l *logRecorder) *slog.Logger { return slog.New(l) }
