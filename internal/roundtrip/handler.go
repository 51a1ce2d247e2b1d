package roundtrip

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
)

// Exchange is one request as a server's handler saw it, and the handler's answer.
type Exchange struct {
	Trip        int64 // the number in Header: the round trip that sent it; 0: none
	Arrived     time.Time
	Answered    time.Time // when the status line was written; zero when none was
	Method      string
	Token       string // the bearer token of the Authorization header
	Key         string // the Idempotency-Key, or a GET's Handler.KeyParam
	Request     []byte // the request's body
	Status      int    // 0: the connection was closed without an answer
	Body        []byte
	Replayed    bool // the answer carried Idempotent-Replayed: true
	Hijacked    bool // the handler took the connection over (to close it)
	HeaderBytes int  // the size of the answer's header fields, as "Name: value\r\n" lines
}

// Handler is an http.Handler that records each request reaching Next, and Next's answer, as an
// Exchange: the server side of a Recorder, paired with its Trips by the number in Header. It is
// safe for concurrent use.
type Handler struct {
	Next http.Handler
	// KeyParam, when not empty, is the query parameter that gives a GET its Key: a lookup
	// carries no Idempotency-Key, but names the key it looks up.
	KeyParam string

	mu  sync.Mutex
	log []*Exchange
}

// ServeHTTP reads the whole body, records the request and passes it on to Next. A body cut
// short reaches Next as the truncated body it is.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	trip, _ := strconv.ParseInt(r.Header.Get(Header), 10, 64)
	ex := &Exchange{Trip: trip, Arrived: time.Now(), Method: r.Method, Key: r.Header.Get("Idempotency-Key"),
		Token: strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), Request: body}
	if h.KeyParam != "" && r.Method == http.MethodGet {
		ex.Key = r.URL.Query().Get(h.KeyParam)
	}
	h.mu.Lock()
	h.log = append(h.log, ex)
	h.mu.Unlock()
	h.Next.ServeHTTP(&answerRecorder{ResponseWriter: w, ex: ex}, r)
}

// Exchanges returns a copy of the record, in the order ServeHTTP was entered. Call it only once
// every ServeHTTP has returned: an answer still being written is not guarded.
func (h *Handler) Exchanges() []Exchange {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Exchange, len(h.log))
	for i, ex := range h.log {
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
		w.ex.Status, w.ex.Answered = code, time.Now()
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

// Hijack notes that the handler took the connection over.
func (w *answerRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.ex.Hijacked = true
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

func (w *answerRecorder) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

func (w *answerRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
