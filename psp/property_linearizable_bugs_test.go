package psp_test

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"pixretry/psp"
)

// The planted bugs wrap the PSP. Those that edit its answer serve it into an httptest recorder,
// then relay it. A drop fault cannot take a recorder's connection over, so it aborts the handler
// instead, and net/http closes the client's connection all the same.

// nonAtomicReserve is a planted bug: checking that a key is new and reserving it are two steps.
// A key is remembered once a request under it is processed, so each request that arrives while
// the first is in flight is sent under a new inner key, and settles.
func nonAtomicReserve(next http.Handler) http.Handler {
	var (
		mu       sync.Mutex
		reserved = map[scope]string{}
		fresh    int
	)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sc := scope{strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), r.Header.Get(psp.IdempotencyKeyHeader)}
		mu.Lock()
		inner, known := reserved[sc]
		if !known {
			fresh++
			inner = fmt.Sprintf("%s.%d", sc.key, fresh)
		}
		mu.Unlock()
		r.Header.Set(psp.IdempotencyKeyHeader, inner)
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		mu.Lock()
		if _, ok := reserved[sc]; !ok {
			reserved[sc] = inner
		}
		mu.Unlock()
		relay(w, rec)
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
		sc := scope{r.Header.Get("Authorization"), r.Header.Get(psp.IdempotencyKeyHeader)}
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
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if rec.Header().Get("Idempotent-Replayed") != "true" {
			relay(w, rec)
			return
		}
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusConflict)
		fmt.Fprintf(w, `{"status":409,"code":%q}`, "idempotency_key_in_use")
	})
}

// paysTwice is a planted bug: a payment settles twice. After a fresh 201 the request goes to the
// PSP again under a shadow key, whose answer nobody sees. Every answer stays right: only the
// ledger shows the second settlement.
func paysTwice(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		again := r.Clone(r.Context())
		again.Header.Set(psp.IdempotencyKeyHeader, r.Header.Get(psp.IdempotencyKeyHeader)+"-again")
		r.Body, again.Body = io.NopCloser(bytes.NewReader(body)), io.NopCloser(bytes.NewReader(body))
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if rec.Code == http.StatusCreated && rec.Header().Get("Idempotent-Replayed") != "true" {
			next.ServeHTTP(httptest.NewRecorder(), again)
		}
		relay(w, rec)
	})
}

// relayed is the planted bugs' control: the PSP's answers served into a recorder and relayed.
func relayed(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		relay(w, rec)
	})
}

// relay writes the answer rec holds to w.
func relay(w http.ResponseWriter, rec *httptest.ResponseRecorder) {
	maps.Copy(w.Header(), rec.Header())
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}
