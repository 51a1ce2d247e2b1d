package control_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
	"pixretry/psp/control"
)

// controlOf is a control.Client of h, in process.
func controlOf(h http.Handler) control.Client {
	return control.Client{BaseURL: "http://psp.test", HTTPClient: &http.Client{Transport: inProcess(h)}}
}

// withControlToken mounts the control surface for Host psp.test and the token "ctl".
func withControlToken(o *control.Options) { o.Token, o.Hosts = "ctl", []string{"psp.test"} }

// TestControlClientDrivesAServer drives a Server that checks the Host, the token and the
// Content-Type of the requests that change state.
func TestControlClientDrivesAServer(t *testing.T) {
	ctx := context.Background()
	s := mustBank(t, withControlToken)
	c := controlOf(s)
	c.Token = "ctl"
	if err := c.Inject(ctx); err != nil {
		t.Fatalf("Inject() with no faults: error = %v", err)
	}
	if err := c.Inject(ctx, psp.Status(503), psp.Status(504).ForLookup(), psp.Status(502)); err != nil {
		t.Fatalf("Inject() error = %v", err)
	}
	wantProblem(t, lookUp(s, "k1"), 504, "injected_fault")
	wantProblem(t, pay(s, "k1", validBody), 503, "injected_fault")
	if err := c.ClearFaults(ctx); err != nil {
		t.Fatalf("ClearFaults() error = %v", err)
	}
	wantSettled(t, pay(s, "k1", validBody))
	wantSettled(t, pay(s, "k2", `{"valor":"0.01","chave":"12345678901"}`))
	wantProblem(t, lookUp(s, "k3"), 404, "payment_not_found")

	if got, err := c.BalanceCents(ctx); err != nil || got != s.Stats().BalanceCents {
		t.Errorf("BalanceCents() = %d, %v; want %d, nil", got, err, s.Stats().BalanceCents)
	}
	want := psp.Stats{Requests: 3, Lookups: 2, Settled: 2, Keys: 2, ClosedKeys: 1, MaxInFlight: 1}
	if got, err := c.Stats(ctx); err != nil || got != want {
		t.Errorf("Stats() = %+v, %v; want %+v", got, err, want)
	}
	ledger := s.Settlements()
	for i := range ledger {
		ledger[i].Token, ledger[i].Description = "", "" // the control API does not carry them
	}
	got, err := c.Settlements(ctx)
	if diff := cmp.Diff(ledger, got); err != nil || diff != "" {
		t.Errorf("Settlements() error = %v, diff (-Server.Settlements +ControlClient.Settlements):\n%s", err, diff)
	}

	if err := c.Reset(ctx); err != nil {
		t.Fatalf("Reset() error = %v", err)
	}
	if got, want := s.Stats().BalanceCents, psp.DefaultConfig().BalanceCents; got != want || len(s.Settlements()) != 0 {
		t.Errorf("after Reset() the balance is %d and the ledger holds %d, want %d and none", got, len(s.Settlements()), want)
	}
}

func TestControlClientOverLoopbackWithTheDefaultClient(t *testing.T) {
	ts := httptest.NewServer(mustBank(t))
	t.Cleanup(ts.Close)
	t.Cleanup(http.DefaultClient.CloseIdleConnections)
	got, err := control.Client{BaseURL: ts.URL}.BalanceCents(context.Background())
	if want := psp.DefaultConfig().BalanceCents; err != nil || got != want {
		t.Errorf("BalanceCents() = %d, %v; want %d, nil", got, err, want)
	}
}

func TestControlClientErrors(t *testing.T) {
	answering := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(body)) }
	}
	settlement := func(valor, horario string) http.HandlerFunc {
		return answering(`{"count":1,"settlements":[{"endToEndId":"E1","idempotencyKey":"k","valor":"` +
			valor + `","chave":"12345678901","horario":"` + horario + `"}]}`)
	}
	const at = "2026-01-02T03:04:05.123Z"
	tests := []struct {
		name string
		c    control.Client
		call func(context.Context, control.Client) error
		want string // in the error
	}{
		{"control API off", controlOf(mustServer(t)), reset, "POST /_psp/reset: status 404, want 204"},
		{"no token", controlOf(mustBank(t, withControlToken)), reset, "POST /_psp/reset: status 401, want 204"},
		{"no token to read", controlOf(mustBank(t, withControlToken)), balance, "GET /_psp/balance: status 401, want 200"},
		{"faults refused", controlOf(answering("")), inject, "POST /_psp/faults: status 200, want 204"},
		{"clear refused", controlOf(mustServer(t)), clearFaults, "DELETE /_psp/faults: status 404"},
		{"balance not JSON", controlOf(answering("850.00")), balance, "GET /_psp/balance: decoding the answer"},
		{"balance not an amount", controlOf(answering(`{"balance":"850"}`)), balance, `GET /_psp/balance: psp: amount "850" is not`},
		{"balance refused", controlOf(mustServer(t)), balance, "GET /_psp/balance: status 404"},
		{"ledger not JSON", controlOf(answering("[")), settlements, "GET /_psp/settlements: decoding the answer"},
		{"ledger refused", controlOf(mustServer(t)), settlements, "GET /_psp/settlements: status 404"},
		{"stats refused", controlOf(mustServer(t)), stats, "GET /_psp/stats: status 404"},
		{"journal refused", controlOf(mustServer(t)), requests, "GET /_psp/requests: status 404, want 200"},
		{"journal not JSON", controlOf(answering("[")), requests, "GET /_psp/requests: decoding the answer"},
		{"request arrived", controlOf(answering(`{"count":1,"dropped":0,"requests":[{"seq":1,"arrived":"yesterday"}]}`)),
			requests, `GET /_psp/requests: request 0: parsing time "yesterday"`},
		{"filter refused", controlOf(mustBank(t)), func(ctx context.Context, c control.Client) error {
			_, _, err := c.Requests(ctx, psp.RequestFilter{Status: 42})
			return err
		}, `GET /_psp/requests?status=42: status 400, want 200: {"type":"urn:pixretry:psp:problem:invalid_request"`},
		{"settlement valor", controlOf(settlement("1", at)), settlements, `settlement 0: psp: amount "1" is not`},
		{"settlement horario", controlOf(settlement("1.00", "yesterday")), settlements, `settlement 0: parsing time "yesterday"`},
		{"bad base URL", control.Client{BaseURL: "http://psp.test\x7f"}, reset, "POST /_psp/reset: parse"},
		{"transport error", control.Client{BaseURL: "http://psp.test", HTTPClient: &http.Client{
			Transport: roundTripper(func(*http.Request) (*http.Response, error) { return nil, errors.New("boom") }),
		}}, reset, "POST /_psp/reset: Post \"http://psp.test/_psp/reset\": boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(context.Background(), tt.c)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestControlClientInjectRefusesAnInvalidFault(t *testing.T) {
	sent := 0
	c := controlOf(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { sent++ }))
	if err := c.Inject(context.Background(), psp.Drop(), psp.Fault{}); !errors.Is(err, psp.ErrInvalidFault) || sent != 0 {
		t.Errorf("Inject(Drop(), Fault{}) = %v after %d requests, want %v and none", err, sent, psp.ErrInvalidFault)
	}
}

func reset(ctx context.Context, c control.Client) error       { return c.Reset(ctx) }
func inject(ctx context.Context, c control.Client) error      { return c.Inject(ctx, psp.Drop()) }
func clearFaults(ctx context.Context, c control.Client) error { return c.ClearFaults(ctx) }

func balance(ctx context.Context, c control.Client) error {
	_, err := c.BalanceCents(ctx)
	return err
}

func settlements(ctx context.Context, c control.Client) error {
	_, err := c.Settlements(ctx)
	return err
}

func stats(ctx context.Context, c control.Client) error {
	_, err := c.Stats(ctx)
	return err
}

func requests(ctx context.Context, c control.Client) error {
	_, _, err := c.Requests(ctx, psp.RequestFilter{})
	return err
}
