package psp_test

import (
	"encoding/json"
	"fmt"
	"time"

	"pgregory.net/rapid"
)

// The checks of TestPSPMatchesModel for payments accepted pending: what their answers carry,
// and what a lookup of their key answers until it expires.

// lookupPending checks r, the answer to a lookup of k's live key: 202 with the body of its 202,
// byte for byte, while its payment is pending; 200 NAO_REALIZADO with the rejection's horario
// and motivo once it is rejected. An answer k has not learnt yet (its 202 was dropped) is
// learnt here.
func (mc *pspMachine) lookupPending(t *rapid.T, k *modelKey, r reply) {
	if k.status == 422 { // rejected
		if r.Err != nil || r.Status != 200 {
			t.Fatalf("a lookup of a rejected payment got %d %q (error %v), want 200 NAO_REALIZADO",
				r.Status, problemCode(r.Body), r.Err)
		}
		mc.learnAbout(t, k, r.Body, "NAO_REALIZADO", k.rejected)
		return
	}
	if r.Err != nil || r.Status != 202 {
		t.Fatalf("a lookup of a pending payment got %d %q (error %v), want 202", r.Status, problemCode(r.Body), r.Err)
	}
	if k.Answer == "" { // only a dropped answer has shown it
		mc.learn(t, k, r.Body)
		k.Answer = fmt.Sprintf("202 %s", r.Body)
	}
	if fmt.Sprintf("202 %s", r.Body) != k.Answer {
		t.Logf("stored %q\ngot    202 %s", k.Answer, r.Body)
		t.Fatalf("a lookup of a pending payment got another body than its 202")
	}
}

// learnAbout checks body, an answer about k's accepted payment whose status member is status:
// its payload, its horario (k.settled), the motivo (for a rejection) and an endToEndId of the
// default ISPB and the minute of the commit. That endToEndId is k's, if k has learnt one, else
// new to the run, and k learns it.
func (mc *pspMachine) learnAbout(t *rapid.T, k *modelKey, body []byte, status, motivo string) {
	id, ok := wantAbout(body, k.Payload, status, k.settled, k.accepted, motivo)
	if !ok {
		t.Logf("body %s", body)
		t.Fatalf("an answer about %+v is not %s at %v, accepted at %v", k.Payload, status, k.settled, k.accepted)
	}
	switch {
	case k.endToEndID != "" && id != k.endToEndID:
		t.Fatalf("a payment's answers carry two endToEndIds")
	case k.endToEndID == "" && mc.seen[id]:
		t.Fatalf("an endToEndId was answered for two payments")
	}
	mc.seen[id] = true
	k.endToEndID = id
}

// about is the body of a 201, a 202 or a lookup's 200: a receipt, and a rejection's motivo.
type about struct {
	receipt
	Motivo string `json:"motivo"`
}

// wantAbout reports whether body is an answer about p whose status member is status, with
// horario at, motivo ("" for none), and an endToEndId of the default ISPB and the minute
// accepted, which it returns.
func wantAbout(body []byte, p payload, status string, at, accepted time.Time, motivo string) (string, bool) {
	var got about
	if err := json.Unmarshal(body, &got); err != nil {
		return "", false
	}
	want := about{receipt{EndToEndID: got.EndToEndID, Valor: p.Valor, Chave: p.Chave, InfoPagador: p.InfoPagador,
		Status: status, Horario: at.UTC().Format(time.RFC3339Nano)}, motivo}
	m := endToEndPattern.FindStringSubmatch(got.EndToEndID)
	return got.EndToEndID, got == want && m != nil && m[1] == "12345678" && m[2] == accepted.UTC().Format("200601021504")
}
