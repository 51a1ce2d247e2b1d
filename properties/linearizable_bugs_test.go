package properties

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// The planted bugs of the linearizability check. Each wraps the real PSP and breaks one rule of
// keyModel, as a PSP could. TestPlantedBugsAreNotLinearizable requires each to come out illegal.

// nonAtomicReserve is a PSP whose check that a key is new and reservation of the key are two
// steps. It remembers a key only once an answer under it is out. It sends a key it does not
// remember to the PSP under a key of its own. So requests that arrive while the first is in
// flight pass the check too, and each of them settles.
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

// replayAcrossPayloads is a PSP that stores answers by key alone. It sends every request under a
// key with the body of the first request under that key. So another payload gets the first
// payload's answer (or its 409) instead of 422 idempotency_key_reused.
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

// conflictAfterCompletion is a PSP that still takes a completed key for one in flight: every
// replay goes out as 409 idempotency_key_in_use.
func conflictAfterCompletion(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&replayAsInUse{ResponseWriter: w}, r)
	})
}

// notingStatus is the control of the planted bugs: the PSP behind nonAtomicReserve's
// statusWriter, otherwise untouched.
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

// replayAsInUse answers 409 idempotency_key_in_use instead of a replay, and passes any other
// answer on.
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
