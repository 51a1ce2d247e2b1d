package efi_test

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"pgregory.net/rapid"

	"pixretry/psp"
	"pixretry/psp/efi"
	"pixretry/retry/retrytest"
)

// TestEfiMatchesModel: PUTs and lookups of three idEnvios, used or not, with a few payouts,
// while time passes, answer as efiModel (property_model_state_test.go) says Efí's dialect does,
// and the ledger and the balance are the model's after each step. The model holds the replay
// rules of the package doc: a new idEnvio answers 201 EM_PROCESSAMENTO, though its payout
// settled; the same payout replays the current state (201 EM_PROCESSAMENTO or REALIZADO, 422
// pagamento_negado once NAO_REALIZADO or refused), another payout 409 id_envio_duplicado; a
// lookup's 404 closes the idEnvio, and a later PUT answers 422. An idEnvio settles at most once
// until the core's KeyTTL has passed since its payout's end. TestPlantedBugsBreakEfiModel shows
// that a front end that breaks a rule fails it. RAPID_CHECKS=10000 runs more histories.
func TestEfiMatchesModel(t *testing.T) {
	var cov retrytest.Coverage
	rapid.Check(t, func(t *rapid.T) {
		cfg := efiConfigGen().Draw(t, "config")
		rapid.SyncTest(t, func(t *rapid.T) {
			mc := newEfiMachine(t, cfg, nil)
			t.Repeat(mc.actions(failNow))
			cov.Add(mc.seen)
		})
	})
	cov.Require(t, 100, efiEvents...)
}

// efiEvents are the answers that a run of 100 histories must meet, lest a rule of efiModel go
// unchecked.
var efiEvents = []string{"PUT 201 EM_PROCESSAMENTO", "PUT 201 REALIZADO", "PUT 409 id_envio_duplicado",
	"PUT 422 pagamento_negado", "GET 200 EM_PROCESSAMENTO", "GET 200 REALIZADO", "GET 200 NAO_REALIZADO",
	"GET 404 PixEnviadoNaoEncontrado", "PUT under a closed idEnvio", "PUT under an expired idEnvio"}

// failNow fails t with err, unless err is nil.
func failNow(t *rapid.T, err error) {
	if err != nil {
		t.Fatal(err)
	}
}

// efiMachine is a core behind its Efí front end, and the model they must follow.
type efiMachine struct {
	s    *psp.Server
	h    http.Handler
	m    *efiModel
	seen map[string]bool // the answers met, such as "PUT 201 REALIZADO"
}

// newEfiMachine starts a core of cfg, closed when t ends, behind its Efí front end wrapped by
// wrap, if not nil.
func newEfiMachine(t *rapid.T, cfg psp.Config, wrap func(http.Handler) http.Handler) *efiMachine {
	s, err := psp.NewServer(cfg)
	if err != nil {
		t.Fatalf("psp.NewServer() error = %v", err)
	}
	t.Cleanup(s.Close)
	var h http.Handler = efi.NewHandler(s)
	if wrap != nil {
		h = wrap(h)
	}
	return &efiMachine{s: s, h: h, m: newEfiModel(cfg), seen: map[string]bool{}}
}

// actions are the machine's actions for t.Repeat. Each hands fail the departure from the model
// it found, or nil.
func (mc *efiMachine) actions(fail func(*rapid.T, error)) map[string]func(*rapid.T) {
	id, payout := rapid.SampledFrom(efiIDs), rapid.IntRange(0, len(efiPayouts)-1)
	ttl, after := mc.m.cfg.KeyTTL, mc.m.cfg.CompleteAfter
	wait := rapid.OneOf(retrytest.Millis(1, 3000), rapid.SampledFrom([]time.Duration{after, ttl, ttl + time.Millisecond}))
	return map[string]func(*rapid.T){
		"PUT a payout": func(t *rapid.T) { fail(t, mc.put(id.Draw(t, "idEnvio"), payout.Draw(t, "payout"))) },
		"PUT again": func(t *rapid.T) { // the payout last sent under a used idEnvio
			i := mc.used(t)
			fail(t, mc.put(i, mc.m.sent[i].payout))
		},
		"PUT another payout": func(t *rapid.T) { // under a used idEnvio
			i := mc.used(t)
			fail(t, mc.put(i, (mc.m.sent[i].payout+1)%len(efiPayouts)))
		},
		"look up an idEnvio":     func(t *rapid.T) { fail(t, mc.get(id.Draw(t, "idEnvio"))) },
		"look up a used idEnvio": func(t *rapid.T) { fail(t, mc.get(mc.used(t))) },
		"wait":                   func(t *rapid.T) { time.Sleep(wait.Draw(t, "wait")) },
		"":                       func(t *rapid.T) { fail(t, mc.m.checkLedger(mc.s, time.Now())) },
	}
}

// used draws an idEnvio that a PUT has used, or skips the action if none has.
func (mc *efiMachine) used(t *rapid.T) string {
	used := slices.Sorted(maps.Keys(mc.m.sent))
	if len(used) == 0 {
		t.Skip("no idEnvio was used")
	}
	return rapid.SampledFrom(used).Draw(t, "used idEnvio")
}

// put sends payout under id and compares the answer with the model's.
func (mc *efiMachine) put(id string, payout int) error {
	now := time.Now()
	mc.m.endDue(now)
	mc.note("PUT under a closed idEnvio", mc.m.closed[id] && mc.m.live(id, now) == nil)
	mc.note("PUT under an expired idEnvio", mc.m.sent[id] != nil && mc.m.live(id, now) == nil)
	got := answerOf(put(mc.h, id, efiPayouts[payout].body()))
	return mc.compare("PUT", fmt.Sprintf("PUT %s payout %d", id, payout), got, mc.m.put(id, payout, now))
}

// get looks id up and compares the answer with the model's.
func (mc *efiMachine) get(id string) error {
	return mc.compare("GET", "GET "+id, answerOf(get(mc.h, id)), mc.m.lookup(id, time.Now()))
}

// note notes event as seen if it happened.
func (mc *efiMachine) note(event string, happened bool) { mc.seen[event] = mc.seen[event] || happened }

// compare returns an error if got, the answer to request, is not want, and notes want as seen
// in answer to method.
func (mc *efiMachine) compare(method, request string, got, want efiAnswer) error {
	mc.note(method+" "+want.String(), true)
	if got != want {
		return fmt.Errorf("%s answered %v, want %v", request, got, want)
	}
	return nil
}

// efiIDs are the idEnvios of the requests.
var efiIDs = []string{"e1", "e2", "e3"}

// efiPayout is a payout's valor, in cents, the favorecido's chave and the infoPagador.
type efiPayout struct {
	cents int64
	chave string
	info  string
}

// efiPayouts are the payouts of the requests: the first two differ in infoPagador alone.
var efiPayouts = []efiPayout{{1000, "pix@example.com", ""}, {1000, "pix@example.com", "aluguel"},
	{2500, "+5511987654321", "conta"}}

// body is p as a PUT's body.
func (p efiPayout) body() string {
	info := ""
	if p.info != "" {
		info = `,"infoPagador":"` + p.info + `"`
	}
	return fmt.Sprintf(`{"valor":"%s","pagador":{"chave":"%s"%s},"favorecido":{"chave":"%s"}}`,
		psp.FormatAmount(p.cents), efi.PayerKey, info, p.chave)
}

// efiConfigGen draws the core's Config: a balance that may fall short, a KeyTTL of a minute or
// a day, and payouts settled at once or pending, and rejected: none, the third, or all.
func efiConfigGen() *rapid.Generator[psp.Config] {
	return rapid.Custom(func(t *rapid.T) psp.Config {
		c := psp.DefaultConfig()
		c.BalanceCents = rapid.SampledFrom([]int64{0, 1000, 3500, 100_000, 100_000, 100_000}).Draw(t, "balance")
		c.KeyTTL = rapid.SampledFrom([]time.Duration{time.Minute, 24 * time.Hour}).Draw(t, "KeyTTL")
		c.CompleteAfter = rapid.OneOf(rapid.Just(time.Duration(0)), retrytest.Millis(1, 5000)).Draw(t, "CompleteAfter")
		switch rapid.IntRange(0, 2).Draw(t, "payouts rejected: none, the third, all") {
		case 1:
			c.RejectFromCents, c.RejectToCents = efiPayouts[2].cents, efiPayouts[2].cents
		case 2:
			c.RejectFromCents, c.RejectToCents = 1, efiPayouts[2].cents
		}
		return c
	})
}

// efiAnswer is what the model predicts of an answer: its status and its code, the nome of an
// error in Efí's form, the Tipo of a problem, or the status of a payout.
type efiAnswer struct {
	status int
	code   string
}

func (a efiAnswer) String() string { return fmt.Sprintf("%d %s", a.status, a.code) }

// answerOf reads r's status and code.
func answerOf(r reply) efiAnswer {
	var body struct {
		Nome   string `json:"nome"`
		Type   string `json:"type"`
		Status any    `json:"status"` // a payout's status, or a problem's number
	}
	json.Unmarshal([]byte(r.body), &body) // a body that is no JSON object has no code
	status, _ := body.Status.(string)
	return efiAnswer{r.status, body.Nome + strings.TrimPrefix(body.Type, "https://pix.bcb.gov.br/api/v2/error/") + status}
}
