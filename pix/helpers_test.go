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

	"pixretry/internal/pipenet"
	"pixretry/pix"
	"pixretry/psp"
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

// fixture is a real psp served in memory (pipenet), so that it also works inside a synctest
// bubble, with a recorder in front of it.
type fixture struct {
	psp *psp.Server
	rec *recorder
	srv *pipenet.Server
	log *logRecorder
}

// newFixture starts a psp with cfg (token and balance from DefaultConfig when zero) and stops
// it when the test ends. Inside a synctest bubble use newVirtualFixture.
func newFixture(t testing.TB, cfg psp.Config) *fixture {
	t.Helper()
	p := mustPSP(t, cfg)
	f := &fixture{psp: p, rec: &recorder{next: p}, log: &logRecorder{}}
	f.srv = pipenet.NewServer(f.rec)
	t.Cleanup(f.srv.Close)
	return f
}

// newVirtualFixture is newFixture for a test inside a synctest bubble. When the test ends it
// first lets an hour of virtual time pass, so that every answer the PSP holds (slow, late) is
// done, and only then stops the PSP: a bubble must end with no goroutine left.
func newVirtualFixture(t *testing.T, cfg psp.Config) *fixture {
	t.Helper()
	f := newFixture(t, cfg)
	t.Cleanup(func() { time.Sleep(time.Hour) })
	return f
}

// startBalance is the PSP's starting balance, in cents, unless a test sets one.
var startBalance = psp.DefaultConfig().BalanceCents

func mustPSP(t testing.TB, cfg psp.Config) *psp.Server {
	t.Helper()
	if cfg.Tokens == nil {
		cfg.Tokens = []string{token}
	}
	if cfg.BalanceCents == 0 {
		cfg.BalanceCents = startBalance
	}
	p, err := psp.NewServer(cfg)
	if err != nil {
		t.Fatalf("psp.NewServer() error = %v", err)
	}
	return p
}

// client is a pix.Client of the fixture's PSP with the test policy, a 1 s attempt timeout,
// half draws and a recording logger; change sets other fields (a nil change is skipped, so
// that table cases can leave theirs out).
func (f *fixture) client(change ...func(*pix.Client)) *pix.Client {
	c := &pix.Client{
		BaseURL:        f.srv.URL,
		Token:          token,
		HTTPClient:     f.srv.Client(),
		Policy:         policy,
		AttemptTimeout: time.Second,
		Logger:         slogOf(f.log),
		Jitter:         halfDraw,
	}
	for _, ch := range change {
		if ch != nil {
			ch(c)
		}
	}
	return c
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
