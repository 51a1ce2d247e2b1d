package psptest

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// GatewayAnswer is what a Gateway does with one request, a payment or a lookup. With Status 0
// it passes the request on. Otherwise it answers Status, in plain text, before the PSP sees the
// request.
type GatewayAnswer struct {
	Status     int
	RetryAfter string        // "", "seconds" or "date"
	After      time.Duration // the hint: whole seconds rounded up, or the date's offset (negative: past)
	// HeaderBytes, when not 0, pads the answer's header with a field of that many bytes: more
	// than a client reads is a misconfigured proxy.
	HeaderBytes int
}

// Gateway is an http.Handler in front of the double (NewServerBehind) that answers requests
// from its Queue, one entry each, and passes the rest on to Next. It is safe for concurrent use
// once serving.
type Gateway struct {
	Next  http.Handler
	Queue []GatewayAnswer

	mu sync.Mutex
}

func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	var a GatewayAnswer
	if len(g.Queue) > 0 {
		a, g.Queue = g.Queue[0], g.Queue[1:]
	}
	g.mu.Unlock()
	if a.Status == 0 {
		g.Next.ServeHTTP(w, r)
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
	if a.HeaderBytes > 0 {
		h.Set("X-Trace", strings.Repeat("x", a.HeaderBytes))
	}
	w.WriteHeader(a.Status)
	w.Write([]byte("gateway: " + http.StatusText(a.Status) + "\n"))
}
