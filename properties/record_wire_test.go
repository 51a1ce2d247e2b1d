package properties

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"pixretry/internal/roundtrip"
	"pixretry/psp"
)

// wireRecorder is an http.Handler that records each request reaching next, and next's answer, as
// an Exchange. The number in roundtrip.Header pairs it with the Trip that sent it. It is safe for
// concurrent use. Call exchanges only once every handler has returned (psptest.Server.Close).
type wireRecorder struct {
	next http.Handler
	mu   sync.Mutex
	log  []*Exchange
}

func (rec *wireRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body) // a short read reaches psp as the truncated body it is
	r.Body = io.NopCloser(bytes.NewReader(body))
	trip, _ := strconv.ParseInt(r.Header.Get(roundtrip.Header), 10, 64)
	ex := &Exchange{Trip: trip, Arrived: time.Now(), Key: r.Header.Get("Idempotency-Key"), Request: body,
		Token: strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), Lookup: r.Method == http.MethodGet}
	if ex.Lookup {
		ex.Key = r.URL.Query().Get(psp.LookupParam)
	}
	rec.mu.Lock()
	rec.log = append(rec.log, ex)
	rec.mu.Unlock()
	rec.next.ServeHTTP(&answerRecorder{ResponseWriter: w, ex: ex}, r)
}

// exchanges returns a copy of the record, in the order the handler was entered.
func (rec *wireRecorder) exchanges() []Exchange {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	out := make([]Exchange, len(rec.log))
	for i, ex := range rec.log {
		out[i] = *ex
	}
	return out
}

// answerRecorder copies into ex what the handler writes. It passes Hijack and Flush through.
// Unwrap lets http.NewResponseController reach the connection's writer.
type answerRecorder struct {
	http.ResponseWriter
	ex *Exchange
}

func (w *answerRecorder) WriteHeader(code int) {
	if w.ex.Status == 0 {
		w.ex.Status = code
		w.ex.Answered = time.Now()
		w.ex.Replayed = w.Header().Get("Idempotent-Replayed") == "true"
		for name, values := range w.Header() {
			for _, v := range values {
				w.ex.HeaderBytes += len(name) + len(": ") + len(v) + len("\r\n")
			}
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *answerRecorder) Write(b []byte) (int, error) {
	if w.ex.Status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	w.ex.Body = append(w.ex.Body, b...)
	return w.ResponseWriter.Write(b)
}

// Hijack notes that the handler took the connection over (psp does, to close it).
func (w *answerRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.ex.Hijacked = true
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

func (w *answerRecorder) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

func (w *answerRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
