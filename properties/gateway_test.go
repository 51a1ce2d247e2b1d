package properties

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"pixretry/retry"
)

// gatewayAnswer is what a gateway in front of the PSP does with one payment request: pass it
// on (Status 0), or answer Status itself before the PSP sees the request, with a Retry-After
// in seconds or as an HTTP-date.
type gatewayAnswer struct {
	Status     int
	RetryAfter string // "", "seconds" or "date"
	// After is the hint: whole seconds rounded up, or the date's offset from the answer (negative: past).
	After      time.Duration
	HugeHeader bool // the answer's header is longer than a client reads (a misconfigured proxy)
}

// gateway is an http.Handler that answers payment requests from its queue, one entry each,
// and passes on the rest to next. It is safe for concurrent use.
type gateway struct {
	next  http.Handler
	mu    sync.Mutex
	queue []gatewayAnswer
}

func (g *gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	var a gatewayAnswer
	if len(g.queue) > 0 {
		a, g.queue = g.queue[0], g.queue[1:]
	}
	g.mu.Unlock()
	if a.Status == 0 {
		g.next.ServeHTTP(w, r)
		return
	}
	switch a.RetryAfter {
	case "seconds":
		w.Header().Set("Retry-After", strconv.FormatInt(int64((a.After+time.Second-1)/time.Second), 10))
	case "date":
		w.Header().Set("Retry-After", time.Now().Add(a.After).UTC().Format(http.TimeFormat))
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if a.HugeHeader {
		w.Header().Set("X-Trace", strings.Repeat("x", headerLimit+1))
	}
	w.WriteHeader(a.Status)
	w.Write([]byte("gateway: " + http.StatusText(a.Status) + "\n"))
}

// gatewayGen draws a gateway's answer: pass on, or any status from 400 to 599 (409, 429, 501,
// 503 and 505 often), with no Retry-After, or one in seconds or as an HTTP-date that is past,
// near, or beyond DelayMax.
func gatewayGen(p retry.Policy) *rapid.Generator[gatewayAnswer] {
	answer := rapid.Custom(func(t *rapid.T) gatewayAnswer {
		a := gatewayAnswer{
			Status: rapid.OneOf(rapid.IntRange(400, 599), rapid.SampledFrom([]int{409, 429, 501, 503, 505})).Draw(t,
				"gateway status"),
			RetryAfter: rapid.SampledFrom([]string{"", "seconds", "date", "date"}).Draw(t, "gateway Retry-After"),
			HugeHeader: rapid.IntRange(0, 5).Draw(t, "gateway header too long") == 0,
		}
		if a.RetryAfter != "" {
			a.After = rapid.OneOf(durationGen(-time.Hour, -time.Second), msRange(0, 3000),
				durationGen(p.DelayMax+time.Second, p.DelayMax+time.Hour)).Draw(t, "gateway hint")
		}
		return a
	})
	return rapid.OneOf(rapid.Just(gatewayAnswer{}), answer)
}

// gatewayScenarios are the runs of TestGatewayAnswersKeepInvariants: one payment and its
// reconciliations, as in TestOnePaymentKeepsInvariants, behind a gateway that answers some
// requests itself.
func gatewayScenarios() *rapid.Generator[scenario] {
	return rapid.Custom(func(t *rapid.T) scenario {
		sc := onePaymentScenarios().Draw(t, "scenario")
		sc.Gateway = rapid.SliceOfN(gatewayGen(sc.Policy), 1, 6).Draw(t, "gateway")
		return sc
	})
}

// TestGatewayAnswersKeepInvariants: a gateway that answers any status before the PSP sees the
// request, with Retry-After in seconds or as an HTTP-date (past, near, beyond DelayMax), mixed
// with every PSP fault, keeps every invariant.
func TestGatewayAnswersKeepInvariants(t *testing.T) {
	var cov coverage
	rapid.Check(t, checkScenarios(gatewayScenarios(), &cov))
	t.Log(&cov)
	cov.require(t, 100, "answer: Retry-After as an HTTP-date", "answer: header too long", "call: retried",
		"call: settled", "call: outcome unknown")
}
