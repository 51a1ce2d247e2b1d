package efi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"pixretry/psp"
	"pixretry/psp/efi"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// payout is a valid PUT body paying 12.34 to pix@example.com.
const payout = `{"valor":"12.34","pagador":{"chave":"pagador@pixretry.example","infoPagador":"rent"},` +
	`"favorecido":{"chave":"pix@example.com"}}`

// start is when a synctest bubble starts, as Efí writes it.
const start = "2000-01-01T00:00:00.000Z"

// mustServer returns a Server made from psp.DefaultConfig changed by edits, closed when the
// test ends.
func mustServer(tb testing.TB, edits ...func(*psp.Config)) *psp.Server {
	tb.Helper()
	cfg := psp.DefaultConfig()
	for _, edit := range edits {
		edit(&cfg)
	}
	s, err := psp.NewServer(cfg)
	if err != nil {
		tb.Fatalf("NewServer() error = %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}

// mustFront returns a Server made as mustServer makes it, and its Efí front end.
func mustFront(tb testing.TB, edits ...func(*psp.Config)) (*psp.Server, http.Handler) {
	tb.Helper()
	s := mustServer(tb, edits...)
	return s, efi.NewHandler(s)
}

// reply is an answer read whole.
type reply struct {
	status int
	header http.Header
	body   string
}

// serve runs r through h in process.
func serve(h http.Handler, r *http.Request) reply {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return reply{rec.Code, rec.Header(), rec.Body.String()}
}

// putRequest is a PUT of body under idEnvio with the default token.
func putRequest(idEnvio, body string) *http.Request {
	r := httptest.NewRequest(http.MethodPut, efi.SendPath+idEnvio, strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+psp.DefaultToken)
	r.Header.Set("Content-Type", "application/json")
	return r
}

// put pays body under idEnvio.
func put(h http.Handler, idEnvio, body string) reply { return serve(h, putRequest(idEnvio, body)) }

// get looks idEnvio up.
func get(h http.Handler, idEnvio string) reply {
	r := httptest.NewRequest(http.MethodGet, efi.LookupPath+idEnvio, nil)
	r.Header.Set("Authorization", "Bearer "+psp.DefaultToken)
	return serve(h, r)
}

// readReply reads resp whole and closes its body.
func readReply(tb testing.TB, resp *http.Response) reply {
	tb.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("reading the body: %v", err)
	}
	return reply{resp.StatusCode, resp.Header, string(body)}
}

// The content types of the front end's answers.
const (
	jsonType    = "application/json"
	problemType = "application/problem+json"
)

// wantReply checks that got has status and body, and exactly these header fields: Content-Type
// contentType (none if ""), Content-Length the length of body, and extra, given as name, value
// pairs.
func wantReply(tb testing.TB, got reply, status int, contentType, body string, extra ...string) {
	tb.Helper()
	if len(extra)%2 != 0 {
		tb.Fatalf("wantReply: extra %q is not pairs of a name and a value", extra)
	}
	want := http.Header{"Content-Length": {strconv.Itoa(len(body))}}
	if contentType != "" {
		want.Set("Content-Type", contentType)
	}
	for i := 0; i < len(extra); i += 2 {
		want.Add(extra[i], extra[i+1])
	}
	if got.status != status || got.body != body {
		tb.Errorf("answer =\n%d %s\nwant\n%d %s", got.status, got.body, status, body)
	}
	if diff := cmp.Diff(want, got.header); diff != "" {
		tb.Errorf("header of the %d answer mismatch (-want +got):\n%s", got.status, diff)
	}
}

// e2eID is the e2eId, or endToEndId, of a front end's JSON body.
func e2eID(tb testing.TB, body string) string {
	tb.Helper()
	var ids struct {
		E2EID      string `json:"e2eId"`
		EndToEndID string `json:"endToEndId"`
	}
	if err := json.Unmarshal([]byte(body), &ids); err != nil {
		tb.Fatalf("decoding %q: %v", body, err)
	}
	return ids.E2EID + ids.EndToEndID
}

// wantRequests checks that s has received requests payment requests and settled settled.
func wantRequests(tb testing.TB, s *psp.Server, requests int64, settled int) {
	tb.Helper()
	if st := s.Stats(); st.Requests != requests || st.Settled != settled {
		tb.Errorf("Stats() = %d requests, %d settled, want %d, %d", st.Requests, st.Settled, requests, settled)
	}
}
