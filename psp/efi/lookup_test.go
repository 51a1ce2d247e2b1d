package efi_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
	"pixretry/psp/efi"
)

// enviadoBody is the body of a lookup's 200 of the payout of 12.34 under idEnvio abc, whose
// status says where it stands: REALIZADO settled at settledAt, or EM_PROCESSAMENTO asked for
// at askedAt, or NAO_REALIZADO asked for or ended at askedAt and with motivo.
func enviadoBody(e2eID, status, motivo, askedAt, settledAt string) string {
	body := `{"endToEndId":"` + e2eID + `","idEnvio":"abc","valor":"12.34","chave":"pagador@pixretry.example",` +
		`"status":"` + status + `",`
	if motivo != "" {
		body += `"motivo":"` + motivo + `",`
	}
	body += `"infoPagador":"rent","horario":{"solicitacao":"` + askedAt + `"`
	if settledAt != "" {
		body += `,"liquidacao":"` + settledAt + `"`
	}
	return body + `},"favorecido":{"chave":"pix@example.com"}}` + "\n"
}

func TestLookupSaysRealizado(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, h := mustFront(t)
		e2e := e2eID(t, put(h, "abc", payout).body)
		wantReply(t, get(h, "abc"), http.StatusOK, jsonType, enviadoBody(e2e, "REALIZADO", "", start, start))
	})
}

// notFound is the body of a lookup's 404.
const notFound = `{"type":"https://pix.bcb.gov.br/api/v2/error/PixEnviadoNaoEncontrado","title":"Not Found",` +
	`"status":404,"detail":"no payout was made under this idEnvio, and none will be: the idEnvio is closed"}` + "\n"

// TestLookupOfAnIdNeverUsedClosesIt checks the 404 of an idEnvio never used, and that nothing
// is paid under it later: the PUT is denied, and the lookup still answers 404.
func TestLookupOfAnIdNeverUsedClosesIt(t *testing.T) {
	s, h := mustFront(t)
	wantReply(t, get(h, "abc"), http.StatusNotFound, problemType, notFound)
	wantReply(t, put(h, "abc", payout), http.StatusUnprocessableEntity, jsonType,
		`{"nome":"pagamento_negado","mensagem":"a lookup found no payout under this idEnvio and closed it: `+
			`nothing was paid, and nothing will be; pay under a new idEnvio"}`+"\n")
	wantReply(t, get(h, "abc"), http.StatusNotFound, problemType, notFound)
	wantRequests(t, s, 1, 0)
	if got, want := s.Stats().BalanceCents, psp.DefaultConfig().BalanceCents; got != want {
		t.Errorf("BalanceCents = %d, want %d", got, want)
	}
	if got := put(h, "abd", payout); got.status != http.StatusCreated {
		t.Errorf("PUT under a new idEnvio = %d %s, want 201", got.status, got.body)
	}
}

func TestLookupFollowsAPendingPayoutToItsEnd(t *testing.T) {
	for _, tc := range []struct {
		then, status, motivo, settledAt string
	}{
		{"settled", "REALIZADO", "", "2000-01-01T00:01:00.000Z"},
		{"rejected", "NAO_REALIZADO", "rejected by a pending fault", ""},
	} {
		t.Run(tc.then, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, h := mustFront(t)
				s.Inject(psp.Pending(time.Minute, tc.then))
				e2e := e2eID(t, put(h, "abc", payout).body)
				time.Sleep(time.Minute - time.Nanosecond)
				wantReply(t, get(h, "abc"), http.StatusOK, jsonType, enviadoBody(e2e, "EM_PROCESSAMENTO", "", start, ""))
				time.Sleep(time.Nanosecond)
				const end = "2000-01-01T00:01:00.000Z"
				wantReply(t, get(h, "abc"), http.StatusOK, jsonType, enviadoBody(e2e, tc.status, tc.motivo, end, tc.settledAt))
			})
		})
	}
}

// TestLookupFollowsTheConfiguredCourse pays a valor that Config.CompleteAfter settles late,
// and one that Config.RejectFromCents rejects, as Efí's sandbox does by valor.
func TestLookupFollowsTheConfiguredCourse(t *testing.T) {
	for _, tc := range []struct {
		name, status, motivo, settledAt string
		rejectFrom                      int64
	}{
		{"settled", "REALIZADO", "", "2000-01-01T00:00:30.000Z", 1235},
		{"rejected", "NAO_REALIZADO", "valor 12.34 is in the range the PSP rejects, 12.34 to 20.00", "", 1234},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				_, h := mustFront(t, func(c *psp.Config) {
					c.CompleteAfter = 30 * time.Second
					c.RejectFromCents, c.RejectToCents = tc.rejectFrom, 2000
				})
				e2e := e2eID(t, put(h, "abc", payout).body)
				wantReply(t, get(h, "abc"), http.StatusOK, jsonType, enviadoBody(e2e, "EM_PROCESSAMENTO", "", start, ""))
				time.Sleep(30 * time.Second)
				const end = "2000-01-01T00:00:30.000Z"
				wantReply(t, get(h, "abc"), http.StatusOK, jsonType, enviadoBody(e2e, tc.status, tc.motivo, end, tc.settledAt))
			})
		})
	}
}

func TestLookupWhileInFlightIs500(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, h := mustFront(t)
		s.Inject(psp.Slow(time.Second))
		done := make(chan reply)
		go func() { done <- put(h, "abc", payout) }()
		synctest.Wait()
		wantReply(t, get(h, "abc"), http.StatusInternalServerError, jsonType,
			`{"nome":"erro_aplicacao","mensagem":"a request with this idEnvio is still being processed; retry later"}`+"\n")
		if got := <-done; got.status != http.StatusCreated {
			t.Errorf("PUT = %d %s, want 201", got.status, got.body)
		}
	})
}

func TestLookupThatCannotProveIs410(t *testing.T) {
	_, h := mustFront(t, func(c *psp.Config) { c.MaxSettlements = 1 })
	put(h, "abc", payout)
	put(h, "abd", payout)
	wantReply(t, get(h, "abe"), http.StatusGone, problemType,
		`{"type":"https://pix.bcb.gov.br/api/v2/error/PermanentementeRemovido","title":"Gone","status":410,`+
			`"detail":"the PSP has dropped payouts from its ledger and cannot tell whether one was made under this idEnvio"}`+"\n")
}

func TestLookupWithAnUnknownTokenIs401(t *testing.T) {
	s, h := mustFront(t)
	r := httptest.NewRequest(http.MethodGet, efi.LookupPath+"abc", nil)
	r.Header.Set("Authorization", "Bearer nope")
	wantReply(t, serve(h, r), http.StatusUnauthorized, jsonType,
		`{"error":"invalid_token","error_description":"a known bearer token is required"}`+"\n",
		"WWW-Authenticate", `Bearer realm="psp"`)
	if st := s.Stats(); st.Lookups != 1 || st.ClosedKeys != 0 {
		t.Errorf("Stats() = %d lookups, %d closed keys, want 1, 0", st.Lookups, st.ClosedKeys)
	}
}

// TestLookupIsJournaledAsTheCoreLookup checks which header fields of a lookup reach the core:
// its Authorization and traceparent, and not an Idempotency-Key, which would name another key
// than idEnvio.
func TestLookupIsJournaledAsTheCoreLookup(t *testing.T) {
	s, h := mustFront(t)
	r := httptest.NewRequest(http.MethodGet, efi.LookupPath+"abc", nil)
	r.Header.Set("Authorization", "Bearer "+psp.DefaultToken)
	const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	r.Header.Set("Traceparent", traceparent)
	r.Header.Set(psp.IdempotencyKeyHeader, "other")
	serve(h, r)
	got, _ := s.Requests(psp.RequestFilter{})
	want := []psp.Request{{Seq: 1, Method: http.MethodGet, Path: psp.PaymentsPath + "?" + psp.LookupParam + "=abc",
		Key: "abc", Token: 1, Traceparent: traceparent, Status: http.StatusNotFound}}
	ignore := cmp.FilterPath(func(p cmp.Path) bool {
		name := p.Last().String()
		return name == ".Arrived" || name == ".Elapsed"
	}, cmp.Ignore())
	if diff := cmp.Diff(want, got, ignore); diff != "" {
		t.Errorf("Requests() mismatch (-want +got):\n%s", diff)
	}
}
