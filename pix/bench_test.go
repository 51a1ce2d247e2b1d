package pix_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"pixretry/internal/pipenet"
	"pixretry/pix"
	"pixretry/psp"
)

// BenchmarkSend measures one payment through the client and the real psp handler over an
// in-memory connection: "settle" makes a new payment every time (a new key, a debit, a ledger
// entry), "replay" sends the same key again and gets the stored answer.
func BenchmarkSend(b *testing.B) {
	b.Run("settle", func(b *testing.B) {
		f := newFixture(b, psp.Config{BalanceCents: richBalance})
		c := f.client(quiet)
		p := pix.Payment{AmountCents: 1, PixKey: "pix@example.com"}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Send(b.Context(), p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("replay", func(b *testing.B) {
		f := newFixture(b, psp.Config{BalanceCents: richBalance})
		c := f.client(quiet)
		p := pix.Payment{AmountCents: 1, PixKey: "pix@example.com"}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.SendWithKey(b.Context(), "order-1", p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func quiet(c *pix.Client) { c.Logger = nil }

// BenchmarkBareNetHTTP is the floor BenchmarkSend is measured against: a plain net/http POST
// over the same in-memory connection to a handler that answers a fixed 201, the body read and
// closed, without pix, retry or psp.
func BenchmarkBareNetHTTP(b *testing.B) {
	srv := pipenet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		writeSettled(w, validSettled())
	}))
	defer srv.Close()
	hc := srv.Client()
	body := []byte(`{"valor":"0.01","chave":"pix@example.com"}`)
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequestWithContext(b.Context(), http.MethodPost, srv.URL+psp.PaymentsPath, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
