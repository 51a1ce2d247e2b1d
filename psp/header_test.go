package psp_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"pixretry/psp"
)

// A field the answer has no value for is not sent at all: an empty Content-Length is not
// HTTP, and an empty Idempotency-Key echoes a key nobody sent.
func TestAnswersSendNoEmptyFields(t *testing.T) {
	s := mustServer(t)
	r := paymentRequest("k1", validBody)
	r.Header.Del("Authorization")
	cut := mustServer(t)
	cut.Inject(psp.BadBody("cut"))
	redirect := mustServer(t)
	redirect.Inject(psp.Redirect(307))
	for name, a := range map[string]answer{
		"401 before the key is read":    serve(s, r),
		"404 of another path":           serve(s, httptest.NewRequest(http.MethodGet, "/v1/other", nil)),
		"a cut body, which is chunked":  serveAborted(t, cut, paymentRequest("k1", validBody)),
		"a redirect, which has no body": serve(redirect, paymentRequest("k1", validBody)),
	} {
		for field, values := range a.header {
			if len(values) != 1 || values[0] == "" {
				t.Errorf("%s: %s = %q, want one value or no field", name, field, values)
			}
		}
	}
}

// serveAborted runs r through h in process, where h hangs up on the client mid-answer.
func serveAborted(tb testing.TB, h http.Handler, r *http.Request) answer {
	tb.Helper()
	rec := httptest.NewRecorder()
	func() {
		defer func() {
			if p := recover(); p != http.ErrAbortHandler {
				tb.Errorf("ServeHTTP panicked with %v, want %v", p, http.ErrAbortHandler)
			}
		}()
		h.ServeHTTP(rec, r)
	}()
	return answer{rec.Code, rec.Header(), rec.Body.String()}
}

// A path that is not UTF-8 is named in the 404's detail with U+FFFD for each bad byte.
func TestNotFoundDetailOfANonUTF8Path(t *testing.T) {
	a := serve(mustServer(t), httptest.NewRequest(http.MethodGet, "/v1/%FF", nil))
	if p := wantProblem(t, a, http.StatusNotFound, "not_found"); p.Detail != "no resource at /v1/\uFFFD" {
		t.Errorf("detail = %q, want %q", p.Detail, "no resource at /v1/\uFFFD")
	}
}

// A body without a member keeps the others, in name order, so that two runs break it alike.
func TestBadBodyMissingIsReproducible(t *testing.T) {
	for _, member := range []string{"endToEndId", "valor", "chave", "status", "horario"} {
		s := mustServer(t)
		stored := pay(s, "k1", validBody)
		s.Inject(psp.Fault{Kind: "bad_body", Breach: "missing", Member: member})
		want := mustDecode[map[string]string](t, stored.body)
		delete(want, member)
		b, err := json.Marshal(want) // a map's members in name order
		if err != nil {
			t.Fatal(err)
		}
		if got := pay(s, "k1", validBody).body; got != string(b)+"\n" {
			t.Errorf("body without %s = %s, want %s", member, got, b)
		}
	}
}
