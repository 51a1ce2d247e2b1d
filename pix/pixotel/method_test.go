package pixotel_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"pixretry/pix"
)

// An attempt is counted under its request's method, whatever the Dialect writes: Efí pays with
// a PUT.
func TestAttemptsCountEveryDialectsMethod(t *testing.T) {
	r := newRig(t)
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodGet} {
		r.obs.AttemptEnded(context.Background(), pix.Attempt{Number: 1, Method: m, Outcome: pix.OutcomePending})
	}
	points := r.points(t)
	for _, want := range []string{
		"pix.attempts{http.request.method=GET,outcome=pending} 1",
		"pix.attempts{http.request.method=POST,outcome=pending} 1",
		"pix.attempts{http.request.method=PUT,outcome=pending} 1",
	} {
		if !slices.Contains(points, want) {
			t.Errorf("points = %q, want one %q", points, want)
		}
	}
}
