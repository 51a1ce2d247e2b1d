package psptest_test

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/psp"
	"pixretry/psp/psptest"
)

// A Gateway answers from its queue, with the Retry-After asked for, then passes requests on.
func TestGatewayAnswersThenPassesOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gw := &psptest.Gateway{Queue: []psptest.GatewayAnswer{
			{Status: 503, RetryAfter: "seconds", After: 1500 * time.Millisecond},
			{Status: 429, RetryAfter: "date", After: time.Minute, HeaderBytes: 10},
		}}
		s := mustServer(t, psp.DefaultConfig(), func(double *psp.Server) http.Handler { gw.Next = double; return gw })
		defer s.Close()
		want := []struct {
			status     int
			retryAfter string
			trace      int
		}{{503, "2", 0}, {429, time.Now().Add(time.Minute).UTC().Format(http.TimeFormat), 10}, {401, "", 0}} // the double refuses a request without a token
		for i, w := range want {
			resp, err := s.HTTPClient().Post(s.URL+psp.PaymentsPath, "application/json", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != w.status || resp.Header.Get("Retry-After") != w.retryAfter ||
				len(resp.Header.Get("X-Trace")) != w.trace {
				t.Errorf("answer %d: %d, Retry-After %q, X-Trace of %d bytes; want %d, %q, %d", i, resp.StatusCode,
					resp.Header.Get("Retry-After"), len(resp.Header.Get("X-Trace")), w.status, w.retryAfter, w.trace)
			}
		}
	})
}
