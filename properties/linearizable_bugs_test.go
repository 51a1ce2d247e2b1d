package properties_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync"
)

// The planted bugs of the linearizability check: each wraps the real PSP and breaks one rule of
// keyModel, as a PSP could. TestPlantedBugsAreNotLinearizable records them as it records the
// PSP and requires porcupine to find each history illegal.

// nonAtomicReserve is a PSP whose check that a key is new and its reservation of the key are
// not one step. It remembers a key only once an answer under it is out, and sends a key it does
// not remember to the PSP as a key of its own. Requests that arrive while the first one is in
// flight pass the check too, and each of them settles.
func nonAtomicReserve(next http.Handler) http.Handler {
	var (
		mu       sync.Mutex
		reserved = map[keyID]string{}
		fresh    int
	)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := keyOf(r)
		mu.Lock()
		inner, known := reserved[id]
		if !known {
			fresh++
			inner = fmt.Sprintf("%s.%d", id.Key, fresh)
		}
		mu.Unlock()
		sendUnder(r, inner)
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if !known && sw.status != 0 {
			mu.Lock()
			if _, ok := reserved[id]; !ok {
				reserved[id] = inner
			}
			mu.Unlock()
		}
	})
}

// replayAcrossPayloads is a PSP that stores answers by key alone. It sends every request under
// a key with the body of the first request it saw under that key. Another payload so gets the
// first payload's answer (or its 409) instead of 422 idempotency_key_reused.
func replayAcrossPayloads(next http.Handler) http.Handler {
	var (
		mu    sync.Mutex
		first = map[keyID][]byte{}
	)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		id := keyOf(r)
		mu.Lock()
		if seen, ok := first[id]; ok {
			body = seen
		} else {
			first[id] = body
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

// statusWriter notes the status of the answer it passes on. It is 0 if none went out, as when
// a drop fault closed the connection.
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
	if h.Get(replayedHeader) != "true" {
		w.ResponseWriter.WriteHeader(status)
		return
	}
	w.hidden = true
	h.Del(replayedHeader)
	h.Del("Content-Length")
	writeInUse(w.ResponseWriter)
}

func (w *replayAsInUse) Write(b []byte) (int, error) {
	if w.hidden {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets a drop fault take the connection (http.ResponseController).
func (w *replayAsInUse) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// notingStatus is the control of the planted bugs: the PSP behind the status-noting writer
// that nonAtomicReserve uses, and otherwise untouched.
func notingStatus(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&statusWriter{ResponseWriter: w}, r)
	})
}
