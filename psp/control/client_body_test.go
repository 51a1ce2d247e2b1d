package control_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
	"pixretry/psp/control"
)

// everyCall calls each method of the control Client once and returns their errors.
func everyCall(ctx context.Context, c control.Client) []error {
	_, errBalance := c.BalanceCents(ctx)
	_, errLedger := c.Settlements(ctx)
	_, errStats := c.Stats(ctx)
	return []error{c.Inject(ctx, psp.Drop()), c.ClearFaults(ctx), c.Reset(ctx), errBalance, errLedger, errStats}
}

// sentRequest is what a control request carries besides its body.
type sentRequest struct {
	Method, Path, ContentType, Authorization string
}

// TestControlClientSendsTheTokenAndContentType: each request to a PSP with the Client's control
// token carries "Authorization: Bearer <Token>" only when the Token is set, and Content-Type
// application/json only when it changes state.
func TestControlClientSendsTheTokenAndContentType(t *testing.T) {
	for _, tok := range []string{"", "ctl"} {
		t.Run("Token "+tok, func(t *testing.T) {
			var sent []sentRequest
			server := inProcess(mustBank(t, func(o *control.Options) { o.Token = tok }))
			c := control.Client{BaseURL: "http://psp.test", Token: tok, HTTPClient: &http.Client{
				Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
					sent = append(sent, sentRequest{r.Method, r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("Authorization")})
					return server(r)
				}),
			}}
			for _, err := range everyCall(context.Background(), c) {
				if err != nil {
					t.Errorf("call error = %v", err)
				}
			}
			bearer := ""
			if tok != "" {
				bearer = "Bearer " + tok
			}
			want := []sentRequest{
				{"GET", control.BalancePath, "", bearer},
				{"GET", control.SettlementsPath, "", bearer},
				{"GET", control.StatsPath, "", bearer},
				{"POST", control.FaultsPath, "application/json", bearer},
				{"DELETE", control.FaultsPath, "application/json", bearer},
				{"POST", control.ResetPath, "application/json", bearer},
			}
			if diff := cmp.Diff(want, sent); diff != "" {
				t.Errorf("requests sent mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// closeCounter counts the closes of an answer's body.
type closeCounter struct {
	io.ReadCloser
	closes *int
}

func (c closeCounter) Close() error {
	*c.closes++
	return c.ReadCloser.Close()
}

// TestControlClientClosesEveryAnswer: the Client closes the body of every answer it gets, the
// expected ones and the refusals, so that no connection is left held.
func TestControlClientClosesEveryAnswer(t *testing.T) {
	tests := []struct {
		name    string
		h       http.Handler
		refused bool // every call gets an answer it does not expect (404)
	}{
		{"expected answers", mustBank(t), false},
		{"refusals", mustServer(t), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answers, closes := 0, 0
			server := inProcess(tt.h)
			c := control.Client{BaseURL: "http://psp.test", HTTPClient: &http.Client{
				Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
					resp, err := server(r)
					answers++
					resp.Body = closeCounter{resp.Body, &closes}
					return resp, err
				}),
			}}
			for _, err := range everyCall(context.Background(), c) {
				if refused := err != nil; refused != tt.refused {
					t.Errorf("call error = %v, want an error: %t", err, tt.refused)
				}
			}
			if answers != 6 || closes != answers {
				t.Errorf("%d answers, %d bodies closed; want 6 and each closed once", answers, closes)
			}
		})
	}
}
