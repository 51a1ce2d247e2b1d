package psp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	"pixretry/psp"
)

func ExampleNewServer() {
	srv, err := psp.NewServer(psp.DefaultConfig())
	if err != nil {
		panic(err)
	}
	ts := httptest.NewServer(srv) // or http.ListenAndServe(addr, srv)
	defer ts.Close()

	req, _ := http.NewRequest(http.MethodPost, ts.URL+psp.PaymentsPath,
		strings.NewReader(`{"valor":"150.00","chave":"pix@example.com"}`))
	req.Header.Set("Authorization", "Bearer test-token")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "order-42")
	resp, err := ts.Client().Do(req)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Status)
	fmt.Println(psp.FormatAmount(srv.Stats().BalanceCents))
	// Output:
	// 201 Created
	// 850.00
}

func ExampleServer_Inject() {
	srv, _ := psp.NewServer(psp.DefaultConfig())
	srv.Inject(psp.Fault{Kind: "status", Status: 503, RetryAfter: 2 * time.Second}, psp.Status(503))

	send := func() {
		req := httptest.NewRequest(http.MethodPost, psp.PaymentsPath,
			strings.NewReader(`{"valor":"150.00","chave":"pix@example.com"}`))
		req.Header.Set("Authorization", "Bearer test-token")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "order-42") // the same key on every attempt
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		fmt.Printf("%d Retry-After=%q Idempotent-Replayed=%q\n",
			rec.Code, rec.Header().Get("Retry-After"), rec.Header().Get("Idempotent-Replayed"))
	}
	send() // 503 with Retry-After
	send() // 503
	send() // settles
	send() // replays
	fmt.Println(len(srv.Settlements()), "settlement")
	// Output:
	// 503 Retry-After="2" Idempotent-Replayed=""
	// 503 Retry-After="" Idempotent-Replayed=""
	// 201 Retry-After="" Idempotent-Replayed=""
	// 201 Retry-After="" Idempotent-Replayed="true"
	// 1 settlement
}

// The journal tells what a client sent and what it got: here a payment met a 503, was retried
// under its key, and was retried again after it settled.
func ExampleServer_Requests() {
	srv, _ := psp.NewServer(psp.DefaultConfig())
	srv.Inject(psp.Status(503))
	for range 3 {
		req := httptest.NewRequest(http.MethodPost, psp.PaymentsPath,
			strings.NewReader(`{"valor":"150.00","chave":"pix@example.com"}`))
		req.Header.Set("Authorization", "Bearer test-token")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "order-42")
		srv.ServeHTTP(httptest.NewRecorder(), req)
	}
	requests, dropped := srv.Requests(psp.RequestFilter{Key: "order-42"})
	for _, r := range requests {
		fmt.Printf("%d %s %s token=%d fault=%q status=%d replayed=%t\n", r.Seq, r.Method, r.Path, r.Token, r.Fault,
			r.Status, r.Replayed)
	}
	fmt.Println(dropped, "dropped")
	// Output:
	// 1 POST /v1/pix/payments token=1 fault="status" status=503 replayed=false
	// 2 POST /v1/pix/payments token=1 fault="" status=201 replayed=false
	// 3 POST /v1/pix/payments token=1 fault="" status=201 replayed=true
	// 0 dropped
}

func ExampleFault_Validate() {
	fmt.Println(psp.Slow(1500 * time.Millisecond).Validate())
	fmt.Println(psp.Redirect(404).Validate())
	// Output:
	// <nil>
	// psp: invalid fault: kind "redirect" takes a Status of 300 to 399
}

func ExampleParseBalance() {
	for _, s := range []string{"150.00", "0.00", "1.5"} {
		cents, err := psp.ParseBalance(s)
		fmt.Println(cents, err)
	}
	// Output:
	// 15000 <nil>
	// 0 <nil>
	// 0 psp: amount "1.5" is not 1 to 10 digits, a dot and 2 digits
}

func ExampleFormatAmount() {
	fmt.Println(psp.FormatAmount(15000), psp.FormatAmount(5))
	// Output: 150.00 0.05
}

// A chave that is not a Pix key in one of the five formats (CPF, CNPJ, phone, e-mail, EVP) gets
// 400 invalid_request, with a violation naming chave.
func ExampleServer_ServeHTTP_invalidPixKey() {
	srv, _ := psp.NewServer(psp.DefaultConfig())
	for _, k := range []string{"12345678901", "+5511987654321", "pix@example.com", "Pix@example.com"} {
		req := httptest.NewRequest(http.MethodPost, psp.PaymentsPath,
			strings.NewReader(`{"valor":"1.00","chave":"`+k+`"}`))
		req.Header.Set("Authorization", "Bearer test-token")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "order-"+k)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusBadRequest {
			fmt.Println(k, rec.Code)
			continue
		}
		var problem struct {
			Code      string
			Violacoes []struct{ Campo string }
		}
		json.Unmarshal(rec.Body.Bytes(), &problem)
		fmt.Println(k, rec.Code, problem.Code, problem.Violacoes[0].Campo)
	}
	// Output:
	// 12345678901 201
	// +5511987654321 201
	// pix@example.com 201
	// Pix@example.com 400 invalid_request chave
}

// A status lookup tells what became of a key, however long ago the PSP forgot it. Its 404
// proves that nothing was paid under the key, and closes the key so that nothing ever is.
func ExampleServer_ServeHTTP_lookup() {
	srv, _ := psp.NewServer(psp.DefaultConfig())
	do := func(method, key string) {
		var req *http.Request
		if method == http.MethodGet {
			query := url.Values{psp.LookupParam: {key}}.Encode()
			req = httptest.NewRequest(method, psp.PaymentsPath+"?"+query, nil)
		} else {
			req = httptest.NewRequest(method, psp.PaymentsPath, strings.NewReader(`{"valor":"150.00","chave":"pix@example.com"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", key)
		}
		req.Header.Set("Authorization", "Bearer test-token")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		var body struct{ Code, Valor string }
		json.Unmarshal(rec.Body.Bytes(), &body)
		fmt.Println(method, key, rec.Code, body.Code+body.Valor)
	}
	do(http.MethodPost, "order-42")
	do(http.MethodGet, "order-42") // the settlement's receipt
	do(http.MethodGet, "order-43") // nothing was paid: the key is closed
	do(http.MethodPost, "order-43")
	fmt.Println(len(srv.Settlements()), "settlement")
	// Output:
	// POST order-42 201 150.00
	// GET order-42 200 150.00
	// GET order-43 404 payment_not_found
	// POST order-43 422 idempotency_key_closed
	// 1 settlement
}

func ExamplePending() {
	cfg := psp.DefaultConfig()
	ended := make(chan psp.Ended, 1)
	cfg.OnEnd = func(e psp.Ended) { ended <- e }
	srv, _ := psp.NewServer(cfg)
	defer srv.Close()
	srv.Inject(psp.Pending(0, "rejected")) // accepted, then rejected at once, as -reject-range does

	send := func() {
		req := httptest.NewRequest(http.MethodPost, psp.PaymentsPath,
			strings.NewReader(`{"valor":"150.00","chave":"pix@example.com"}`))
		req.Header.Set("Authorization", "Bearer test-token")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", "order-42")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		var body map[string]any
		json.Unmarshal(rec.Body.Bytes(), &body)
		if rec.Code >= 300 {
			fmt.Println(rec.Code, body["code"]) // a problem
		} else {
			fmt.Println(rec.Code, body["status"]) // the payment's status
		}
	}
	send() // accepted: the valor is held
	e := <-ended
	fmt.Println(e.IdempotencyKey, e.Status)
	send() // the replay says the payment was rejected
	fmt.Println(psp.FormatAmount(srv.Stats().BalanceCents))
	// Output:
	// 202 EM_PROCESSAMENTO
	// order-42 NAO_REALIZADO
	// 422 payment_rejected
	// 1000.00
}
