package pix_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
)

// webhookSecret is the secret the tests' PSP and handler share, 32 bytes as the PSP's least.
var webhookSecret = []byte("0123456789abcdef0123456789abcdef")

// webhookNow is the handler's clock in these tests.
var webhookNow = time.Date(2025, 1, 2, 15, 4, 5, 0, time.UTC)

// validDelivery is a delivery's body as the PSP sends it: a settlement of the test payment.
func validDelivery() map[string]any {
	return map[string]any{
		"id":             "wh_0123456789abcdefghij",
		"endToEndId":     "E12345678202501021504abcDEF12345",
		"idempotencyKey": "order-42",
		"status":         "REALIZADO",
		"valor":          "150.00",
		"horario":        "2025-01-02T15:04:00Z",
	}
}

// deliveryWith is validDelivery with member set to v; a nil v removes the member.
func deliveryWith(member string, v any) string {
	b := validDelivery()
	b[member] = v
	if v == nil {
		delete(b, member)
	}
	return encoded(b)
}

// signAt is the Pix-Signature of body signed at t under secret, as the PSP writes it.
func signAt(secret []byte, t time.Time, body string) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + mac(secret, ts+"."+body)
}

// mac is the hex HMAC-SHA256 of text under secret.
func mac(secret []byte, text string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(text))
	return hex.EncodeToString(m.Sum(nil))
}

// applier is a WebhookHandler's Apply that keeps what it is given and answers err, or what
// answer says if it is set. It is safe for concurrent use.
type applier struct {
	err    error
	answer func(pix.Webhook) error // called under mu

	mu  sync.Mutex
	got []pix.Webhook
}

func (a *applier) apply(_ context.Context, w pix.Webhook) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.got = append(a.got, w)
	if a.answer != nil {
		return a.answer(w)
	}
	return a.err
}

// applied returns what Apply was given so far.
func (a *applier) applied() []pix.Webhook {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]pix.Webhook(nil), a.got...)
}

// handlerOf is a handler with the test secret and clock that applies with a.
func handlerOf(a *applier) pix.WebhookHandler {
	return pix.WebhookHandler{Secret: webhookSecret, Apply: a.apply, Now: func() time.Time { return webhookNow }}
}

// deliver posts body with the Pix-Signature sig (none if empty) to h, and returns the answer.
func deliver(h http.Handler, sig, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if sig != "" {
		req.Header.Set("Pix-Signature", sig)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// webhookProblem is the problem+json body of a refusal.
type webhookProblem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	Code   string `json:"code"`
}

// problemOf decodes the problem that rec answered with status, or fails the test.
func problemOf(t *testing.T, rec *httptest.ResponseRecorder, status int) webhookProblem {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status = %d, want %d; body %s", rec.Code, status, rec.Body)
	}
	if got := rec.Header().Get("Content-Type"); got != "application/problem+json" {
		t.Errorf("Content-Type = %q, want application/problem+json", got)
	}
	var p webhookProblem
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatalf("body %q is not a problem: %v", rec.Body, err)
	}
	if p.Status != status || p.Title != http.StatusText(status) || p.Type != "urn:pixretry:pix:webhook:"+p.Code {
		t.Errorf("problem = %+v, want status %d, its title, and a type naming its code", p, status)
	}
	return p
}

// TestWebhookAppliesASignedDelivery: a delivery signed now under the secret is decoded whole,
// applied once, and answered 204 with no body.
func TestWebhookAppliesASignedDelivery(t *testing.T) {
	for _, tc := range []struct {
		name        string
		body        string
		want        pix.Webhook
		wantSettled bool
	}{
		{"a settlement", encoded(validDelivery()), pix.Webhook{ID: "wh_0123456789abcdefghij",
			EndToEndID: "E12345678202501021504abcDEF12345", IdempotencyKey: "order-42", Status: "REALIZADO",
			AmountCents: 15000, At: time.Date(2025, 1, 2, 15, 4, 0, 0, time.UTC)}, true},
		{"a rejection", deliveryWith("status", "NAO_REALIZADO"), pix.Webhook{ID: "wh_0123456789abcdefghij",
			EndToEndID: "E12345678202501021504abcDEF12345", IdempotencyKey: "order-42", Status: "NAO_REALIZADO",
			AmountCents: 15000, At: time.Date(2025, 1, 2, 15, 4, 0, 0, time.UTC)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &applier{}

			rec := deliver(handlerOf(a), signAt(webhookSecret, webhookNow, tc.body), tc.body)

			if rec.Code != http.StatusNoContent || rec.Body.Len() != 0 {
				t.Errorf("answer = %d %q, want 204 and no body", rec.Code, rec.Body)
			}
			if diff := cmp.Diff([]pix.Webhook{tc.want}, a.got); diff != "" {
				t.Fatalf("Apply() got (-want +got):\n%s", diff)
			}
			if got := a.got[0].Settled(); got != tc.wantSettled {
				t.Errorf("Settled() = %v, want %v", got, tc.wantSettled)
			}
		})
	}
}

// TestWebhookRefusesABadSignature: a delivery whose Pix-Signature is missing, malformed, made
// under another secret or over another body, or signed more than 300 s from now either way,
// is refused with 401 and never applied.
func TestWebhookRefusesABadSignature(t *testing.T) {
	body := encoded(validDelivery())
	now := strconv.FormatInt(webhookNow.Unix(), 10)
	good := mac(webhookSecret, now+"."+body)
	for _, tc := range []struct {
		name, sig, want string
	}{
		{"missing", "", "must be"},
		{"empty", " ", "must be"},
		{"without t", "v1=" + good, "must be"},
		{"without v1", "t=" + now, "must be"},
		{"t twice", "t=" + now + ",t=" + now + ",v1=" + good, "must be"},
		{"t negative", "t=-" + now + ",v1=" + good, "must be"},
		{"t with a plus sign", "t=+" + now + ",v1=" + good, "must be"},
		{"t not a number", "t=yesterday,v1=" + good, "must be"},
		{"t beyond int64", "t=99999999999999999999,v1=" + good, "must be"},
		{"v1 not hex", "t=" + now + ",v1=" + strings.Repeat("z", 64), "must be"},
		{"v1 empty", "t=" + now + ",v1=", "must be"},
		{"another secret", signAt([]byte("another secret, 32 bytes long..."), webhookNow, body), "does not sign"},
		{"another body", signAt(webhookSecret, webhookNow, deliveryWith("valor", "1500.00")), "does not sign"},
		{"v1 cut short", "t=" + now + ",v1=" + good[:62], "does not sign"},
		{"v1 upper case of another MAC", "t=" + now + ",v1=" + strings.ToUpper(mac(webhookSecret, body)), "does not sign"},
		{"t changed after signing", "t=" + strconv.FormatInt(webhookNow.Unix()+1, 10) + ",v1=" + good, "does not sign"},
		{"signed 301 s ago", signAt(webhookSecret, webhookNow.Add(-301*time.Second), body), "5m1s ago, more than 5m0s"},
		{"signed 301 s ahead", signAt(webhookSecret, webhookNow.Add(301*time.Second), body), "5m1s ahead, more than 5m0s"},
		{"signed in 1970", signAt(webhookSecret, time.Unix(0, 0), body), "ago"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &applier{}

			p := problemOf(t, deliver(handlerOf(a), tc.sig, body), http.StatusUnauthorized)

			if p.Code != "invalid_signature" || !strings.Contains(p.Detail, tc.want) {
				t.Errorf("problem = %+v, want code invalid_signature and a detail that says %q", p, tc.want)
			}
			if strings.Contains(p.Detail, good) {
				t.Errorf("problem detail %q shows the expected MAC", p.Detail)
			}
			if len(a.got) != 0 {
				t.Errorf("Apply() got %+v, want nothing applied", a.got)
			}
		})
	}
}

// TestWebhookSignatureEdges: t may be 300 s from now either way, the header may carry
// other members and several v1 (one of which signs), and the MAC's hex may be in upper case.
func TestWebhookSignatureEdges(t *testing.T) {
	body := encoded(validDelivery())
	now := strconv.FormatInt(webhookNow.Unix(), 10)
	good := mac(webhookSecret, now+"."+body)
	for _, tc := range []struct{ name, sig string }{
		{"signed 300 s ago", signAt(webhookSecret, webhookNow.Add(-300*time.Second), body)},
		{"signed 300 s ahead", signAt(webhookSecret, webhookNow.Add(300*time.Second), body)},
		{"another member", "t=" + now + ",v0=abc,v1=" + good},
		{"spaces after commas", "t=" + now + ", v1=" + good},
		{"v1 last of two", "t=" + now + ",v1=" + strings.Repeat("0", 64) + ",v1=" + good},
		{"v1 first of two", "t=" + now + ",v1=" + good + ",v1=" + strings.Repeat("0", 64)},
		{"v1 in upper case", "t=" + now + ",v1=" + strings.ToUpper(good)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &applier{}
			if rec := deliver(handlerOf(a), tc.sig, body); rec.Code != http.StatusNoContent || len(a.got) != 1 {
				t.Errorf("answer = %d %s after %d applied, want 204 after 1", rec.Code, rec.Body, len(a.got))
			}
		})
	}
}

// TestWebhookRefusesABadBody: a signed body that is not one JSON object with exactly the six
// members, each a string it takes, is refused with 400 naming each member at fault and what
// it takes, and never applied.
func TestWebhookRefusesABadBody(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string // in the detail
	}{
		{"not JSON", "<html>paid</html>", []string{"not valid JSON"}},
		{"empty", "", []string{"not valid JSON"}},
		{"truncated", encoded(validDelivery())[:40], []string{"not valid JSON"}},
		{"two objects", encoded(validDelivery()) + encoded(validDelivery()), []string{"not valid JSON"}},
		{"an array", "[]", []string{"an array, want a JSON object"}},
		{"null", "null", []string{"null, want a JSON object"}},
		{"a string", `"REALIZADO"`, []string{"a string, want a JSON object"}},
		{"invalid UTF-8", strings.Replace(encoded(validDelivery()), "wh_", "wh_\xff", 1), []string{"not valid JSON"}},
		{"a member twice", strings.Replace(encoded(validDelivery()), `"valor":"150.00"`,
			`"valor":"150.00","valor":"1.00"`, 1), []string{"not valid JSON", "valor"}},
		{"an unknown member", deliveryWith("taxa", "0.00"), []string{`member "taxa" is unknown`}},
		{"a member in another case", strings.Replace(encoded(validDelivery()), `"status"`, `"Status"`, 1),
			[]string{`member "status" is missing`, `member "Status" is unknown`}},
		{"id missing", deliveryWith("id", nil), []string{`member "id" is missing: want a string, 1 to 255`}},
		{"id empty", deliveryWith("id", ""), []string{`member "id" is "": want 1 to 255 visible ASCII`}},
		{"endToEndId missing", deliveryWith("endToEndId", nil), []string{`member "endToEndId" is missing`}},
		{"endToEndId 31 characters", deliveryWith("endToEndId", "E12345678202501021504abcDEF1234"),
			[]string{`member "endToEndId" is "E12345678202501021504abcDEF1234": want E, an 8-digit ISPB`}},
		{"endToEndId month 13", deliveryWith("endToEndId", "E12345678202513021504abcDEF12345"),
			[]string{`member "endToEndId"`}},
		{"idempotencyKey missing", deliveryWith("idempotencyKey", nil), []string{`member "idempotencyKey" is missing`}},
		{"idempotencyKey with a space", deliveryWith("idempotencyKey", "order 42"),
			[]string{`member "idempotencyKey" is "order 42"`}},
		{"status missing", deliveryWith("status", nil), []string{`member "status" is missing`}},
		{"status pending", deliveryWith("status", "EM_PROCESSAMENTO"),
			[]string{`member "status" is "EM_PROCESSAMENTO": want "REALIZADO" or "NAO_REALIZADO"`}},
		{"status lower case", deliveryWith("status", "realizado"), []string{`member "status" is "realizado"`}},
		{"status a number", deliveryWith("status", 1), []string{`member "status" is a number: want a string`}},
		{"valor missing", deliveryWith("valor", nil), []string{`member "valor" is missing`}},
		{"valor a number", deliveryWith("valor", 150.00), []string{`member "valor" is a number: want a string, an amount`}},
		{"valor without decimals", deliveryWith("valor", "150"), []string{`member "valor" is "150": want an amount`}},
		{"valor 0.00", deliveryWith("valor", "0.00"), []string{`member "valor" is "0.00"`}},
		{"valor negative", deliveryWith("valor", "-150.00"), []string{`member "valor" is "-150.00"`}},
		{"horario missing", deliveryWith("horario", nil), []string{`member "horario" is missing`}},
		{"horario not a time", deliveryWith("horario", "yesterday"),
			[]string{`member "horario" is "yesterday": want an RFC 3339 time`}},
		{"horario without a zone", deliveryWith("horario", "2025-01-02T15:04:00"), []string{`member "horario"`}},
		{"horario null", deliveryWith("horario", json.RawMessage("null")), []string{`member "horario" is null`}},
		{"every member wrong", `{"id":1,"endToEndId":true,"idempotencyKey":[],"status":{},"valor":"x","horario":""}`,
			[]string{`"id" is a number`, `"endToEndId" is a boolean`, `"idempotencyKey" is an array`,
				`"status" is an object`, `"valor" is "x"`, `"horario" is ""`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &applier{}

			rec := deliver(handlerOf(a), signAt(webhookSecret, webhookNow, tc.body), tc.body)

			p := problemOf(t, rec, http.StatusBadRequest)
			for _, want := range tc.want {
				if p.Code != "invalid_webhook" || !strings.Contains(p.Detail, want) {
					t.Errorf("problem = %+v, want code invalid_webhook and a detail that says %q", p, want)
				}
			}
			if len(a.got) != 0 {
				t.Errorf("Apply() got %+v, want nothing applied", a.got)
			}
		})
	}
}

// TestWebhookReadsAtMost64KiB: a body of 64 KiB is read whole, and one byte more is refused with
// 413 before its signature is even checked, and never applied.
func TestWebhookReadsAtMost64KiB(t *testing.T) {
	for _, tc := range []struct {
		size int
		want int
	}{
		{64 << 10, http.StatusNoContent},
		{64<<10 + 1, http.StatusRequestEntityTooLarge},
		{1 << 20, http.StatusRequestEntityTooLarge},
	} {
		t.Run(strconv.Itoa(tc.size), func(t *testing.T) {
			a := &applier{}
			body := encoded(validDelivery())
			body = body[:len(body)-1] + strings.Repeat(" ", tc.size-len(body)) + "}"

			rec := deliver(handlerOf(a), signAt(webhookSecret, webhookNow, body), body)

			if tc.want == http.StatusNoContent {
				if rec.Code != tc.want || len(a.got) != 1 {
					t.Errorf("answer = %d %s after %d applied, want 204 after 1", rec.Code, rec.Body, len(a.got))
				}
				return
			}
			if p := problemOf(t, rec, tc.want); p.Code != "payload_too_large" || !strings.Contains(p.Detail, "65536") {
				t.Errorf("problem = %+v, want code payload_too_large and the limit", p)
			}
			if len(a.got) != 0 {
				t.Errorf("Apply() got %+v, want nothing applied", a.got)
			}
		})
	}
}

// TestWebhookAnswersAsApplyDid: Apply's nil is 204; ErrUnknownPayment, wrapped or not, is a 404
// that the PSP takes as final; any other error is a 503, so that the PSP delivers again. Each
// delivery reaches Apply once.
func TestWebhookAnswersAsApplyDid(t *testing.T) {
	for _, tc := range []struct {
		name     string
		err      error
		want     int
		wantCode string
	}{
		{"applied", nil, http.StatusNoContent, ""},
		{"unknown payment", pix.ErrUnknownPayment, http.StatusNotFound, "unknown_payment"},
		{"unknown payment, wrapped", fmt.Errorf("durable: key order-42: %w", pix.ErrUnknownPayment),
			http.StatusNotFound, "unknown_payment"},
		{"the store is down", errors.New("durable: database is locked"), http.StatusServiceUnavailable, "not_applied"},
		{"the context ended", context.Canceled, http.StatusServiceUnavailable, "not_applied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &applier{err: tc.err}
			body := encoded(validDelivery())

			rec := deliver(handlerOf(a), signAt(webhookSecret, webhookNow, body), body)

			if len(a.got) != 1 {
				t.Errorf("Apply() called %d times, want 1", len(a.got))
			}
			if tc.want == http.StatusNoContent {
				if rec.Code != tc.want {
					t.Errorf("status = %d, want 204", rec.Code)
				}
				return
			}
			p := problemOf(t, rec, tc.want)
			if p.Code != tc.wantCode {
				t.Errorf("problem code = %q, want %q", p.Code, tc.wantCode)
			}
			if tc.err != nil && strings.Contains(p.Detail, "database") {
				t.Errorf("problem detail %q shows Apply's error to the PSP", p.Detail)
			}
		})
	}
}

// TestWebhookRefusesWhatIsNoDelivery: a method other than POST is 405, and a handler without a
// Secret or an Apply answers 503, so that the PSP retries once it is set up. Nothing is applied.
func TestWebhookRefusesWhatIsNoDelivery(t *testing.T) {
	body := encoded(validDelivery())
	sig := signAt(webhookSecret, webhookNow, body)
	t.Run("GET", func(t *testing.T) {
		a := &applier{}
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set("Pix-Signature", sig)
		rec := httptest.NewRecorder()
		handlerOf(a).ServeHTTP(rec, req)
		if p := problemOf(t, rec, http.StatusMethodNotAllowed); p.Code != "method_not_allowed" ||
			rec.Header().Get("Allow") != http.MethodPost {
			t.Errorf("problem = %+v, Allow %q; want method_not_allowed and Allow: POST", p, rec.Header().Get("Allow"))
		}
		if len(a.got) != 0 {
			t.Errorf("Apply() got %+v, want nothing applied", a.got)
		}
	})
	for name, h := range map[string]pix.WebhookHandler{
		"no Secret": {Apply: (&applier{}).apply},
		"no Apply":  {Secret: webhookSecret},
		"zero":      {},
	} {
		t.Run(name, func(t *testing.T) {
			if p := problemOf(t, deliver(h, sig, body), http.StatusServiceUnavailable); p.Code != "not_configured" {
				t.Errorf("problem code = %q, want not_configured", p.Code)
			}
		})
	}
}

// TestWebhookClockDefaultsToNow: a handler without Now checks t against time.Now.
func TestWebhookClockDefaultsToNow(t *testing.T) {
	a := &applier{}
	h := pix.WebhookHandler{Secret: webhookSecret, Apply: a.apply}
	body := encoded(validDelivery())
	if rec := deliver(h, signAt(webhookSecret, time.Now(), body), body); rec.Code != http.StatusNoContent {
		t.Errorf("signed now: status = %d, want 204", rec.Code)
	}
	if rec := deliver(h, signAt(webhookSecret, webhookNow, body), body); rec.Code != http.StatusUnauthorized {
		t.Errorf("signed in January 2025: status = %d, want 401", rec.Code)
	}
}

// TestWebhookRefusalsSayWhy: each refusal's detail, word for word, as the PSP's log shows it.
// Its < and > stay as they are, not escaped for HTML.
func TestWebhookRefusalsSayWhy(t *testing.T) {
	body := encoded(validDelivery())
	signedAt := func(at time.Time, body string) *http.Request {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Pix-Signature", signAt(webhookSecret, at, body))
		return req
	}
	signed := func(body string) *http.Request { return signedAt(webhookNow, body) }
	ahead := webhookNow.Add(301 * time.Second)
	for _, tc := range []struct {
		name   string
		h      pix.WebhookHandler
		req    *http.Request
		status int
		code   string
		detail string
	}{
		{"a GET", handlerOf(&applier{}), httptest.NewRequest(http.MethodGet, "/", nil),
			http.StatusMethodNotAllowed, "method_not_allowed", "a webhook is a POST, not a GET"},
		{"no Secret", pix.WebhookHandler{Apply: (&applier{}).apply}, signed(body),
			http.StatusServiceUnavailable, "not_configured", "the webhook handler has no Secret or no Apply yet"},
		{"a body over 64 KiB", handlerOf(&applier{}), signed(strings.Repeat(" ", 64<<10) + body),
			http.StatusRequestEntityTooLarge, "payload_too_large", "the body must be at most 65536 bytes"},
		{"a body that breaks off", handlerOf(&applier{}), httptest.NewRequest(http.MethodPost, "/",
			io.MultiReader(strings.NewReader(body[:20]), iotest.ErrReader(io.ErrUnexpectedEOF))),
			http.StatusBadRequest, "invalid_webhook", "the body could not be read: unexpected EOF"},
		{"no signature", handlerOf(&applier{}), httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)),
			http.StatusUnauthorized, "invalid_signature",
			`pix: Pix-Signature must be "t=<unix seconds>,v1=<hex HMAC-SHA256 of <t>.<body>>"`},
		{"signed 301 s ahead", handlerOf(&applier{}), signedAt(ahead, body),
			http.StatusUnauthorized, "invalid_signature",
			"pix: Pix-Signature's t=" + strconv.FormatInt(ahead.Unix(), 10) + " is 5m1s ahead, more than 5m0s"},
		{"two members wrong", handlerOf(&applier{}),
			signed(strings.Replace(deliveryWith("taxa", "0.00"), "order-42", "order 42", 1)),
			http.StatusBadRequest, "invalid_webhook",
			`pix: the webhook body breaks its contract: member "idempotencyKey" is "order 42": want 1 to 255 visible ` +
				`ASCII characters; member "taxa" is unknown; the members are id, endToEndId, idempotencyKey, status, ` +
				`valor and horario`},
		{"an unknown payment", handlerOf(&applier{err: pix.ErrUnknownPayment}), signed(body),
			http.StatusNotFound, "unknown_payment",
			`no payment here has the idempotencyKey "order-42", and nothing was applied`},
		{"not applied", handlerOf(&applier{err: errors.New("durable: database is locked")}), signed(body),
			http.StatusServiceUnavailable, "not_applied", "the webhook was not applied: deliver it again later"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			tc.h.ServeHTTP(rec, tc.req)

			if p := problemOf(t, rec, tc.status); p.Code != tc.code || p.Detail != tc.detail {
				t.Errorf("problem code %q, detail %q; want %q, %q", p.Code, p.Detail, tc.code, tc.detail)
			}
			if strings.Contains(rec.Body.String(), `\u003c`) {
				t.Errorf("body %s escapes < for HTML, want it as it is", rec.Body)
			}
		})
	}
}
