package pixotel_test

import (
	"errors"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/psp"
	scenariofiles "pixretry/psp/scenarios"
)

// Parts of the lines of http.client.request.duration: every attempt's method, and the PSP's
// address over pipes.
const (
	post = "http.request.method=POST"
	get  = "http.request.method=GET"
	pipe = "server.address=pipe,server.port=80"
)

// TestDemoScenarios drives the five scenarios of the demo (cmd/demo), with the faults of their
// files in psp/scenarios, against a fresh PSP each, with the demo's client. It pins every
// metric point and every span. Time is virtual, so the durations are exact: an attempt over
// pipes takes no time, a timeout 300 ms, and the waits 25, 50 and 100 ms.
func TestDemoScenarios(t *testing.T) {
	tests := []struct {
		file    string
		payment pix.Payment
		wantErr error
		points  []string
		spans   []string
	}{
		{
			file:    "first-attempt",
			payment: pix.Payment{AmountCents: 15000, PixKey: "maria@example.com", Description: "lunch"},
			points: []string{
				"http.client.request.duration{" + post + ",http.response.status_code=201," + pipe + "} count=1 sum=0",
				"pix.attempts{http.request.method=POST,outcome=settled} 1",
				"pix.payment.duration{outcome=settled,pix.call=send} count=1 sum=0",
				"pix.payments{outcome=settled,pix.call=send} 1",
			},
			spans: []string{
				"POST client in pix.send: http.response.status_code=201,outcome=settled,pix.attempt=1,pix.retry.stop=success",
				"pix.send internal: outcome=settled",
			},
		},
		{
			file:    "two-503s",
			payment: pix.Payment{AmountCents: 20000, PixKey: "+5511987654321", Description: "rent share"},
			points: []string{
				"http.client.request.duration{error.type=503," + post + ",http.response.status_code=503," + pipe + "} count=2 sum=0",
				"http.client.request.duration{" + post + ",http.response.status_code=201," + pipe + "} count=1 sum=0",
				"pix.attempts{http.request.method=POST,outcome=settled} 1",
				"pix.attempts{http.request.method=POST,outcome=transient} 2",
				"pix.payment.duration{outcome=settled,pix.call=send} count=1 sum=0.075",
				"pix.payments{outcome=settled,pix.call=send} 1",
				"pix.retry.wait{http.request.method=POST} count=2 sum=0.075",
			},
			spans: []string{
				"POST client in pix.send: error.type=503,http.response.status_code=503,outcome=transient,pix.attempt=1,pix.retry.wait=0.025 [Error]",
				"POST client in pix.send: error.type=503,http.request.resend_count=1,http.response.status_code=503,outcome=transient,pix.attempt=2,pix.retry.wait=0.05 [Error]",
				"POST client in pix.send: http.request.resend_count=2,http.response.status_code=201,outcome=settled,pix.attempt=3,pix.retry.stop=success",
				"pix.send internal: outcome=settled",
			},
		},
		{
			file:    "late-answer",
			payment: pix.Payment{AmountCents: 10000, PixKey: "123e4567-e89b-42d3-a456-426614174000", Description: "books"},
			points: []string{
				"http.client.request.duration{error.type=timeout," + post + "," + pipe + "} count=1 sum=0.3",
				"http.client.request.duration{" + post + ",http.response.status_code=201," + pipe + "} count=1 sum=0",
				"pix.attempts{http.request.method=POST,outcome=replayed} 1",
				"pix.attempts{http.request.method=POST,outcome=transient} 1",
				"pix.payment.duration{outcome=replayed,pix.call=send} count=1 sum=0.325",
				"pix.payments{outcome=replayed,pix.call=send} 1",
				"pix.retry.wait{http.request.method=POST} count=1 sum=0.025",
			},
			spans: []string{
				"POST client in pix.send: error.type=timeout,outcome=transient,pix.attempt=1,pix.retry.wait=0.025 [Error]",
				"POST client in pix.send: http.request.resend_count=1,http.response.status_code=201,outcome=replayed,pix.attempt=2,pix.retry.stop=success",
				"pix.send internal: outcome=replayed",
			},
		},
		{
			file:    "insufficient-funds",
			payment: pix.Payment{AmountCents: psp.DefaultConfig().BalanceCents + 1, PixKey: "12345678909", Description: "a car"},
			wantErr: pix.ErrInsufficientFunds,
			points: []string{
				"http.client.request.duration{error.type=422," + post + ",http.response.status_code=422," + pipe + "} count=1 sum=0",
				"pix.attempts{http.request.method=POST,outcome=refused} 1",
				"pix.payment.duration{outcome=refused,pix.call=send} count=1 sum=0",
				"pix.payments{outcome=refused,pix.call=send} 1",
			},
			spans: []string{
				"POST client in pix.send: error.type=422,http.response.status_code=422,outcome=refused,pix.attempt=1,pix.retry.stop=permanent [Error]",
				"pix.send internal: outcome=refused [Error]",
			},
		},
		{
			file:    "down-past-budget",
			payment: pix.Payment{AmountCents: 5000, PixKey: "11222333000181", Description: "supplies"},
			wantErr: pix.ErrOutcomeUnknown,
			points: []string{
				"http.client.request.duration{error.type=transport," + post + "," + pipe + "} count=4 sum=0",
				"pix.attempts{http.request.method=POST,outcome=transient} 4",
				"pix.payment.duration{outcome=unknown,pix.call=send} count=1 sum=0.175",
				"pix.payments{outcome=unknown,pix.call=send} 1",
				"pix.retry.wait{http.request.method=POST} count=3 sum=0.175",
			},
			spans: []string{
				"POST client in pix.send: error.type=transport,outcome=transient,pix.attempt=1,pix.retry.wait=0.025 [Error]",
				"POST client in pix.send: error.type=transport,http.request.resend_count=1,outcome=transient,pix.attempt=2,pix.retry.wait=0.05 [Error]",
				"POST client in pix.send: error.type=transport,http.request.resend_count=2,outcome=transient,pix.attempt=3,pix.retry.wait=0.1 [Error]",
				"POST client in pix.send: error.type=transport,http.request.resend_count=3,outcome=transient,pix.attempt=4,pix.retry.stop=budget [Error]",
				"pix.send internal: outcome=unknown [Error]",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				faults, err := scenariofiles.Faults(tt.file)
				if err != nil {
					t.Fatal(err)
				}
				r := newRig(t, faults...)
				if _, err := r.client.Send(t.Context(), tt.payment); !errors.Is(err, tt.wantErr) {
					t.Fatalf("Send() error = %v, want %v", err, tt.wantErr)
				}
				if diff := cmp.Diff(tt.points, r.points(t)); diff != "" {
					t.Errorf("metric points (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.spans, r.spanLines(perRequest...)); diff != "" {
					t.Errorf("spans (-want +got):\n%s", diff)
				}
			})
		})
	}
}
