package properties

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// nonAtomicReserve is a planted bug: checking that a key is new and reserving it are two steps.
// A key is remembered once an answer under it is out, so each request that arrives while the first
// is in flight is sent under a new inner key, and settles.
func nonAtomicReserve(next http.Handler) http.Handler {
	var (
		mu       sync.Mutex
		reserved = map[scope]string{}
		fresh    int
	)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sc := scope{strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), r.Header.Get("Idempotency-Key")}
		mu.Lock()
		inner, known := reserved[sc]
		if !known {
			fresh++
			inner = fmt.Sprintf("%s.%d", sc.key, fresh)
		}
		mu.Unlock()
		r.Header.Set("Idempotency-Key", inner)
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if !known && sw.status != 0 {
			mu.Lock()
			if _, ok := reserved[sc]; !ok {
				reserved[sc] = inner
			}
			mu.Unlock()
		}
	})
}

// replayAcrossPayloads is a planted bug: answers stored by key alone. Every request goes out with
// the first body seen under its key, so another payload gets the first one's answer, not 422.
func replayAcrossPayloads(next http.Handler) http.Handler {
	var (
		mu    sync.Mutex
		first = map[scope][]byte{}
	)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		sc := scope{r.Header.Get("Authorization"), r.Header.Get("Idempotency-Key")}
		mu.Lock()
		if seen, ok := first[sc]; ok {
			body = seen
		} else {
			first[sc] = body
		}
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// conflictAfterCompletion is a planted bug: every replay goes out as 409 idempotency_key_in_use.
func conflictAfterCompletion(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&replayAsInUse{ResponseWriter: w}, r)
	})
}

// notingStatus is the planted bugs' control: the PSP behind nonAtomicReserve's statusWriter.
func notingStatus(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&statusWriter{ResponseWriter: w}, r)
	})
}

// statusWriter notes the status of the answer it passes on: 0 if none went out, as after a drop.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

// Unwrap lets a drop fault take the connection (http.ResponseController).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// replayAsInUse answers 409 idempotency_key_in_use instead of a replay.
type replayAsInUse struct {
	http.ResponseWriter
	hidden bool
}

func (w *replayAsInUse) WriteHeader(status int) {
	h := w.Header()
	if h.Get("Idempotent-Replayed") != "true" {
		w.ResponseWriter.WriteHeader(status)
		return
	}
	w.hidden = true
	h.Del("Idempotent-Replayed")
	h.Set("Content-Type", "application/problem+json")
	h.Del("Content-Length")
	w.ResponseWriter.WriteHeader(http.StatusConflict)
	fmt.Fprintf(w.ResponseWriter, `{"status":409,"code":%q}`, codeIdempotencyKeyInUse)
}

func (w *replayAsInUse) Write(b []byte) (int, error) {
	if w.hidden {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets a drop fault take the connection (http.ResponseController).
func (w *replayAsInUse) Unwrap() http.ResponseWriter { return w.ResponseWriter }
