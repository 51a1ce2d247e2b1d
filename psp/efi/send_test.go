package efi_test

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
)

// sentBody is the body of a PUT's 201 for 12.34 under idEnvio abc.
func sentBody(e2eID, status string) string {
	return `{"idEnvio":"abc","e2eId":"` + e2eID + `","valor":"12.34","horario":{"solicitacao":"` + start +
		`"},"status":"` + status + `"}` + "\n"
}

func TestSendAnswers201InProcessingThoughSettled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, h := mustFront(t)
		got := put(h, "abc", payout)
		ledger := s.Settlements()
		if len(ledger) != 1 {
			t.Fatalf("ledger = %v, want one settlement", ledger)
		}
		wantReply(t, got, http.StatusCreated, jsonType, sentBody(ledger[0].EndToEndID, "EM_PROCESSAMENTO"))
		want := psp.Settlement{Token: psp.DefaultToken, IdempotencyKey: "abc", EndToEndID: ledger[0].EndToEndID,
			AmountCents: 1234, PixKey: "pix@example.com", Description: "rent", SettledAt: time.Now().UTC()}
		if diff := cmp.Diff(want, ledger[0]); diff != "" {
			t.Errorf("settlement mismatch (-want +got):\n%s", diff)
		}
		if got, want := s.Stats().BalanceCents, psp.DefaultConfig().BalanceCents-1234; got != want {
			t.Errorf("BalanceCents = %d, want %d", got, want)
		}
	})
}

func TestSendWithoutInfoPagadorPaysWithoutDescription(t *testing.T) {
	s, h := mustFront(t)
	body := strings.Replace(payout, `,"infoPagador":"rent"`, "", 1)
	if got := put(h, "abc", body); got.status != http.StatusCreated {
		t.Fatalf("PUT = %d %s, want 201", got.status, got.body)
	}
	if got := s.Settlements()[0].Description; got != "" {
		t.Errorf("Description = %q, want none", got)
	}
}

func TestSendReplaysTheCurrentState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, h := mustFront(t)
		e2e := e2eID(t, put(h, "abc", payout).body)
		wantReply(t, put(h, "abc", payout), http.StatusCreated, jsonType, sentBody(e2e, "REALIZADO"))
		wantRequests(t, s, 2, 1)
	})
}

func TestSendReplaysAPendingPayoutInProcessing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, h := mustFront(t)
		s.Inject(psp.Pending(time.Minute, "settled"))
		first := put(h, "abc", payout)
		e2e := e2eID(t, first.body)
		wantReply(t, first, http.StatusCreated, jsonType, sentBody(e2e, "EM_PROCESSAMENTO"))
		wantReply(t, put(h, "abc", payout), http.StatusCreated, jsonType, sentBody(e2e, "EM_PROCESSAMENTO"))
		wantRequests(t, s, 2, 0)
	})
}

func TestSendAnotherPayloadUnderTheIdIs409(t *testing.T) {
	s, h := mustFront(t)
	put(h, "abc", payout)
	other := strings.Replace(payout, "12.34", "12.35", 1)
	wantReply(t, put(h, "abc", other), http.StatusConflict, jsonType,
		`{"nome":"id_envio_duplicado","mensagem":"this idEnvio was already used for another payout"}`+"\n")
	wantRequests(t, s, 2, 1)
}

func TestSendWhileInFlightIs500(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, h := mustFront(t)
		s.Inject(psp.Duplicate(time.Second))
		wantReply(t, put(h, "abc", payout), http.StatusInternalServerError, jsonType,
			`{"nome":"erro_aplicacao","mensagem":"a request with this idEnvio is still being processed; retry later"}`+"\n")
		s.Wait()
		wantRequests(t, s, 1, 1)
	})
}

func TestSendBeyondTheBalanceIsDenied(t *testing.T) {
	s, h := mustFront(t, func(c *psp.Config) { c.BalanceCents = 1233 })
	wantReply(t, put(h, "abc", payout), http.StatusUnprocessableEntity, jsonType,
		`{"nome":"pagamento_negado","mensagem":"valor 12.34 exceeds the payer's balance; nothing was paid"}`+"\n")
	wantRequests(t, s, 1, 0)
}

func TestSendReplayOfARejectedPayoutIsDenied(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, h := mustFront(t)
		s.Inject(psp.Pending(time.Minute, "rejected"))
		put(h, "abc", payout)
		time.Sleep(time.Minute)
		wantReply(t, put(h, "abc", payout), http.StatusUnprocessableEntity, jsonType,
			`{"nome":"pagamento_negado","mensagem":"the payout was accepted, then not made (NAO_REALIZADO); `+
				`nothing was paid, and the lookup says why"}`+"\n")
		if got, want := s.Stats().BalanceCents, psp.DefaultConfig().BalanceCents; got != want {
			t.Errorf("BalanceCents = %d, want %d", got, want)
		}
	})
}

func TestSendWithAnUnknownTokenIs401(t *testing.T) {
	s, h := mustFront(t)
	r := putRequest("abc", payout)
	r.Header.Set("Authorization", "Bearer nope")
	wantReply(t, serve(h, r), http.StatusUnauthorized, jsonType,
		`{"error":"invalid_token","error_description":"a known bearer token is required"}`+"\n",
		"WWW-Authenticate", `Bearer realm="psp"`)
	wantRequests(t, s, 1, 0)
}

// TestSendIsJournaledAsTheCorePayment checks that the core's journal holds the payment that
// the PUT became: its path, key, token, traceparent and body.
func TestSendIsJournaledAsTheCorePayment(t *testing.T) {
	s, h := mustFront(t)
	r := putRequest("abc", payout)
	const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	r.Header.Set("Traceparent", traceparent)
	serve(h, r)
	got, _ := s.Requests(psp.RequestFilter{})
	want := []psp.Request{{Seq: 1, Method: http.MethodPost, Path: psp.PaymentsPath, Key: "abc", KeyHeader: "abc",
		Token: 1, Traceparent: traceparent, Status: http.StatusCreated,
		Payload: []byte(`{"valor":"12.34","chave":"pix@example.com","infoPagador":"rent"}` + "\n")}}
	ignore := cmp.FilterPath(func(p cmp.Path) bool {
		name := p.Last().String()
		return name == ".Arrived" || name == ".Elapsed"
	}, cmp.Ignore())
	if diff := cmp.Diff(want, got, ignore); diff != "" {
		t.Errorf("Requests() mismatch (-want +got):\n%s", diff)
	}
}
