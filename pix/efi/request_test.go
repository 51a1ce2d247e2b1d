package efi_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/pix/efi"
)

// payerKey is the double's payer (psp/efi's PayerKey), and dialect the Dialect that pays from it.
const payerKey = "pagador@pixretry.example"

var dialect = efi.Dialect{PayerKey: payerKey}

// request is what a test checks of a request a Dialect wrote.
type request struct {
	Method, URL, ContentType, Body string
}

func readRequest(t *testing.T, req *http.Request) request {
	t.Helper()
	r := request{Method: req.Method, URL: req.URL.String(), ContentType: req.Header.Get("Content-Type")}
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			t.Fatalf("reading the request body: %v", err)
		}
		r.Body = string(b)
	}
	return r
}

// TestPay: a payment is a PUT of Efí's body to /v2/gn/pix/{idEnvio} under the base URL, its
// path included. infoPagador is left out when the payment has no Description.
func TestPay(t *testing.T) {
	tests := []struct {
		name string
		base string
		p    pix.Payment
		want request
	}{
		{
			name: "with a description",
			base: "https://pix.api.efipay.com.br",
			p:    pix.Payment{AmountCents: 1234, PixKey: "+5531999998888", Description: "Segue o pagamento"},
			want: request{Method: http.MethodPut, URL: "https://pix.api.efipay.com.br/v2/gn/pix/abc123",
				ContentType: "application/json", Body: `{"valor":"12.34","pagador":{"chave":"pagador@pixretry.example",` +
					`"infoPagador":"Segue o pagamento"},"favorecido":{"chave":"+5531999998888"}}`},
		},
		{
			name: "without a description, under a base path",
			base: "http://127.0.0.1:8080/efi/",
			p:    pix.Payment{AmountCents: 999_999_999_999, PixKey: "19974764017"},
			want: request{Method: http.MethodPut, URL: "http://127.0.0.1:8080/efi/v2/gn/pix/abc123",
				ContentType: "application/json", Body: `{"valor":"9999999999.99","pagador":{"chave":` +
					`"pagador@pixretry.example"},"favorecido":{"chave":"19974764017"}}`},
		},
		{
			name: "one centavo",
			base: "http://psp",
			p:    pix.Payment{AmountCents: 1, PixKey: "19974764017"},
			want: request{Method: http.MethodPut, URL: "http://psp/v2/gn/pix/abc123", ContentType: "application/json",
				Body: `{"valor":"0.01","pagador":{"chave":"pagador@pixretry.example"},"favorecido":{"chave":"19974764017"}}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, _ := url.Parse(tt.base)
			req, err := dialect.Pay(t.Context(), base, "abc123", tt.p)
			if err != nil {
				t.Fatalf("Pay() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, readRequest(t, req)); diff != "" {
				t.Errorf("Pay() request (-want +got):\n%s", diff)
			}
			if req.Context() != t.Context() {
				t.Errorf("Pay() request has another context than the one given")
			}
		})
	}
}

// TestPayRefusesWithoutPayerKey: Pay writes no request while PayerKey is not a Pix key, and
// returns Validate's error.
func TestPayRefusesWithoutPayerKey(t *testing.T) {
	base, _ := url.Parse("http://psp")
	for _, d := range []efi.Dialect{{}, {PayerKey: "pagador"}} {
		req, err := d.Pay(t.Context(), base, "abc123", pix.Payment{AmountCents: 1, PixKey: "19974764017"})
		if want := d.Validate(); req != nil || err == nil || err.Error() != want.Error() ||
			!errors.Is(err, pix.ErrInvalidPayment) {
			t.Errorf("%+v.Pay() = %v, %v; want no request and %v", d, req, err, want)
		}
	}
}

// TestPayRefusesANilContext: Pay returns the error of a request it cannot write, and no
// request.
func TestPayRefusesANilContext(t *testing.T) {
	var none context.Context
	base, _ := url.Parse("http://psp")
	req, err := dialect.Pay(none, base, "abc123", payment)
	if want := "net/http: nil Context"; req != nil || err == nil || err.Error() != want {
		t.Errorf("Pay(nil, ...) = %v, %v; want no request and %q", req, err, want)
	}
}

// TestLook: a lookup is a GET of /v2/gn/pix/enviados/id-envio/{idEnvio}, with no body, which
// needs no PayerKey and no Ref.
func TestLook(t *testing.T) {
	base, _ := url.Parse("http://127.0.0.1:8080/efi")
	req, err := efi.Dialect{}.Look(t.Context(), base, "abc123", pix.Ref{})
	if err != nil {
		t.Fatalf("Look() error = %v", err)
	}
	want := request{Method: http.MethodGet, URL: "http://127.0.0.1:8080/efi/v2/gn/pix/enviados/id-envio/abc123"}
	if diff := cmp.Diff(want, readRequest(t, req)); diff != "" {
		t.Errorf("Look() request (-want +got):\n%s", diff)
	}
	if req.Context() != t.Context() {
		t.Errorf("Look() request has another context than the one given")
	}
}
