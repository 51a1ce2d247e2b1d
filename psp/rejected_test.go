package psp_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
)

// Reasons the Server gives for bad fields.
const (
	reasonString   = "must be a JSON string"
	reasonRequired = "required"
	reasonUnknown  = "unknown member: a payment has valor, chave and infoPagador"
	reasonRepeated = `member "valor" is repeated`
	reasonFormat   = `must match ^\d{1,10}\.\d{2}$, as in "150.00"`
	reasonZero     = "must be greater than zero"
	reasonChave    = "must be a Pix key: CPF (11 digits), CNPJ (14 digits), phone (+ and up to 15 digits), " +
		"e-mail (lower case, at most 77 characters) or EVP (lower-case UUID)"
	reasonInfo = "must be at most 140 characters"
	reasonUTF8 = "invalid UTF-8"
	reasonText = "surrogate" // an escape of a UTF-16 surrogate outside a pair
	reasonKey  = "must be one header of 1 to 255 characters from 0x21 to 0x7E, or that quoted as a structured-field string"
	anyReason  = "" // in a want list: any non-empty reason
	keyField   = psp.IdempotencyKeyHeader
	infoPrefix = `{"valor":"150.00","chave":"pix@example.com","infoPagador":"` // + the value + `"}`
)

// rejection is a request that must be refused without storing anything.
type rejection struct {
	name   string
	edit   func(*http.Request) // changes a valid request
	body   string              // replaces the valid body if not empty
	status int
	code   string
	want   []psp.Violation // the violacoes of a 400
}

func withBody(name, body string, want ...psp.Violation) rejection {
	return rejection{name: name, body: body, status: 400, code: "invalid_request", want: want}
}

func valorIs(v string) string { return `{"valor":` + v + `,"chave":"pix@example.com"}` }
func chaveIs(c string) string { return `{"valor":"150.00","chave":"` + c + `"}` }

var rejections = []rejection{
	{name: "no token", edit: delHeader("Authorization"), status: 401, code: "unauthorized"},
	{name: "unknown token", edit: setHeader("Authorization", "Bearer other-token"), status: 401, code: "unauthorized"},
	{name: "basic scheme", edit: setHeader("Authorization", "Basic "+token), status: 401, code: "unauthorized"},
	{name: "scheme only", edit: setHeader("Authorization", "Bearer"), status: 401, code: "unauthorized"},
	{name: "token without scheme", edit: setHeader("Authorization", token), status: 401, code: "unauthorized"},
	{name: "token and junk", edit: setHeader("Authorization", "Bearer "+token+" x"), status: 401, code: "unauthorized"},
	{name: "no key", edit: delHeader(keyField), status: 400, code: "idempotency_key_missing",
		want: []psp.Violation{{Field: keyField, Reason: reasonRequired}}},
	keyRejection("empty key", ""),
	keyRejection("key with a space", "a b"),
	keyRejection("256-character key", strings.Repeat("k", 256)),
	keyRejection("non-ASCII key", "clé"),
	keyRejection("DEL in key", "a\x7fb"),
	keyRejection("empty quoted key", `""`),
	keyRejection("quoted key with a space", `"a b"`),
	keyRejection("unterminated quoted key", `"abc`),
	keyRejection("characters after the closing quote", `"ab"c`),
	keyRejection("bad escape", `"a\b"`),
	keyRejection("escape at the end", `"abc\`),
	keyRejection("quoted 256-character key", `"`+strings.Repeat("k", 256)+`"`),
	{name: "two key headers", edit: func(r *http.Request) { r.Header.Add(keyField, "other") },
		status: 400, code: "idempotency_key_invalid", want: []psp.Violation{{Field: keyField, Reason: reasonKey}}},
	{name: "no content type", edit: delHeader("Content-Type"), status: 415, code: "unsupported_media_type"},
	{name: "text/plain", edit: setHeader("Content-Type", "text/plain"), status: 415, code: "unsupported_media_type"},
	{name: "json suffix type", edit: setHeader("Content-Type", "application/problem+json"), status: 415, code: "unsupported_media_type"},
	{name: "latin-1 charset", edit: setHeader("Content-Type", "application/json; charset=iso-8859-1"), status: 415, code: "unsupported_media_type"},
	{name: "malformed content type", edit: setHeader("Content-Type", "application/json;;"), status: 415, code: "unsupported_media_type"},
	{name: "64 KiB + 1 body", body: padTo(validBody, psp.MaxBodyBytes+1), status: 413, code: "payload_too_large"},
	{name: "65 KiB body", body: padTo(validBody, 65<<10), status: 413, code: "payload_too_large"},
	withBody("unknown field", `{"valor":"150.00","chave":"pix@example.com","extra":1}`, psp.Violation{Field: "extra", Reason: reasonUnknown}),
	withBody("repeated field", `{"valor":"150.00","chave":"pix@example.com","valor":"150.00"}`, psp.Violation{Field: "body", Reason: reasonRepeated}),
	withBody("repeated field, escaped the second time", `{"valor":"150.00","chave":"pix@example.com","val\u006fr":"150.00"}`,
		psp.Violation{Field: "body", Reason: reasonRepeated}),
	withBody("unknown field holding objects, arrays and punctuation in strings",
		`{"extra":{"a":[1,{"b":"}],:\"{["}],"c":null},"valor":"150.00","list":[[1,2],{"k":"v"},"]"],"chave":"pix@example.com"}`,
		psp.Violation{Field: "extra", Reason: reasonUnknown}, psp.Violation{Field: "list", Reason: reasonUnknown}),
	withBody("unknown field with an escaped name", `{"valor":"150.00","chave":"pix@example.com","\u00e9":1}`,
		psp.Violation{Field: "é", Reason: reasonUnknown}),
	withBody(`valor 150.00, spaces around it`, `{"valor" : 150.00 , "chave":"pix@example.com"}`, psp.Violation{Field: "valor", Reason: reasonString}),
	withBody(`valor true`, valorIs(`true`), psp.Violation{Field: "valor", Reason: reasonString}),
	withBody(`valor an object`, valorIs(`{"reais":150}`), psp.Violation{Field: "valor", Reason: reasonString}),
	withBody(`valor "1.5"`, valorIs(`"1.5"`), psp.Violation{Field: "valor", Reason: reasonFormat}),
	withBody(`valor "0.00"`, valorIs(`"0.00"`), psp.Violation{Field: "valor", Reason: reasonZero}),
	withBody(`valor 150`, valorIs(`150`), psp.Violation{Field: "valor", Reason: reasonString}),
	withBody(`valor null`, valorIs(`null`), psp.Violation{Field: "valor", Reason: reasonString}),
	withBody(`valor "150"`, valorIs(`"150"`), psp.Violation{Field: "valor", Reason: reasonFormat}),
	withBody(`valor "-1.00"`, valorIs(`"-1.00"`), psp.Violation{Field: "valor", Reason: reasonFormat}),
	withBody(`valor "1,50"`, valorIs(`"1,50"`), psp.Violation{Field: "valor", Reason: reasonFormat}),
	withBody(`valor " 1.50"`, valorIs(`" 1.50"`), psp.Violation{Field: "valor", Reason: reasonFormat}),
	withBody(`valor with 11 digits`, valorIs(`"12345678901.00"`), psp.Violation{Field: "valor", Reason: reasonFormat}),
	withBody(`valor "1.500"`, valorIs(`"1.500"`), psp.Violation{Field: "valor", Reason: reasonFormat}),
	withBody("no valor", `{"chave":"pix@example.com"}`, psp.Violation{Field: "valor", Reason: reasonRequired}),
	withBody("no chave", `{"valor":"150.00"}`, psp.Violation{Field: "chave", Reason: reasonRequired}),
	withBody("chave a number", `{"valor":"150.00","chave":12345678901}`, psp.Violation{Field: "chave", Reason: reasonString}),
	withBody("empty chave", chaveIs(""), psp.Violation{Field: "chave", Reason: reasonChave}),
	withBody("CPF of 10 digits", chaveIs("1234567890"), psp.Violation{Field: "chave", Reason: reasonChave}),
	withBody("CPF with a letter", chaveIs("1234567890a"), psp.Violation{Field: "chave", Reason: reasonChave}),
	withBody("CPF with punctuation", chaveIs("123.456.789-01"), psp.Violation{Field: "chave", Reason: reasonChave}),
	withBody("CNPJ of 13 digits", chaveIs("1234567800019"), psp.Violation{Field: "chave", Reason: reasonChave}),
	withBody("CNPJ of 15 digits", chaveIs("123456780001950"), psp.Violation{Field: "chave", Reason: reasonChave}),
	withBody("phone without +", chaveIs("5511987654321"), psp.Violation{Field: "chave", Reason: reasonChave}),
	withBody("phone starting +0", chaveIs("+0511987654321"), psp.Violation{Field: "chave", Reason: reasonChave}),
	withBody("phone of 16 digits", chaveIs("+1234567890123456"), psp.Violation{Field: "chave", Reason: reasonChave}),
	withBody("upper-case e-mail", chaveIs("Pix@example.com"), psp.Violation{Field: "chave", Reason: reasonChave}),
	withBody("78-character e-mail", chaveIs(strings.Repeat("a", 66)+"@example.com"), psp.Violation{Field: "chave", Reason: reasonChave}),
	withBody("e-mail without @", chaveIs("pix.example.com"), psp.Violation{Field: "chave", Reason: reasonChave}),
	withBody("upper-case EVP", chaveIs("123E4567-E89B-12D3-A456-426614174000"), psp.Violation{Field: "chave", Reason: reasonChave}),
	withBody("EVP without hyphens", chaveIs("123e4567e89b12d3a456426614174000"), psp.Violation{Field: "chave", Reason: reasonChave}),
	withBody("141-character infoPagador", infoPrefix+strings.Repeat("ç", 141)+`"}`, psp.Violation{Field: "infoPagador", Reason: reasonInfo}),
	withBody("infoPagador a number", `{"valor":"150.00","chave":"pix@example.com","infoPagador":5}`, psp.Violation{Field: "infoPagador", Reason: reasonString}),
	withBody("infoPagador not UTF-8", infoPrefix+"rent\xff"+`"}`, psp.Violation{Field: "body", Reason: reasonUTF8}),
	withBody("infoPagador in Latin-1", infoPrefix+"caf\xe9"+`"}`, psp.Violation{Field: "body", Reason: reasonUTF8}),
	withBody("infoPagador with a UTF-16 surrogate in UTF-8", infoPrefix+"\xed\xa0\x80"+`"}`, psp.Violation{Field: "body", Reason: reasonUTF8}),
	withBody("chave not UTF-8", chaveIs("pix\xff@example.com"), psp.Violation{Field: "body", Reason: reasonUTF8}),
	withBody("valor not UTF-8", valorIs("\"150.00\x80\""), psp.Violation{Field: "body", Reason: reasonUTF8}),
	withBody(`infoPagador "\ud800"`, infoPrefix+`\ud800"}`, psp.Violation{Field: "body", Reason: reasonText}),
	withBody(`infoPagador "\udbff"`, infoPrefix+`\udbff"}`, psp.Violation{Field: "body", Reason: reasonText}),
	withBody(`infoPagador "\uDC00"`, infoPrefix+`\uDC00"}`, psp.Violation{Field: "body", Reason: reasonText}),
	withBody(`infoPagador "\udfff"`, infoPrefix+`\udfff"}`, psp.Violation{Field: "body", Reason: reasonText}),
	withBody(`infoPagador "\udc00\ud800", a pair reversed`, infoPrefix+`\udc00\ud800"}`, psp.Violation{Field: "body", Reason: reasonText}),
	withBody(`infoPagador "\ud800x"`, infoPrefix+`\ud800x"}`, psp.Violation{Field: "body", Reason: reasonText}),
	withBody(`infoPagador "\ud800\u0041"`, infoPrefix+`\ud800\u0041"}`, psp.Violation{Field: "body", Reason: reasonText}),
	withBody(`infoPagador "\\\ud800", a lone surrogate after a backslash`, infoPrefix+`\\\ud800"}`, psp.Violation{Field: "body", Reason: reasonText}),
	withBody(`chave "\ud800"`, chaveIs(`\ud800`), psp.Violation{Field: "body", Reason: reasonText}),
	withBody(`valor "\udfff"`, valorIs(`"\udfff"`), psp.Violation{Field: "body", Reason: reasonText}),
	withBody("every field wrong", `{"extra":true,"valor":"1.5","chave":"X","infoPagador":"`+strings.Repeat("x", 141)+`"}`,
		psp.Violation{Field: "extra", Reason: reasonUnknown}, psp.Violation{Field: "valor", Reason: reasonFormat},
		psp.Violation{Field: "chave", Reason: reasonChave}, psp.Violation{Field: "infoPagador", Reason: reasonInfo}),
	withBody("truncated JSON", `{"valor":"150.00","chave":`, psp.Violation{Field: "body", Reason: anyReason}),
	withBody("truncated after a member", `{"valor":"150.00"`, psp.Violation{Field: "body", Reason: anyReason}),
	withBody("member name not a string", `{valor:"150.00"}`, psp.Violation{Field: "body", Reason: anyReason}),
	withBody("empty body", " ", psp.Violation{Field: "body", Reason: anyReason}),
	withBody("array body", `[]`, psp.Violation{Field: "body", Reason: "must be a JSON object"}),
	withBody("null body", `null`, psp.Violation{Field: "body", Reason: "must be a JSON object"}),
	withBody("string body", ` "150.00"`, psp.Violation{Field: "body", Reason: "must be a JSON object"}),
	withBody("string body", `"150.00"`, psp.Violation{Field: "body", Reason: anyReason}),
	withBody("two objects", validBody+validBody, psp.Violation{Field: "body", Reason: anyReason}),
	withBody("trailing junk", validBody+"x", psp.Violation{Field: "body", Reason: anyReason}),
}

func keyRejection(name, key string) rejection {
	return rejection{name: name, edit: setHeader(keyField, key), status: 400, code: "idempotency_key_invalid",
		want: []psp.Violation{{Field: keyField, Reason: reasonKey}}}
}

func delHeader(name string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Del(name) }
}

// TestRejectedRequestsStoreNothing sends each bad request, checks its problem, then sends a
// good one with the same token and key: it must settle afresh, proving nothing was stored.
func TestRejectedRequestsStoreNothing(t *testing.T) {
	for _, tt := range rejections {
		t.Run(tt.name, func(t *testing.T) {
			s := mustServer(t)
			r := paymentRequest("key-1", cmpOr(tt.body, validBody))
			if tt.edit != nil {
				tt.edit(r)
			}
			a := serve(s, r)
			p := wantProblem(t, a, tt.status, tt.code)
			wantViolations(t, p.Violations, tt.want)
			wantEcho(t, a, tt.code, r)
			if tt.status == 401 && a.header.Get("WWW-Authenticate") != `Bearer realm="psp"` {
				t.Errorf("WWW-Authenticate = %q, want a Bearer challenge", a.header.Get("WWW-Authenticate"))
			}
			if n := len(s.Settlements()); n != 0 || s.Stats().BalanceCents != 100000 {
				t.Fatalf("after the rejection: %d settlements, balance %d; want none, 100000", n, s.Stats().BalanceCents)
			}
			wantSettled(t, pay(s, "key-1", validBody))
		})
	}
}

// wantViolations compares violations; a got Reason matches a wanted one that it contains, and
// a wanted anyReason matches any non-empty one.
func wantViolations(tb testing.TB, got, want []psp.Violation) {
	tb.Helper()
	if len(got) == len(want) {
		for i := range want {
			if got[i].Reason != "" && strings.Contains(got[i].Reason, want[i].Reason) {
				want[i].Reason = got[i].Reason
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		tb.Errorf("violacoes mismatch (-want +got):\n%s", diff)
	}
}

// wantEcho checks that the key is echoed once it has been found valid (after the token and
// key checks), and not before.
func wantEcho(tb testing.TB, a answer, code string, r *http.Request) {
	tb.Helper()
	want := r.Header.Get(keyField)
	switch code {
	case "unauthorized", "idempotency_key_missing", "idempotency_key_invalid":
		want = ""
	}
	if got := a.header.Get(keyField); got != want {
		tb.Errorf("echoed %s = %q, want %q", keyField, got, want)
	}
}

func TestUnreadableBodyIsA400(t *testing.T) {
	s := mustServer(t)
	r := paymentRequest("k1", "")
	r.Body = io.NopCloser(iotest.ErrReader(errors.New("connection lost")))
	p := wantProblem(t, serve(s, r), 400, "invalid_request")
	wantViolations(t, p.Violations, []psp.Violation{{Field: "body", Reason: "could not be read: connection lost"}})
	wantSettled(t, pay(s, "k1", validBody))
}
