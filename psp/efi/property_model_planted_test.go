package efi_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"pixretry/psp/efi"
)

// TestPlantedBugsBreakEfiModel: behind each planted bug, a front end that breaks one rule of
// efiModel, TestEfiMatchesModel's histories meet a departure from the model, the one the bug
// makes. Behind relayed, which changes nothing, they meet none: a bug is caught for its bug,
// not for being a wrapper.
func TestPlantedBugsBreakEfiModel(t *testing.T) {
	for _, bug := range []struct {
		name string
		wrap func(http.Handler) http.Handler
		want string // in the departure; "" for none
	}{
		{"tellsTheEndInThePut", tellsTheEndInThePut, "answered 201 REALIZADO, want 201 EM_PROCESSAMENTO"},
		{"acceptsAnotherPayout", acceptsAnotherPayout, "answered 201 EM_PROCESSAMENTO, want 409 id_envio_duplicado"},
		{"deniesAsConflict", deniesAsConflict, "answered 409 id_envio_duplicado, want 422 pagamento_negado"},
		{"paysTwice", paysTwice, "the balance is"},
		{"paysAnotherKey", paysAnotherKey, "1000 other@example.com"},
		{"relayed", relayed, ""},
	} {
		t.Run(bug.name, func(t *testing.T) {
			var caught error
			rapid.Check(t, func(t *rapid.T) {
				if caught != nil {
					return // one departure is enough
				}
				cfg := efiConfigGen().Draw(t, "config")
				rapid.SyncTest(t, func(t *rapid.T) {
					mc := newEfiMachine(t, cfg, bug.wrap)
					t.Repeat(mc.actions(func(_ *rapid.T, err error) {
						if caught == nil {
							caught = err
						}
					}))
				})
			})
			switch {
			case bug.want == "" && caught != nil:
				t.Fatalf("behind %s, a history departs from the model: %v", bug.name, caught)
			case bug.want != "" && (caught == nil || !strings.Contains(caught.Error(), bug.want)):
				t.Fatalf("behind %s, the departure is %v, want one saying %q", bug.name, caught, bug.want)
			}
		})
	}
}

// rewritten serves r through h, then lets edit change the answer's status and body before
// they are sent.
func rewritten(h http.Handler, edit func(r *http.Request, status *int, body *string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		status, body := rec.Code, rec.Body.String()
		edit(r, &status, &body)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(status)
		w.Write([]byte(body))
	})
}

// relayed changes nothing.
func relayed(h http.Handler) http.Handler {
	return rewritten(h, func(*http.Request, *int, *string) {})
}

// tellsTheEndInThePut answers a PUT accepted with the payout's status now, REALIZADO when it
// settled at once, as the core does, not EM_PROCESSAMENTO, as Efí does.
func tellsTheEndInThePut(h http.Handler) http.Handler {
	return rewritten(h, func(r *http.Request, status *int, body *string) {
		if r.Method == http.MethodPut && *status == http.StatusCreated && !strings.Contains(*body, "REALIZADO") {
			*body = strings.Replace(*body, "EM_PROCESSAMENTO", "REALIZADO", 1)
		}
	})
}

// acceptsAnotherPayout answers another payout under a used idEnvio as if it had been accepted.
func acceptsAnotherPayout(h http.Handler) http.Handler {
	return rewritten(h, func(r *http.Request, status *int, body *string) {
		if *status == http.StatusConflict {
			id := strings.TrimPrefix(r.URL.Path, efi.SendPath)
			*status, *body = http.StatusCreated, `{"idEnvio":"`+id+`","status":"EM_PROCESSAMENTO"}`
		}
	})
}

// deniesAsConflict maps the core's refusals to 409 id_envio_duplicado instead of 422
// pagamento_negado.
func deniesAsConflict(h http.Handler) http.Handler {
	return rewritten(h, func(_ *http.Request, status *int, body *string) {
		if *status == http.StatusUnprocessableEntity {
			*status, *body = http.StatusConflict, `{"nome":"id_envio_duplicado","mensagem":"used"}`
		}
	})
}

// paysTwice sends each PUT twice, the second time under another idEnvio, as a front end that
// retried under a new key would.
func paysTwice(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			body := new(bytes.Buffer)
			body.ReadFrom(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body.Bytes()))
			h.ServeHTTP(w, r)
			h.ServeHTTP(httptest.NewRecorder(), putRequest(strings.TrimPrefix(r.URL.Path, efi.SendPath)+"again", body.String()))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// paysAnotherKey pays the payouts to pix@example.com to another Pix key.
func paysAnotherKey(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := new(bytes.Buffer)
		body.ReadFrom(r.Body)
		changed := strings.Replace(body.String(), `"chave":"pix@example.com"`, `"chave":"other@example.com"`, 1)
		r.Body, r.ContentLength = io.NopCloser(strings.NewReader(changed)), int64(len(changed))
		h.ServeHTTP(w, r)
	})
}
