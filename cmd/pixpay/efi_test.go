package main

// pixpay -dialect efi: keys that fit an idEnvio, the payer's key sent as pagador.chave, and
// every intent settled once.

import (
	"maps"
	"strings"
	"testing"
	"time"

	"pixretry/pix/efi"
	efipsp "pixretry/psp/efi"
)

// A plain run in Efí's dialect: each payout is accepted EM_PROCESSAMENTO, then resent under
// its idEnvio, which replays it settled.
func TestPaysInEfi(t *testing.T) {
	t.Parallel()
	var c *counted
	s := newScenarioSpeaking(t, sqliteDB(t), time.Hour, speaking{args: []string{"-dialect", "efi"},
		front: counting(efiFront, &c)})
	for i, id := range []string{"a", "b", "c"} {
		if in := s.add(id, int64(101+i)); len(in.Key) != 32 || (efi.Dialect{}).CheckKey(in.Key) != nil {
			t.Errorf("add %s: key %q, want an idEnvio of 32 hexadecimal digits", id, in.Key)
		}
	}
	s.finish()
	for id, in := range s.check() {
		if in.ConsentID != "" || in.PaymentID != "" {
			t.Errorf("intent %s lists consent %q and paymentId %q, want neither in Efí's dialect", id, in.ConsentID, in.PaymentID)
		}
	}
	got := c.counts()
	want := map[string]int{"PUT /v2/gn/pix/{id}": 6}
	if !maps.Equal(got, want) {
		t.Errorf("requests %v, want %v: each intent's PUT, then the replay that settles it", got, want)
	}
}

// -payer-key is sent as pagador.chave: the double pays only from its payer's key, and answers
// another with 400 chave_invalida. The intent's key never left before, so durable takes that
// answer as definitive: the intent is refused at its first attempt, and run -until-done ends.
func TestEfiSendsThePayerKey(t *testing.T) {
	t.Parallel()
	s := newScenarioSpeaking(t, sqliteDB(t), time.Hour,
		speaking{args: []string{"-dialect", "efi", "-payer-key", "+5511987654321"}, front: efiFront})
	s.add("a", 100)
	_, stderr, code := pixpay(t, append(s.speaking.args, "-db", s.db, "-psp", s.url, "-poll", "10ms", "run",
		"-until-done")...)
	if want := "pixpay: run ended; the database holds 0 settled, 1 refused and 0 pending intents\n"; code != 0 ||
		!strings.HasSuffix(stderr, want) {
		t.Errorf("run -until-done: exit %d, stderr %q; want exit 0 and the end %q", code, stderr, want)
	}
	want := "pix: PSP answered 400 chave_invalida: pagador.chave is not a key of the authenticated account, whose key " +
		"is " + efipsp.PayerKey
	if got := s.list()["a"]; got.Status != "refused" || got.Error != want || got.Resumptions != 1 ||
		len(s.srv.Settlements()) != 0 {
		t.Errorf("a = %+v, ledger %v; want refused at its first attempt, unpaid, with the error %q", got,
			s.srv.Settlements(), want)
	}
}
