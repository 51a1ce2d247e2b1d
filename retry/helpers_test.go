package retry_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"pixretry/retry"
)

// statusError is an error from a server that answered with an HTTP status,
// optionally with a Retry-After hint.
type statusError struct {
	code  int
	after time.Duration
}

func (e *statusError) Error() string             { return fmt.Sprintf("psp: status %d", e.code) }
func (e *statusError) StatusCode() int           { return e.code }
func (e *statusError) RetryAfter() time.Duration { return e.after }

// unavailable returns a fresh transient error: each call gives a distinct
// value, so tests can tell which attempt's error came back.
func unavailable() error { return &statusError{code: 503} }

// rejected returns a fresh permanent error.
func rejected() error { return &statusError{code: 422} }

// almostOne is the largest draw below 1: FullJitter maps it to the ceiling.
var almostOne = math.Nextafter(1, 0)

// script is an operation whose results are written in advance: call i
// returns results[i] (nil means success, with the call's number as the
// value). It records the instant of every call, and fails the test if it is
// called more often than scripted.
type script struct {
	t       testing.TB
	results []error
	calls   []time.Time
}

func newScript(t testing.TB, results ...error) *script {
	t.Helper()
	return &script{t: t, results: results}
}

func (s *script) op(context.Context) (int, error) {
	s.calls = append(s.calls, time.Now())
	n := len(s.calls)
	if n > len(s.results) {
		s.t.Fatalf("op called %d times, scripted for %d", n, len(s.results))
	}
	if err := s.results[n-1]; err != nil {
		return 0, err
	}
	return n, nil
}

// offsets returns the instants of the calls as offsets from start.
func (s *script) offsets(start time.Time) []time.Duration {
	got := make([]time.Duration, len(s.calls))
	for i, at := range s.calls {
		got[i] = at.Sub(start)
	}
	return got
}

// draws returns a source of jitter draws that yields us in order and fails the
// test when asked for more.
func draws(t testing.TB, us ...float64) func() float64 {
	return func() float64 {
		if len(us) == 0 {
			t.Fatal("more jitter draws taken than scripted")
		}
		u := us[0]
		us = us[1:]
		return u
	}
}

// recorder collects what an observer sees.
type recorder struct{ seen []retry.Attempt }

func (r *recorder) observe(a retry.Attempt) { r.seen = append(r.seen, a) }

// checkObserved fails t if got, the attempts (or the attempt) observed, differ from want.
func checkObserved(t *testing.T, what string, want, got any) {
	t.Helper()
	if diff := cmp.Diff(want, got, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("%s observed (-want +got):\n%s", what, diff)
	}
}

// option returns the recorder as a retry option.
func (r *recorder) option() retry.Option { return retry.WithObserver(r.observe) }
