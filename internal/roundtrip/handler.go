package roundtrip

import (
	"bufio"
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
	Key         string // the Idempotency-Key, a GET's Handler.KeyParam, or what Handler.KeyOf gives
	Request     []byte // the request's body, as far as the handler read it
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
	// KeyOf, when not nil, gives each request its Key instead, for an API that carries its
	// key elsewhere, such as in the path.
	KeyOf func(*http.Request) string

	mu  sync.Mutex
	log []*Exchange
}

// ServeHTTP records the request and passes it on to Next, which reads the body as the client
// sent it, cut short or not. The record holds the body as far as Next read it: a handler that
// answers before it reads the body (a fault, a refused token) leaves none in the record. So a
// handler in front of Next that tells from the body whether Next processed the request (psp's
// front ends) tells the same with the recorder in between.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	trip, _ := strconv.ParseInt(r.Header.Get(Header), 10, 64)
	ex := &Exchange{Trip: trip, Arrived: time.Now(), Method: r.Method,
		Token: strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), Key: keyOf(r, h.KeyParam, h.KeyOf)}
	h.mu.Lock()
	h.log = append(h.log, ex)
	h.mu.Unlock()
	r = r.WithContext(r.Context()) // a shallow copy: a handler leaves the request it was given as it is
	r.Body = &readBody{ReadCloser: r.Body, h: h, ex: ex}
	h.Next.ServeHTTP(&answerRecorder{ResponseWriter: w, ex: ex}, r)
}

// readBody is a request's body that adds to ex what is read of it.
type readBody struct {
	io.ReadCloser
	h  *Handler
	ex *Exchange
}

func (b *readBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.h.mu.Lock()
	b.ex.Request = append(b.ex.Request, p[:n]...)
	b.h.mu.Unlock()
	return n, err
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
