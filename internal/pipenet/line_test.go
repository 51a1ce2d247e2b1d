package pipenet_test

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"pixretry/internal/pipenet"
)

// Each Fault fails the round trip it falls on with TCP's error, and lets the request reach the
// server exactly when it says so. A step that waits for a pooled connection lets the first
// request through.
func TestLineBreaksConnections(t *testing.T) {
	for _, tc := range []struct {
		step    pipenet.Step
		wantErr error // of the last round trip; nil: any error
		want    []pipenet.Event
	}{
		{pipenet.Step{Fault: pipenet.Refused}, syscall.ECONNREFUSED, []pipenet.Event{{Fault: pipenet.Refused}}},
		{pipenet.Step{Fault: pipenet.NoSuchHost}, nil, []pipenet.Event{{Fault: pipenet.NoSuchHost}}},
		{pipenet.Step{Fault: pipenet.CutBeforeWrite}, nil, []pipenet.Event{{Fault: pipenet.CutBeforeWrite}}},
		{pipenet.Step{Fault: pipenet.CutAfterWrite}, syscall.ECONNRESET, []pipenet.Event{{Fault: pipenet.CutAfterWrite}}},
		{pipenet.Step{Fault: pipenet.CutAfterWrite, PooledOnly: true}, syscall.ECONNRESET,
			[]pipenet.Event{{}, {Fault: pipenet.CutAfterWrite, Pooled: true}}},
		{pipenet.Step{Fault: pipenet.ClosedIdle, PooledOnly: true}, nil,
			[]pipenet.Event{{}, {Fault: pipenet.ClosedIdle, Pooled: true}}},
	} {
		t.Run(tc.step.Fault.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var received atomic.Int64
				srv := pipenet.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { received.Add(1) }))
				defer srv.Close()
				line := pipenet.NewLine(tc.step)
				transport := srv.Transport().Clone()
				transport.DialContext = line.Dial(transport.DialContext)
				defer transport.CloseIdleConnections()
				trips := &pipenet.Tripper{Next: transport, Line: line}
				var err error
				for range tc.want {
					var resp *http.Response
					if resp, err = (&http.Client{Transport: trips}).Post(srv.URL, "text/plain", strings.NewReader("x")); err == nil {
						resp.Body.Close()
					}
				}
				if err == nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
					t.Errorf("last round trip: error %v, want %v", err, tc.wantErr)
				}
				if dns := errors.As(err, new(*net.DNSError)); dns != (tc.step.Fault == pipenet.NoSuchHost) {
					t.Errorf("last round trip: error %v is a *net.DNSError: %t", err, dns)
				}
				if diff := cmp.Diff(tc.want, trips.Events()); diff != "" {
					t.Errorf("Events() diff (-want +got):\n%s", diff)
				}
				want := int64(len(tc.want) - 1)
				if tc.step.Fault.ReachesServer() {
					want++
				}
				if got := received.Load(); got != want {
					t.Errorf("the server received %d requests, want %d", got, want)
				}
			})
		})
	}
}

func TestZeroLineBreaksNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := pipenet.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		defer srv.Close()
		trips := &pipenet.Tripper{Next: srv.Transport(), Line: &pipenet.Line{}}
		resp, err := (&http.Client{Transport: trips}).Get(srv.URL)
		if err != nil {
			t.Fatalf("Get() error = %v", err)
		}
		resp.Body.Close()
		if got, want := trips.Events(), []pipenet.Event{{}}; !cmp.Equal(got, want) {
			t.Errorf("Events() = %v, want %v", got, want)
		}
	})
}
