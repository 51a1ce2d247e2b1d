package hook_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"pixretry/pix/internal/hook"
)

// TestRefusal: the problem's type and title come from the code and the status, its detail from
// the format and its arguments.
func TestRefusal(t *testing.T) {
	got := hook.Refusal(http.StatusNotFound, "unknown_payment", "no payment has the key %q, %d tried", "k1", 2)
	want := &hook.Problem{Type: "urn:pixretry:pix:webhook:unknown_payment", Title: "Not Found", Status: 404,
		Detail: `no payment has the key "k1", 2 tried`, Code: "unknown_payment"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Refusal() (-want +got):\n%s", diff)
	}
}

// TestProblemWrite: the answer has the problem's status, its Content-Type, and the problem on
// one JSON line whose detail keeps <, > and & unescaped.
func TestProblemWrite(t *testing.T) {
	rec := httptest.NewRecorder()
	hook.Refusal(http.StatusBadRequest, "invalid_webhook", "member <a> & %s", "b").Write(rec)
	want := `{"type":"urn:pixretry:pix:webhook:invalid_webhook","title":"Bad Request","status":400,` +
		`"detail":"member <a> & b","code":"invalid_webhook"}` + "\n"
	if rec.Code != 400 || rec.Header().Get("Content-Type") != "application/problem+json" || rec.Body.String() != want {
		t.Errorf("Write() answered %d, Content-Type %q, %s; want 400, application/problem+json, %s",
			rec.Code, rec.Header().Get("Content-Type"), rec.Body, want)
	}
}

// TestKindWord: each kind of JSON value has its word, and a kind that is none, such as an
// empty value's, is "empty".
func TestKindWord(t *testing.T) {
	for value, want := range map[string]string{`null`: "null", `false`: "a boolean", `true`: "a boolean",
		`"x"`: "a string", `-1.5`: "a number", `{}`: "an object", `[]`: "an array", ``: "empty"} {
		if got := hook.KindWord(jsontext.Value(value).Kind()); got != want {
			t.Errorf("KindWord(the kind of %q) = %q, want %q", value, got, want)
		}
	}
}
