package efi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	"pixretry/pix/efi"
)

// hookHMAC is the hmac the tests register, 32 bytes as the double's least secret.
const hookHMAC = "0123456789abcdef0123456789abcdef"

// entry is one Pix sent in a callback, settled: 150.00 under the idEnvio pagamento1.
const entry = `{"endToEndId":"E12345678202501021504abcDEF12345","chave":"pagador@pixretry.example",` +
	`"tipo":"SOLICITACAO","status":"REALIZADO","valor":"150.00","horario":"2025-01-02T15:04:05.000Z",` +
	`"gnExtras":{"idEnvio":"pagamento1"}}`

// rejectedEntry is Efí's example "Pix rejeitado", but for its endToEndId, which breaks the
// Central Bank's form: 0.01 under pagamento2, NAO_REALIZADO, with the erro that says why.
const rejectedEntry = `{"endToEndId":"E12345678202501021505abcDEF12346","chave":"pagador@pixretry.example",` +
	`"tipo":"SOLICITACAO","status":"NAO_REALIZADO","valor":"0.01","horario":null,"infoPagador":"0123456789",` +
	`"gnExtras":{"idEnvio":"pagamento2","erro":{"codigo":"AC03","origem":"PSP do usuário recebedor",` +
	`"motivo":"Número da agência e/ou conta transacional do usuário recebedor inexistente ou inválido"}}}`

// applied is an Apply that keeps what it is given and answers what answer says, nil if unset.
type applied struct {
	answer func(pix.Webhook) error
	mu     sync.Mutex
	got    []pix.Webhook
}

func (a *applied) apply(_ context.Context, w pix.Webhook) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.got = append(a.got, w)
	if a.answer == nil {
		return nil
	}
	return a.answer(w)
}

func (a *applied) webhooks() []pix.Webhook {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]pix.Webhook(nil), a.got...)
}

// post is the answer of h to a POST of body to target, its code and body.
func post(h http.Handler, method, target, body string) (int, string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, strings.NewReader(body)))
	return rec.Code, rec.Body.String()
}

// problem is a problem+json body of the handler.
func problem(status int, code, detail string) string {
	return `{"type":"urn:pixretry:pix:webhook:` + code + `","title":"` + http.StatusText(status) + `","status":` +
		strconv.Itoa(status) + `,"detail":` + quoted(detail) + `,"code":"` + code + `"}` + "\n"
}

// quoted is s as a JSON string.
func quoted(s string) string {
	b, _ := json.Marshal(s) // a detail holds no <, > or &, which encoding/json would escape
	return string(b)
}

// with is the callback of entry with member set to value, raw JSON; "" removes the member.
func with(member, value string) string { return editing(entry, member, value) }

// rejectedWith is the callback of rejectedEntry with member set to value, as with sets it.
func rejectedWith(member, value string) string { return editing(rejectedEntry, member, value) }

// editing is the callback of the entry e with member set to value, as with sets it.
func editing(e, member, value string) string {
	var m map[string]json.RawMessage
	json.Unmarshal([]byte(e), &m)
	if value == "" {
		delete(m, member)
	} else {
		m[member] = json.RawMessage(value)
	}
	b, _ := json.Marshal(m)
	return `{"pix":[` + string(b) + `]}`
}

// settledHook is what the handler gives Apply for entry.
var settledHook = pix.Webhook{ID: "E12345678202501021504abcDEF12345", EndToEndID: "E12345678202501021504abcDEF12345",
	IdempotencyKey: "pagamento1", Status: "REALIZADO", AmountCents: 15000,
	At: time.Date(2025, 1, 2, 15, 4, 5, 0, time.UTC)}

// TestWebhookHandlerRefuses: each callback at fault, with the exact answer, and nothing applied.
func TestWebhookHandlerRefuses(t *testing.T) {
	const to = "/webhook?hmac=" + hookHMAC + "&ignorar=/pix"
	const detail = "efi: the webhook body breaks Efí's form: "
	bad := func(d string) string { return problem(400, "invalid_webhook", detail+d) }
	tests := []struct {
		name, method, target, body string
		status                     int
		want                       string
	}{
		{"a GET", "GET", to, "", 405, problem(405, "method_not_allowed", "a webhook is a POST, not a GET")},
		{"no hmac", "POST", "/webhook?ignorar=/pix", `{"pix":[` + entry + `]}`, 401,
			problem(401, "invalid_hmac", "the URL must hold one hmac parameter, the one registered with the webhook")},
		{"a forged hmac", "POST", "/webhook?hmac=0123456789abcdef0123456789abcdeF", `{"pix":[` + entry + `]}`, 401,
			problem(401, "invalid_hmac", "the URL must hold one hmac parameter, the one registered with the webhook")},
		{"two hmacs", "POST", to + "&hmac=" + hookHMAC, `{"pix":[` + entry + `]}`, 401,
			problem(401, "invalid_hmac", "the URL must hold one hmac parameter, the one registered with the webhook")},
		{"64 KiB and a byte", "POST", to, strings.Repeat(" ", 64<<10+1), 413,
			problem(413, "payload_too_large", "the body must be at most 65536 bytes")},
		{"not JSON", "POST", to, `{"pix":`, 400, bad(`not valid JSON: jsontext: unexpected EOF within "/pix" after offset 7`)},
		{"an array", "POST", to, `[]`, 400, bad("is an array, want a JSON object")},
		{"no pix, another member", "POST", to, `{"txid":"x"}`, 400,
			bad("member pix is missing: want an array of the Pix sent; member txid is unknown")},
		{"pix empty", "POST", to, `{"pix":[]}`, 400, bad("member pix is empty: want at least one Pix sent")},
		{"pix an object", "POST", to, `{"pix":{}}`, 400, bad("member pix is an object: want an array of the Pix sent")},
		{"an entry not an object", "POST", to, `{"pix":[1]}`, 400, bad("member pix[0] is a number, want a JSON object")},
		{"idEnvio with a hyphen", "POST", to, with("gnExtras", `{"idEnvio":"pag-1"}`), 400,
			bad(`member pix[0].gnExtras.idEnvio is "pag-1": want 1 to 35 letters or digits`)},
		{"idEnvio of 36", "POST", to, with("gnExtras", `{"idEnvio":"`+strings.Repeat("a", 36)+`"}`), 400,
			bad(`member pix[0].gnExtras.idEnvio is "` + strings.Repeat("a", 36) + `": want 1 to 35 letters or digits`)},
		{"no gnExtras", "POST", to, with("gnExtras", ""), 400,
			bad("member pix[0].gnExtras is missing: want an object holding idEnvio")},
		{"gnExtras a string", "POST", to, with("gnExtras", `"x"`), 400,
			bad("member pix[0].gnExtras is a string, want a JSON object")},
		{"an erro not an object when REALIZADO: not read", "POST", to, with("gnExtras", `{"idEnvio":"a","erro":1}`), 400,
			bad(`member pix[0].gnExtras.erro is present: want it only if status is "NAO_REALIZADO"`)},
		{"erro when REALIZADO", "POST", to, with("gnExtras", `{"idEnvio":"a","erro":{"codigo":"AC03",`+
			`"origem":"PSP do usuário recebedor","motivo":"conta inexistente"}}`), 400,
			bad(`member pix[0].gnExtras.erro is present: want it only if status is "NAO_REALIZADO"`)},
		{"erro not an object, gnExtras unknown", "POST", to, rejectedWith("gnExtras", `{"idEnvio":"a","erro":1,"x":2}`),
			400, bad("member pix[0].gnExtras.erro is a number, want a JSON object; member pix[0].gnExtras.x is unknown")},
		{"erro null", "POST", to, rejectedWith("gnExtras", `{"idEnvio":"a","erro":null}`), 400,
			bad("member pix[0].gnExtras.erro is null, want a JSON object")},
		{"erro empty", "POST", to, rejectedWith("gnExtras", `{"idEnvio":"a","erro":{}}`), 400,
			bad(`member pix[0].gnExtras.erro.codigo is missing: want a string, a reason code, such as "AC03"; ` +
				`member pix[0].gnExtras.erro.origem is missing: want a string, who rejected the Pix, such as ` +
				`"PSP do usuário recebedor"; member pix[0].gnExtras.erro.motivo is missing: want a string, why, in words`)},
		{"erro's codigo a number", "POST", to, rejectedWith("gnExtras", `{"idEnvio":"a","erro":{"codigo":3,`+
			`"origem":"PSP do usuário recebedor","motivo":"conta inexistente","y":1}}`), 400,
			bad(`member pix[0].gnExtras.erro.codigo is a number: want a string, a reason code, such as "AC03"; ` +
				"member pix[0].gnExtras.erro.y is unknown")},
		{"erro's members empty", "POST", to, rejectedWith("gnExtras", `{"idEnvio":"a","erro":{"codigo":"",`+
			`"origem":"","motivo":""}}`), 400,
			bad(`member pix[0].gnExtras.erro.codigo is "": want a reason code, such as "AC03"; ` +
				`member pix[0].gnExtras.erro.origem is "": want who rejected the Pix, such as "PSP do usuário recebedor"; ` +
				`member pix[0].gnExtras.erro.motivo is "": want why, in words`)},
		{"tipo", "POST", to, with("tipo", `"RECEBIMENTO"`), 400,
			bad(`member pix[0].tipo is "RECEBIMENTO": want "SOLICITACAO"`)},
		{"status", "POST", to, with("status", `"EM_PROCESSAMENTO"`), 400,
			bad(`member pix[0].status is "EM_PROCESSAMENTO": want "REALIZADO" or "NAO_REALIZADO"`)},
		{"valor zero", "POST", to, with("valor", `"0.00"`), 400, bad(`member pix[0].valor is "0.00": want an amount ` +
			`of 0.01 to 9999999999.99 with two decimals, such as "150.00"`)},
		{"valor a number", "POST", to, with("valor", `150`), 400, bad(`member pix[0].valor is a number: want a ` +
			`string, an amount of 0.01 to 9999999999.99 with two decimals, such as "150.00"`)},
		{"horario not a time when NAO_REALIZADO", "POST", to, rejectedWith("horario", `"yesterday"`), 400,
			bad(`member pix[0].horario is "yesterday": want an RFC 3339 time, such as "2021-03-04T20:39:47.000Z", ` +
				`or null if status is "NAO_REALIZADO"`)},
		{"horario null when REALIZADO", "POST", to, with("horario", `null`), 400, bad(`member pix[0].horario is ` +
			`null: want a string, an RFC 3339 time, such as "2021-03-04T20:39:47.000Z", or null if status is "NAO_REALIZADO"`)},
		{"endToEndId", "POST", to, with("endToEndId", `"E090893562021030PIf25a7868"`), 400,
			bad(`member pix[0].endToEndId is "E090893562021030PIf25a7868": want E, an 8-digit ISPB, yyyyMMddHHmm ` +
				`and 11 letters or digits`)},
		{"chave of 78", "POST", to, with("chave", `"`+strings.Repeat("c", 78)+`"`), 400,
			bad(`member pix[0].chave is "` + strings.Repeat("c", 78) + `": want a Pix key of 1 to 77 characters`)},
		{"chave missing, txid unknown", "POST", to, strings.TrimSuffix(with("chave", ""), "}]}") + `,"txid":"t"}]}`, 400,
			bad(`member pix[0].chave is missing: want a string, a Pix key of 1 to 77 characters; ` +
				`member pix[0].txid is unknown`)},
		{"infoPagador of 141", "POST", to, with("infoPagador", `"`+strings.Repeat("i", 141)+`"`), 400,
			bad(`member pix[0].infoPagador is "` + strings.Repeat("i", 141) + `": want at most 140 characters`)},
		{"the second entry", "POST", to, `{"pix":[` + entry + `,` + strings.Replace(entry, `"SOLICITACAO"`, `null`, 1) + `]}`,
			400, bad(`member pix[1].tipo is null: want a string, "SOLICITACAO"`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &applied{}
			status, body := post(efi.WebhookHandler{HMAC: []byte(hookHMAC), Apply: a.apply}, tt.method, tt.target, tt.body)
			if status != tt.status || body != tt.want {
				t.Errorf("ServeHTTP() = %d %s, want %d %s", status, body, tt.status, tt.want)
			}
			if got := a.webhooks(); got != nil {
				t.Errorf("Apply() got %+v, want nothing applied", got)
			}
		})
	}
}

// TestWebhookHandlerAppliesEachEntry: the entries of one body, one settled at its limits (77
// characters of chave, 140 of infoPagador, 35 of idEnvio), Efí's example "Pix rejeitado" with
// horario null and an erro, and one rejected with neither infoPagador nor erro, are applied in
// order. The erro is the Reason, "<codigo>: <motivo> (<origem>)"; no erro, no Reason.
func TestWebhookHandlerAppliesEachEntry(t *testing.T) {
	first := strings.Replace(strings.Replace(entry, `"pagador@pixretry.example"`, `"`+strings.Repeat("c", 77)+`"`, 1),
		`"gnExtras"`, `"infoPagador":"`+strings.Repeat("i", 140)+`","gnExtras"`, 1)
	first = strings.Replace(first, `"pagamento1"`, `"`+strings.Repeat("p", 35)+`"`, 1)
	third := `{"endToEndId":"E12345678202501021506abcDEF12347","chave":"k","tipo":"SOLICITACAO",` +
		`"status":"NAO_REALIZADO","valor":"9999999999.99","horario":null,"gnExtras":{"idEnvio":"pagamento3"}}`
	a := &applied{}
	status, body := post(efi.WebhookHandler{HMAC: []byte(hookHMAC), Apply: a.apply}, "POST",
		"/webhook?hmac="+hookHMAC+"&ignorar=/pix", `{"pix":[`+first+`,`+rejectedEntry+`,`+third+`]}`)
	if status != 204 || body != "" {
		t.Errorf("ServeHTTP() = %d %s, want 204 and no body", status, body)
	}
	one := settledHook
	one.IdempotencyKey = strings.Repeat("p", 35)
	want := []pix.Webhook{one,
		{ID: "E12345678202501021505abcDEF12346", EndToEndID: "E12345678202501021505abcDEF12346",
			IdempotencyKey: "pagamento2", Status: "NAO_REALIZADO", AmountCents: 1,
			Reason: "AC03: Número da agência e/ou conta transacional do usuário recebedor inexistente ou inválido " +
				"(PSP do usuário recebedor)"},
		{ID: "E12345678202501021506abcDEF12347", EndToEndID: "E12345678202501021506abcDEF12347",
			IdempotencyKey: "pagamento3", Status: "NAO_REALIZADO", AmountCents: 999999999999}}
	if diff := cmp.Diff(want, a.webhooks()); diff != "" {
		t.Errorf("Apply() got (-want +got):\n%s", diff)
	}
}

// TestWebhookHandlerAnswersApply: each entry is applied, even after one fails; any failure but
// an unknown payment answers 503, and unknown payments alone 404.
func TestWebhookHandlerAnswersApply(t *testing.T) {
	second := strings.Replace(entry, `"pagamento1"`, `"pagamento2"`, 1)
	unknown := fmt.Errorf("payer: %w", pix.ErrUnknownPayment)
	tests := []struct {
		name   string
		errs   map[string]error
		status int
		want   string
	}{
		{"both applied", nil, 204, ""},
		{"one unknown", map[string]error{"pagamento1": unknown}, 404, problem(404, "unknown_payment",
			"no payment here has the idEnvio pagamento1, and nothing was applied for it")},
		{"one failed, one unknown", map[string]error{"pagamento1": errors.New("db locked"), "pagamento2": unknown}, 503,
			problem(503, "not_applied", "the Pix sent under idEnvio pagamento1 were not applied: deliver the callback again later")},
		{"both unknown", map[string]error{"pagamento1": unknown, "pagamento2": unknown}, 404, problem(404,
			"unknown_payment", "no payment here has the idEnvio pagamento1, pagamento2, and nothing was applied for it")},
		{"both failed", map[string]error{"pagamento1": errors.New("x"), "pagamento2": errors.New("y")}, 503,
			problem(503, "not_applied", "the Pix sent under idEnvio pagamento1, pagamento2 were not applied: deliver "+
				"the callback again later")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &applied{answer: func(w pix.Webhook) error { return tt.errs[w.IdempotencyKey] }}
			status, body := post(efi.WebhookHandler{HMAC: []byte(hookHMAC), Apply: a.apply}, "POST",
				"/x?hmac="+hookHMAC, `{"pix":[`+entry+`,`+second+`]}`)
			if status != tt.status || body != tt.want {
				t.Errorf("ServeHTTP() = %d %s, want %d %s", status, body, tt.status, tt.want)
			}
			if got := len(a.webhooks()); got != 2 {
				t.Errorf("Apply() called %d times, want 2", got)
			}
		})
	}
}

// TestWebhookHandlerNotConfigured: without HMAC or Apply, every callback answers 503.
func TestWebhookHandlerNotConfigured(t *testing.T) {
	want := problem(503, "not_configured", "the webhook handler has no HMAC or no Apply yet")
	for _, h := range []efi.WebhookHandler{{Apply: (&applied{}).apply}, {HMAC: []byte(hookHMAC)}} {
		if status, body := post(h, "POST", "/x?hmac=", `{"pix":[`+entry+`]}`); status != 503 || body != want {
			t.Errorf("ServeHTTP() = %d %s, want 503 %s", status, body, want)
		}
	}
}

// answers is an http.ResponseWriter that counts the statuses written, over a recorder.
type answers struct {
	*httptest.ResponseRecorder
	statuses int
}

func (a *answers) WriteHeader(code int) {
	a.statuses++
	a.ResponseRecorder.WriteHeader(code)
}

// TestWebhookHandlerAnswersOnce: a refused callback gets one answer, its refusal, and nothing
// after it; a GET's 405 says in Allow that a webhook is a POST.
func TestWebhookHandlerAnswersOnce(t *testing.T) {
	h := efi.WebhookHandler{HMAC: []byte(hookHMAC), Apply: (&applied{}).apply}
	for _, method := range []string{"GET", "POST"} {
		a := &answers{ResponseRecorder: httptest.NewRecorder()}
		h.ServeHTTP(a, httptest.NewRequest(method, "/webhook?hmac="+hookHMAC, strings.NewReader(`{"pix":[]}`)))
		wantStatus, wantAllow := 400, ""
		if method == "GET" {
			wantStatus, wantAllow = 405, "POST"
		}
		if a.Code != wantStatus || a.statuses != 1 || a.Header().Get("Allow") != wantAllow {
			t.Errorf("ServeHTTP(a %s) answered %d, %d statuses, Allow %q; want %d, 1, %q", method, a.Code, a.statuses,
				a.Header().Get("Allow"), wantStatus, wantAllow)
		}
	}
}

// TestWebhookHandlerUnreadBody: a body that breaks off as it is read answers 400, and says why.
func TestWebhookHandlerUnreadBody(t *testing.T) {
	a := &applied{}
	rec := httptest.NewRecorder()
	efi.WebhookHandler{HMAC: []byte(hookHMAC), Apply: a.apply}.ServeHTTP(rec, httptest.NewRequest("POST",
		"/webhook?hmac="+hookHMAC, iotest.ErrReader(errors.New("connection reset by peer"))))
	want := problem(400, "invalid_webhook", "the body could not be read: connection reset by peer")
	if rec.Code != 400 || rec.Body.String() != want || a.webhooks() != nil {
		t.Errorf("ServeHTTP() = %d %s, applied %+v; want 400 %s, nothing applied", rec.Code, rec.Body, a.webhooks(), want)
	}
}
