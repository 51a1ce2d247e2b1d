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
	"pixretry/retry/retrytest"
)

// gatewayAnswer is what a gateway before the PSP does with one request, a payment or a lookup.
// With Status 0 it passes the request on. Otherwise it answers Status before the PSP sees the
// request.
type gatewayAnswer struct {
	Status     int
	RetryAfter string        // "", "seconds" or "date"
	After      time.Duration // the hint: whole seconds rounded up, or the date's offset (negative: past)
	HugeHeader bool          // the header is longer than a client reads (a misconfigured proxy)
}

// gateway is an http.Handler that answers requests, payments and lookups alike, from its queue,
// one entry each. It passes the rest on to next. It is safe for concurrent use.
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
	h := w.Header()
	switch a.RetryAfter {
	case "seconds":
		h.Set("Retry-After", strconv.FormatInt(int64((a.After+time.Second-1)/time.Second), 10))
	case "date":
		h.Set("Retry-After", time.Now().Add(a.After).UTC().Format(http.TimeFormat))
	}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	if a.HugeHeader {
		h.Set("X-Trace", strings.Repeat("x", headerLimit+1))
	}
	w.WriteHeader(a.Status)
	w.Write([]byte("gateway: " + http.StatusText(a.Status) + "\n"))
}

// gatewayGen draws a gateway's answer: pass on, or a status from 400 to 599 (409, 429, 501, 503
// and 505 often). Its Retry-After is none, or seconds or an HTTP-date: past, near, or beyond
// DelayMax.
func gatewayGen(p retry.Policy) *rapid.Generator[gatewayAnswer] {
	return rapid.OneOf(rapid.Just(gatewayAnswer{}), rapid.Custom(func(t *rapid.T) gatewayAnswer {
		a := gatewayAnswer{
			Status: rapid.OneOf(rapid.IntRange(400, 599), rapid.SampledFrom([]int{409, 429, 501, 503, 505})).
				Draw(t, "gateway status"),
			RetryAfter: rapid.SampledFrom([]string{"", "seconds", "date", "date"}).Draw(t, "gateway Retry-After"),
			HugeHeader: rapid.IntRange(0, 5).Draw(t, "gateway header too long") == 0,
		}
		if a.RetryAfter != "" {
			a.After = rapid.OneOf(retrytest.Durations(-time.Hour, -time.Second), retrytest.Millis(0, 3000),
				retrytest.Durations(p.DelayMax+time.Second, p.DelayMax+time.Hour)).Draw(t, "gateway hint")
		}
		return a
	}))
}

// TestGatewayAnswersKeepInvariants: the runs of TestOnePaymentKeepsInvariants behind a gateway
// that answers some requests itself keep every invariant. The gateway answers any status, with
// Retry-After in seconds or as an HTTP-date, mixed with every PSP fault.
func TestGatewayAnswersKeepInvariants(t *testing.T) {
	checkRuns(t, rapid.Custom(func(t *rapid.T) scenario {
		sc := onePaymentScenarios().Draw(t, "scenario")
		sc.Gateway = rapid.SliceOfN(gatewayGen(sc.Policy), 1, 6).Draw(t, "gateway")
		return sc
	}), "answer: Retry-After as an HTTP-date", "answer: header too long", "call: retried", "call: settled",
		"call: outcome unknown")
}
