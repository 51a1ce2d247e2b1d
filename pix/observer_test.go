package pix_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
)

// observed is a pix.Observer that writes what it learns as lines, in order, and keeps the calls
// and attempts that ended. The context each start returns carries a name, its parent's and the
// call's kind or the attempt's method and number, so that the lines show which context pix
// hands back. Inject sends that name as the request's traceparent, which the PSP's journal
// keeps.
type observed struct {
	mu       sync.Mutex
	lines    []string
	calls    []pix.Call
	attempts []pix.Attempt
}

type nameKey struct{}

func nameOf(ctx context.Context) string {
	name, _ := ctx.Value(nameKey{}).(string)
	return name
}

// within is ctx named after its own name and then name.
func within(ctx context.Context, name string) context.Context {
	if parent := nameOf(ctx); parent != "" {
		name = parent + "/" + name
	}
	return context.WithValue(ctx, nameKey{}, name)
}

func (o *observed) add(line string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.lines = append(o.lines, line)
}

func (o *observed) CallStarted(ctx context.Context, c pix.Call) context.Context {
	o.add(fmt.Sprintf("%s started in %q", c.Kind, nameOf(ctx)))
	return within(ctx, string(c.Kind))
}

func (o *observed) CallEnded(ctx context.Context, c pix.Call) {
	o.mu.Lock()
	o.calls = append(o.calls, c)
	o.mu.Unlock()
	o.add(fmt.Sprintf("%s ended in %q: %s after %v", c.Kind, nameOf(ctx), c.Outcome, c.Duration))
}

func (o *observed) AttemptStarted(ctx context.Context, a pix.Attempt) context.Context {
	o.add(fmt.Sprintf("%s %d started in %q", a.Method, a.Number, nameOf(ctx)))
	return within(ctx, fmt.Sprintf("%s %d", a.Method, a.Number))
}

func (o *observed) Inject(ctx context.Context, h http.Header) { h.Set("Traceparent", nameOf(ctx)) }

func (o *observed) AttemptEnded(ctx context.Context, a pix.Attempt) {
	o.mu.Lock()
	o.attempts = append(o.attempts, a)
	o.mu.Unlock()
	line := fmt.Sprintf("%s %d ended in %q: %d %s after %v, wait %v, stop %v", a.Method, a.Number, nameOf(ctx),
		a.Status, a.Outcome, a.Duration, a.Wait, a.Stop)
	if a.QuotaGranted {
		line += ", quota granted"
	}
	o.add(line)
}

func (o *observed) KeyRotated(ctx context.Context, from, to string) {
	o.add(fmt.Sprintf("key %s rotated to %s in %q", from, to, nameOf(ctx)))
}

// all returns the lines so far.
func (o *observed) all() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.lines...)
}

// observedBy sets o as a Client's Observer.
func observedBy(o *observed) func(*pix.Client) {
	return func(c *pix.Client) { c.Observer = o }
}

var _ pix.Observer = (*observed)(nil)

// A key rotation reaches the Observer with the caller's context, and is no record of the
// Logger's. A Client without an Observer takes it in silence.
func TestKeyRotatedReachesTheObserver(t *testing.T) {
	o := &observed{}
	logs := &logRecorder{}
	c := &pix.Client{Observer: o, Logger: slog.New(logs)}
	c.KeyRotated(within(t.Context(), "payer"), "order-1", "order-2")
	want := []string{`key order-1 rotated to order-2 in "payer"`}
	if diff := cmp.Diff(want, o.all()); diff != "" {
		t.Errorf("the Observer's lines (-want +got):\n%s", diff)
	}
	if got := logs.all(); len(got) != 0 {
		t.Errorf("Logger records = %v, want none", got)
	}
	(&pix.Client{}).KeyRotated(t.Context(), "order-1", "order-2")
}
