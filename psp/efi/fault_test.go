package efi_test

import (
	"bytes"
	"context"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/psp"
	"pixretry/psp/efi"
)

// unavailable is the body of a problem of the Central Bank's type tipo, with status and detail.
func unavailable(tipo string, status int, detail string) string {
	return `{"type":"https://pix.bcb.gov.br/api/v2/error/` + tipo + `","title":"` + http.StatusText(status) +
		`","status":` + strconv.Itoa(status) + `,"detail":"` + detail + `"}` + "\n"
}

func TestStatusFaultsKeepTheirStatus(t *testing.T) {
	for _, tc := range []struct {
		status            int
		contentType, body string
	}{
		{503, problemType, unavailable("ServicoIndisponivel", 503, "fault injected: the PSP answers 503 before any processing")},
		{504, problemType, unavailable("IndisponibilidadePorTempoEsgotado", 504, "fault injected: the PSP answers 504 before any processing")},
		{429, problemType, unavailable("BaldeFichasVazio", 429, "fault injected: the PSP answers 429 before any processing")},
		{500, jsonType, `{"nome":"erro_aplicacao","mensagem":"fault injected: the PSP answers 500 before any processing"}` + "\n"},
		{400, jsonType, `{"nome":"erro_aplicacao","mensagem":"fault injected: the PSP answers 400 before any processing"}` + "\n"},
	} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			s, h := mustFront(t)
			fault := psp.Status(tc.status)
			fault.RetryAfter = 1500 * time.Millisecond
			s.Inject(fault, fault.ForLookup())
			for _, got := range []reply{put(h, "abc", payout), get(h, "abc")} {
				wantReply(t, got, tc.status, tc.contentType, tc.body, "Retry-After", "2")
			}
			wantRequests(t, s, 1, 0)
			if st := s.Stats(); st.ClosedKeys != 0 {
				t.Errorf("Stats().ClosedKeys = %d, want 0", st.ClosedKeys)
			}
		})
	}
}

func TestAFullKeyStoreIs503(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, h := mustFront(t, func(c *psp.Config) { c.MaxKeys = 1 })
		put(h, "abc", payout)
		wantReply(t, put(h, "abd", payout), http.StatusServiceUnavailable, problemType,
			unavailable("ServicoIndisponivel", 503, "the PSP stores 1 Idempotency-Keys, its limit, and none has expired; retry later"),
			"Retry-After", "86400")
	})
}

func TestAnOverloadedPSPIs503(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, h := mustFront(t, func(c *psp.Config) { c.Capacity, c.ShedRetryAfter = 1, time.Second })
		s.Inject(psp.Slow(time.Second))
		done := make(chan reply)
		go func() { done <- put(h, "abc", payout) }()
		synctest.Wait()
		wantReply(t, put(h, "abd", payout), http.StatusServiceUnavailable, problemType,
			unavailable("ServicoIndisponivel", 503, "the PSP is processing 1 payments, its capacity; retry later"),
			"Retry-After", "1")
		<-done
	})
}

// TestCommitStatusFaults checks a payout committed, then answered with another status: a 2xx
// keeps the 201's body, a 5xx is erro_aplicacao, and the replay tells REALIZADO.
func TestCommitStatusFaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, h := mustFront(t)
		s.Inject(psp.CommitStatus(http.StatusOK), psp.CommitStatus(http.StatusBadGateway))
		got := put(h, "abc", payout)
		wantReply(t, got, http.StatusOK, jsonType, sentBody(e2eID(t, got.body), "EM_PROCESSAMENTO"))
		wantReply(t, put(h, "abd", payout), http.StatusBadGateway, jsonType,
			`{"nome":"erro_aplicacao","mensagem":"fault injected: the PSP processed the request, then answered 502"}`+"\n")
		got = put(h, "abd", payout)
		wantReply(t, got, http.StatusCreated, jsonType, strings.Replace(sentBody(e2eID(t, got.body), "REALIZADO"), "abc", "abd", 1))
		wantRequests(t, s, 3, 2)
	})
}

// TestARedirectPointsAtTheRequestsPath checks a redirect: its Location is the request's own
// path, and it has no body, so no Content-Type.
func TestARedirectPointsAtTheRequestsPath(t *testing.T) {
	s, h := mustFront(t)
	s.Inject(psp.Redirect(http.StatusTemporaryRedirect), psp.Redirect(http.StatusMovedPermanently).ForLookup())
	wantReply(t, put(h, "abc", payout), http.StatusTemporaryRedirect, "", "", "Location", efi.SendPath+"abc")
	wantReply(t, get(h, "abc"), http.StatusMovedPermanently, "", "", "Location", efi.LookupPath+"abc")
}

// TestABadBodyBreaksTheTranslatedBody checks that a bad_body fault breaks the front end's body
// as it breaks the core's.
func TestABadBodyBreaksTheTranslatedBody(t *testing.T) {
	sent := sentBody("E2E", "EM_PROCESSAMENTO")
	for _, tc := range []struct {
		name  string
		fault psp.Fault
		want  string
	}{
		{"valor", psp.BadBody("valor"), strings.Replace(sent, "12.34", "12.35", 1)},
		{"no e2eId", psp.Fault{Kind: "bad_body", Breach: "missing", Member: "endToEndId"}, strings.Replace(sent, `"e2eId":"E2E",`, "", 1)},
		{"no horario", psp.Fault{Kind: "bad_body", Breach: "missing", Member: "horario"},
			strings.Replace(sent, `"horario":{"solicitacao":"`+start+`"},`, "", 1)},
		{"no status", psp.Fault{Kind: "bad_body", Breach: "missing", Member: "status"}, strings.Replace(sent, `,"status":"EM_PROCESSAMENTO"`, "", 1)},
		{"chave", psp.BadBody("chave"), sent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, h := mustFront(t)
				s.Inject(tc.fault)
				got := put(h, "abc", payout)
				e2e := s.Settlements()[0].EndToEndID
				wantReply(t, got, http.StatusCreated, jsonType, strings.Replace(tc.want, "E2E", e2e, 1))
			})
		})
	}
}

func TestABadBodyBreaksTheLookup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, h := mustFront(t)
		e2e := e2eID(t, put(h, "abc", payout).body)
		s.Inject(psp.BadBody("chave").ForLookup(), psp.Fault{Kind: "bad_body", Breach: "missing", Member: "chave"}.ForLookup(),
			psp.Fault{Kind: "bad_body", Breach: "missing", Member: "horario"}.ForLookup())
		found := enviadoBody(e2e, "REALIZADO", "", start, start)
		wantReply(t, get(h, "abc"), http.StatusOK, jsonType, strings.Replace(found, "pix@example.com", "0pix@example.com", 1))
		wantReply(t, get(h, "abc"), http.StatusOK, jsonType, strings.Replace(found, `,"favorecido":{"chave":"pix@example.com"}`, "", 1))
		wantReply(t, get(h, "abc"), http.StatusOK, jsonType,
			strings.Replace(found, `"horario":{"solicitacao":"`+start+`","liquidacao":"`+start+`"},`, "", 1))
	})
}

func TestABodyNotJSONPassesAsItIs(t *testing.T) {
	s, h := mustFront(t)
	s.Inject(psp.BadBody("not_json"))
	wantReply(t, put(h, "abc", payout), http.StatusCreated, jsonType, "<html><body><h1>201 Created</h1></body></html>\n")
}

// mustTCP serves h on 127.0.0.1:0 until the test ends, with a client that opens a connection
// per request and gives up after 10 s of wall time, a bound never reached by a passing test.
// It returns a function that sends a request made for h (httptest.NewRequest) to that server
// and returns once h has returned. The test fails if the server has logged anything by then,
// such as a write on a connection that a fault took over ("http: response.WriteHeader on
// hijacked connection").
func mustTCP(tb testing.TB, h http.Handler) func(*http.Request) (*http.Response, error) {
	returned := make(chan struct{}, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { returned <- struct{}{} }()
		h.ServeHTTP(w, r)
	}))
	var logged syncBuffer
	srv.Config.ErrorLog = log.New(&logged, "", 0)
	srv.Start()
	tb.Cleanup(srv.Close)
	tr := &http.Transport{DisableKeepAlives: true}
	tb.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	return func(r *http.Request) (*http.Response, error) {
		tb.Helper()
		r.RequestURI = ""
		r.URL.Scheme, r.URL.Host = "http", strings.TrimPrefix(srv.URL, "http://")
		resp, err := client.Do(r.WithContext(context.Background()))
		select {
		case <-returned:
		case <-time.After(10 * time.Second):
			tb.Fatalf("%s %s: the handler has not returned after 10 s", r.Method, r.URL.Path)
		}
		if text := logged.take(); text != "" {
			tb.Errorf("%s %s: the server logged:\n%s", r.Method, r.URL.Path, text)
		}
		return resp, err
	}
}

// syncBuffer is a bytes.Buffer that goroutines may write and read at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// take returns what was written since the last take.
func (b *syncBuffer) take() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	text := b.buf.String()
	b.buf.Reset()
	return text
}

// TestHangUpsCloseTheFrontEndsConnection serves the front end over TCP: a fault that closes the
// core's connection closes the client's, which reads no answer. A drop, a short body and a cut
// body have committed the payout, which a replay then tells.
func TestHangUpsCloseTheFrontEndsConnection(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fault   psp.Fault
		settled int
	}{
		{"drop", psp.Drop(), 1},
		{"reset", psp.ResetConn(), 0},
		{"down", psp.Down(time.Hour), 0},
		{"short", psp.BadBody("short"), 1},
		{"cut", psp.BadBody("cut"), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, h := mustFront(t)
			send := mustTCP(t, h)
			s.Inject(tc.fault)
			if resp, err := send(putRequest("abc", payout)); err == nil {
				resp.Body.Close()
				t.Fatalf("PUT = %d, want a closed connection", resp.StatusCode)
			}
			wantRequests(t, s, 1, tc.settled)
			s.ClearFaults()
			resp, err := send(putRequest("abc", payout))
			if err != nil {
				t.Fatalf("PUT again: %v", err)
			}
			got := readReply(t, resp)
			if want := []string{"EM_PROCESSAMENTO", "REALIZADO"}[tc.settled]; !strings.Contains(got.body, `"status":"`+want+`"`) {
				t.Errorf("PUT again = %d %s, want 201 %s", got.status, got.body, want)
			}
		})
	}
}

// TestALookupHangUpClosesNoKey checks a lookup whose connection a reset closes: the client
// reads no answer, and the idEnvio stays open.
func TestALookupHangUpClosesNoKey(t *testing.T) {
	s, h := mustFront(t)
	send := mustTCP(t, h)
	s.Inject(psp.ResetConn().ForLookup())
	if resp, err := send(httptest.NewRequest(http.MethodGet, efi.LookupPath+"abc", nil)); err == nil {
		resp.Body.Close()
		t.Fatalf("GET = %d, want a closed connection", resp.StatusCode)
	}
	if st := s.Stats(); st.Lookups != 1 || st.ClosedKeys != 0 {
		t.Errorf("Stats() = %d lookups, %d closed keys, want 1, 0", st.Lookups, st.ClosedKeys)
	}
}

// TestAProxysAnswerKeepsItsStatus: an error answer with no problem code is not the core's but a
// proxy's in front of it, as a gateway's 502: it keeps its status, and says whose it is.
func TestAProxysAnswerKeepsItsStatus(t *testing.T) {
	proxy := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "bad gateway", http.StatusBadGateway)
	})
	h := efi.NewHandler(proxy)
	for _, got := range []reply{put(h, "abc", payout), get(h, "abc")} {
		wantReply(t, got, http.StatusBadGateway, jsonType,
			`{"nome":"erro_aplicacao","mensagem":"a proxy in front of the PSP answered 502"}`+"\n")
	}
}
