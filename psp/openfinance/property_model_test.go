package openfinance_test

import (
	"crypto/rsa"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/uuid"
	"pgregory.net/rapid"

	"pixretry/internal/testkeys"
	"pixretry/psp"
	"pixretry/psp/openfinance"
	"pixretry/retry/retrytest"
)

// TestOpenFinanceMatchesModel: consents, payments under a few x-idempotency-keys, retries
// signed anew, a jti sent again, and reads of payments and consents, while time passes, answer
// as ofModel (property_model_state_test.go) says payments v4 does, and the ledger and the
// balance are the model's after each step. The model holds the rules of the package doc: a key
// is kept 24 hours on a 201 or a business 422, its data compared, so that other data gets 422
// ERRO_IDEMPOTENCIA and the same data the payment's status now under the same paymentId; a jti
// taken within 24 hours gets 403; a consent is CONSUMED by a 201 or a business 422, REJECTED 60
// minutes after its authorisation if not, and a payment under it is then 422
// CONSENTIMENTO_INVALIDO. A key let go is new again unless a payment was made under it: so a
// key settles at most once. TestPlantedBugsBreakOFModel shows that a front end that breaks a
// rule fails it. RAPID_CHECKS=10000 runs more histories.
func TestOpenFinanceMatchesModel(t *testing.T) {
	var cov retrytest.Coverage
	keys := newModelKeys(t)
	rapid.Check(t, func(t *rapid.T) {
		cfg := ofConfigGen().Draw(t, "config")
		rapid.SyncTest(t, func(t *rapid.T) {
			mc := newOFMachine(t, cfg, keys, nil)
			t.Repeat(mc.actions(failNow))
			cov.Add(mc.seen)
		})
	})
	cov.Require(t, 100, ofEvents...)
}

// ofEvents are the answers and cases that a run of 100 histories must meet, lest a rule of
// ofModel go unchecked.
var ofEvents = []string{"POST payment 201 ACCP", "POST payment 201 ACSC", "POST retry 201 ACSC",
	"POST retry 201 RJCT", "POST payment 422 ERRO_IDEMPOTENCIA", "POST payment 422 CONSENTIMENTO_INVALIDO",
	"POST payment 422 SALDO_INSUFICIENTE", "POST payment 422 PAGAMENTO_DIVERGENTE_CONSENTIMENTO",
	"POST reusing a jti 403 INVALID_CLIENT", "GET payment 200 ACSC", "GET payment 200 RJCT",
	"GET payment 404 NOT_FOUND", "GET consent 200 AUTHORISED", "GET consent 200 CONSUMED", "GET consent 200 REJECTED",
	"POST under a key let go, its payment held", "POST reusing a jti 24 hours on"}

// failNow fails t with err, unless err is nil.
func failNow(t *rapid.T, err error) {
	if err != nil {
		t.Fatal(err)
	}
}

// modelKeys are the keys of the histories: the double's and the client's. They are of 1024
// bits, which sign three times as fast as the other tests' keys of 2048 bits.
type modelKeys struct {
	signing *rsa.PrivateKey
	client  jose.JSONWebKey
}

func newModelKeys(t *testing.T) modelKeys {
	return modelKeys{testkeys.Small(0), jose.JSONWebKey{Key: testkeys.Small(1), KeyID: "model-client", Algorithm: "PS256", Use: "sig"}}
}

// ofWrap wraps the front end of core in a planted bug (property_model_planted_test.go).
type ofWrap func(front http.Handler, core *psp.Server) http.Handler

// ofMachine is a core behind its Open Finance front end, and the model they must follow.
type ofMachine struct {
	core    *psp.Server
	client  jose.JSONWebKey // signs the requests
	h       http.Handler
	m       *ofModel
	lastJTI string          // the jti of the last payment sent
	lastKey string          // its key
	seen    map[string]bool // the answers met, such as "POST retry 201 ACSC"
}

// newOFMachine starts a core of cfg, closed when t ends, behind its Open Finance front end
// with keys, wrapped by wrap, if not nil.
func newOFMachine(t *rapid.T, cfg psp.Config, keys modelKeys, wrap ofWrap) *ofMachine {
	core, err := psp.NewServer(cfg)
	if err != nil {
		t.Fatalf("psp.NewServer() error = %v", err)
	}
	t.Cleanup(core.Close)
	public := keys.client.Public()
	of, err := openfinance.New(core, openfinance.Config{SigningKey: keys.signing, ClientKeys: []jose.JSONWebKey{public}})
	if err != nil {
		t.Fatalf("openfinance.New() error = %v", err)
	}
	var h http.Handler = of
	if wrap != nil {
		h = wrap(h, core)
	}
	return &ofMachine{core: core, client: keys.client, h: h, m: newOFModel(cfg), seen: map[string]bool{}}
}

// actions are the machine's actions for t.Repeat. Each hands fail the departure from the model
// it found, or nil.
func (mc *ofMachine) actions(fail func(*rapid.T, error)) map[string]func(*rapid.T) {
	key, payout, nth := rapid.SampledFrom(ofKeys), rapid.IntRange(0, len(ofPayouts)-1), rapid.IntRange(0, 2)
	moment := rapid.OneOf(retrytest.Millis(1, 5000), rapid.Just(mc.m.cfg.CompleteAfter))
	lifetime := rapid.SampledFrom([]time.Duration{time.Hour - time.Second, time.Hour, 24*time.Hour - time.Second,
		24 * time.Hour}) // to just before or just at the end of a consent's wait, or of a key's or a jti's life
	return map[string]func(*rapid.T){
		"create a consent": func(t *rapid.T) { fail(t, mc.createConsent(payout.Draw(t, "payout"))) },
		"consent, then pay as agreed": func(t *rapid.T) { // under a key that holds nothing
			free := slices.DeleteFunc(slices.Clone(ofKeys), func(k string) bool {
				return mc.m.live(k, time.Now()) != nil || mc.m.paid[k] != nil
			})
			if len(free) == 0 {
				t.Skip("every key holds something")
			}
			p := payout.Draw(t, "payout")
			if err := mc.createConsent(p); err != nil {
				fail(t, err)
				return
			}
			d := ofData{mc.m.consentID(0), p}
			fail(t, mc.pay("POST payment", rapid.SampledFrom(free).Draw(t, "free key"), d, uuid.NewString()))
		},
		"pay": func(t *rapid.T) { // any payout under any key and a consent, the latest or one before
			d := ofData{mc.m.consentID(nth.Draw(t, "consent")), payout.Draw(t, "payout")}
			fail(t, mc.pay("POST payment", key.Draw(t, "key"), d, uuid.NewString()))
		},
		"retry": func(t *rapid.T) { // the data first sent under a key kept, signed anew
			kept := slices.DeleteFunc(slices.Clone(ofKeys), func(k string) bool { return mc.m.live(k, time.Now()) == nil })
			if len(kept) == 0 {
				t.Skip("no key is kept")
			}
			k := rapid.SampledFrom(kept).Draw(t, "kept key")
			fail(t, mc.pay("POST retry", k, mc.m.keys[k].data, uuid.NewString()))
		},
		"reuse a jti": func(t *rapid.T) { // the last payment, signed anew with its jti
			if mc.lastJTI == "" {
				t.Skip("no payment was sent")
			}
			fail(t, mc.pay("POST reusing a jti", mc.lastKey, mc.m.sent[mc.lastKey], mc.lastJTI))
		},
		"read a payment": func(t *rapid.T) { // the latest under a key, or one never made
			id := mc.m.paymentID(key.Draw(t, "key"))
			fail(t, mc.compare("GET payment", mc.send(request(http.MethodGet, openfinance.PaymentsPath+"/"+id, ""), false),
				mc.m.getPayment(id, time.Now())))
		},
		"read a consent": func(t *rapid.T) {
			id := mc.m.consentID(nth.Draw(t, "consent"))
			if id == unknownConsent {
				t.Skip("no consent was created")
			}
			fail(t, mc.compare("GET consent", mc.send(request(http.MethodGet, openfinance.ConsentsPath+"/"+id, ""), true),
				mc.m.getConsent(id, time.Now())))
		},
		"wait a moment":         func(t *rapid.T) { time.Sleep(moment.Draw(t, "wait")) },
		"wait an hour or a day": func(t *rapid.T) { time.Sleep(lifetime.Draw(t, "wait")) },
		"":                      func(t *rapid.T) { fail(t, mc.m.checkLedger(mc.core, time.Now())) },
	}
}

// createConsent creates a consent of payout under a new key, and compares the answer with the
// model's. The model learns the consentId answered.
func (mc *ofMachine) createConsent(payout int) error {
	got := mc.send(mc.signed(openfinance.ConsentsPath, uuid.NewString(),
		claimsFor(openfinance.ConsentsPath, ofConsentData(ofPayouts[payout]))), true)
	return mc.compare("POST consent", got, mc.m.created(got.id, payout, time.Now()))
}

// pay sends d under key, signed with jti, and compares the answer with the model's, as the
// request named. The model learns the paymentId of a new payment from the answer.
func (mc *ofMachine) pay(request, key string, d ofData, jti string) error {
	claims := claimsFor(openfinance.PaymentsPath, ofPaymentData(d))
	claims["jti"] = jti
	mc.lastJTI, mc.lastKey = jti, key
	now := time.Now()
	mc.note("POST under a key let go, its payment held", mc.m.live(key, now) == nil && mc.m.paid[key] != nil)
	mc.note("POST reusing a jti 24 hours on", !now.Before(mc.m.jtis[jti].Add(jtiLifetime)) && !mc.m.jtis[jti].IsZero())
	want := mc.m.pay(key, d, jti, now)
	got := mc.send(mc.signed(openfinance.PaymentsPath, key, claims), false)
	if want.id == newPayment {
		want.id = mc.m.named(got.id)
	}
	return mc.compare(request, got, want)
}

// note notes event as seen if it happened.
func (mc *ofMachine) note(event string, happened bool) { mc.seen[event] = mc.seen[event] || happened }

// compare returns an error if got is not want, and notes want as seen.
func (mc *ofMachine) compare(request string, got, want ofAnswer) error {
	mc.note(request+" "+want.String(), true)
	switch {
	case got.status != want.status || got.code != want.code:
		return fmt.Errorf("%s answered %v, want %v", request, got, want)
	case got.id != want.id: // ids are random: a message holding one would stop rapid's shrinking
		return fmt.Errorf("%s answered %v about another payment or consent than the model's", request, got)
	}
	return nil
}

// signed is a POST to path under key of claims, signed by the client.
func (mc *ofMachine) signed(path, key string, claims map[string]any) *http.Request {
	r := request(http.MethodPost, path, sign(claims, jose.PS256, mc.client))
	r.Header.Set("x-idempotency-key", key)
	return r
}

// send serves r and reads its answer, about a consent if consent is true, else a payment.
func (mc *ofMachine) send(r *http.Request, consent bool) ofAnswer {
	w := httptest.NewRecorder()
	mc.h.ServeHTTP(w, r)
	return readOFAnswer(w, consent)
}

// ofKeys are the x-idempotency-keys of the payments.
var ofKeys = []string{"k1", "k2", "k3", "k4"}

// unknownConsent is the consentId of a payment when no consent was created.
const unknownConsent = "urn:pixretry:unknown"

// ofPayout is a payment's amount, in cents, its Pix key and its remittanceInformation.
type ofPayout struct {
	cents      int64
	proxy      string
	remittance string
}

// ofPayouts are the payouts of consents and payments. The first two differ in
// remittanceInformation alone, so that one consent pays either.
var ofPayouts = []ofPayout{{10000, "pix@example.com", ""}, {10000, "pix@example.com", "aluguel"},
	{25000, "+5511987654321", "conta"}}

// ofConfigGen draws the core's Config: a balance that may fall short, and payments settled at
// once or pending, and rejected: none, the third, or all.
func ofConfigGen() *rapid.Generator[psp.Config] {
	return rapid.Custom(func(t *rapid.T) psp.Config {
		c := psp.DefaultConfig()
		c.BalanceCents = rapid.SampledFrom([]int64{0, 10000, 35000, 1_000_000, 1_000_000, 1_000_000}).Draw(t, "balance")
		c.CompleteAfter = rapid.OneOf(rapid.Just(time.Duration(0)), retrytest.Millis(1, 5000)).Draw(t, "CompleteAfter")
		switch rapid.IntRange(0, 2).Draw(t, "payments rejected: none, the third, all") {
		case 1:
			c.RejectFromCents, c.RejectToCents = ofPayouts[2].cents, ofPayouts[2].cents
		case 2:
			c.RejectFromCents, c.RejectToCents = 1, ofPayouts[2].cents
		}
		return c
	})
}

// ofEndToEndID is the endToEndId the client makes for a payment of payout: one per payout, so
// that the ledger shows whose it holds.
func ofEndToEndID(payout int) string {
	return "E90400888" + "200001010000" + fmt.Sprintf("%011d", payout)
}

// ofConsentData is the data of a consent of p.
func ofConsentData(p ofPayout) map[string]any {
	d := edited(consentData(), psp.FormatAmount(p.cents), "payment", "amount")
	return edited(d, p.proxy, "payment", "details", "proxy")
}

// ofPaymentData is the data of a payment of d, its endToEndId its payout's.
func ofPaymentData(d ofData) []any {
	p := ofPayouts[d.payout]
	item := paymentData(d.consentID)[0].(map[string]any)
	item = edited(item, ofEndToEndID(d.payout), "endToEndId")
	item = edited(item, map[string]any{"amount": psp.FormatAmount(p.cents), "currency": "BRL"}, "payment")
	item = edited(item, p.proxy, "proxy")
	if p.remittance == "" {
		return []any{edited(item, nil, "remittanceInformation")}
	}
	return []any{edited(item, p.remittance, "remittanceInformation")}
}

// ofAnswer is what the model predicts of an answer: its status, its code, and the id of the
// payment or consent it is about. The code is the errors[] item's, else the status of the
// payment or consent.
type ofAnswer struct {
	status int
	code   string
	id     string
}

func (a ofAnswer) String() string { return fmt.Sprintf("%d %s", a.status, a.code) }

// readOFAnswer reads w's answer: a JWS, whose signature it does not check (the other tests
// do), or plain JSON. Its id is the consentId of a consent's answer, else the paymentId.
func readOFAnswer(w *httptest.ResponseRecorder, consent bool) ofAnswer {
	body := w.Body.Bytes()
	if jws, err := jose.ParseSignedCompact(string(body), []jose.SignatureAlgorithm{jose.PS256}); err == nil {
		body = jws.UnsafePayloadWithoutVerification()
	}
	var b struct {
		Data   jsontext.Value `json:"data"`
		Errors []struct {
			Code string `json:"code"`
		} `json:"errors"`
	}
	json.Unmarshal(body, &b) // a body that is no JSON object has no code
	var items []jsontext.Value
	if json.Unmarshal(b.Data, &items) == nil && len(items) > 0 {
		b.Data = items[0] // POST payment's data is an array of one
	}
	var data struct {
		Status    string `json:"status"`
		PaymentID string `json:"paymentId"`
		ConsentID string `json:"consentId"`
	}
	json.Unmarshal(b.Data, &data)
	a := ofAnswer{w.Code, data.Status, data.PaymentID}
	if consent {
		a.id = data.ConsentID
	}
	if len(b.Errors) > 0 {
		a.code = b.Errors[0].Code
	}
	return a
}
