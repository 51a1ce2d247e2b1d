package openfinance_test

import (
	"cmp"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"pixretry/psp"
	"pixretry/psp/openfinance"
)

// wantConsent is the body of an answer about the consent id of consentData, with status,
// updated at, and self its links.self.
func wantConsent(id, status, updated, self string) map[string]any {
	data := consentData()
	data["consentId"], data["status"] = id, status
	data["creationDateTime"], data["statusUpdateDateTime"] = start, updated
	data["expirationDateTime"] = "2000-01-01T01:00:00Z"
	if status == "REJECTED" {
		data["rejectionReason"] = map[string]any{"code": "TEMPO_EXPIRADO_CONSUMO",
			"detail": "the consent was not consumed within 60 minutes of its authorisation"}
	}
	return map[string]any{"data": data, "links": map[string]any{"self": self},
		"meta": map[string]any{"requestDateTime": time.Now().UTC().Format(time.RFC3339)}}
}

func TestPostConsentAuthorisesIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		a := b.post(openfinance.ConsentsPath, "k1", consentData())
		if a.status != http.StatusCreated {
			t.Fatalf("POST consents = %d %s, want 201", a.status, a.body)
		}
		id, _ := a.claims["data"].(map[string]any)["consentId"].(string)
		if !strings.HasPrefix(id, "urn:pixretry:") || uuid.Validate(strings.TrimPrefix(id, "urn:pixretry:")) != nil {
			t.Fatalf("consentId = %q, want urn:pixretry: and a UUID", id)
		}
		self := "http://" + host + openfinance.ConsentsPath + "/" + id
		if diff := gocmp.Diff(wantConsent(id, "AUTHORISED", start, self), a.claims); diff != "" {
			t.Errorf("POST consents (-want +got):\n%s", diff)
		}
		if got, want := a.header.Get("x-fapi-interaction-id"), "d78fc4e5-37ca-4da3-adf2-9b082bf92280"; got != want {
			t.Errorf("x-fapi-interaction-id = %q, want %q", got, want)
		}
		time.Sleep(time.Minute)
		got := b.get(openfinance.ConsentsPath + "/" + id)
		if diff := gocmp.Diff(wantConsent(id, "AUTHORISED", start, self), got.claims); got.status != http.StatusOK || diff != "" {
			t.Errorf("GET consent = %d (-want +got):\n%s", got.status, diff)
		}
	})
}

func TestConsentExpiresUnconsumedAfter60Minutes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		id := b.mustConsent(consentData())
		self := "http://" + host + openfinance.ConsentsPath + "/" + id
		time.Sleep(59*time.Minute + 59*time.Second)
		got := b.get(openfinance.ConsentsPath + "/" + id)
		if diff := gocmp.Diff(wantConsent(id, "AUTHORISED", start, self), got.claims); diff != "" {
			t.Errorf("GET consent at 59m59s (-want +got):\n%s", diff)
		}
		time.Sleep(time.Second)
		got = b.get(openfinance.ConsentsPath + "/" + id)
		if diff := gocmp.Diff(wantConsent(id, "REJECTED", "2000-01-01T01:00:00Z", self), got.claims); diff != "" {
			t.Errorf("GET consent at 60m (-want +got):\n%s", diff)
		}
		a := b.pay("k1", paymentData(id))
		want := errorBody("CONSENTIMENTO_INVALIDO", "Unprocessable Entity", "the consent "+id+" is REJECTED")
		if diff := gocmp.Diff(want, a.claims); a.status != http.StatusUnprocessableEntity || diff != "" {
			t.Errorf("POST payment = %d (-want +got):\n%s", a.status, diff)
		}
		if st := b.core.Stats(); st.Requests != 0 {
			t.Errorf("Stats().Requests = %d, want 0: nothing relayed", st.Requests)
		}
	})
}

// A ConsentTTL other than 60 minutes moves the expiry, its expirationDateTime and the words of
// its rejectionReason.
func TestConsentExpiresAfterConsentTTL(t *testing.T) {
	for _, tc := range []struct {
		ttl     time.Duration
		expires string
		words   string
	}{
		{time.Minute, "2000-01-01T00:01:00Z", "1 minute"},
		{2 * time.Minute, "2000-01-01T00:02:00Z", "2 minutes"},
		{90 * time.Second, "2000-01-01T00:01:30Z", "1m30s"},
	} {
		t.Run(tc.words, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := mustBank(t, func(_ *psp.Config, c *openfinance.Config) { c.ConsentTTL = tc.ttl })
				id := b.mustConsent(consentData())
				self := "http://" + host + openfinance.ConsentsPath + "/" + id
				time.Sleep(tc.ttl - time.Second)
				want := wantConsent(id, "AUTHORISED", start, self) // its meta says now
				want["data"].(map[string]any)["expirationDateTime"] = tc.expires
				if got := b.get(openfinance.ConsentsPath + "/" + id); !gocmp.Equal(want, got.claims) {
					t.Errorf("GET consent a second before its expiry (-want +got):\n%s", gocmp.Diff(want, got.claims))
				}
				time.Sleep(time.Second)
				want = wantConsent(id, "REJECTED", tc.expires, self)
				data := want["data"].(map[string]any)
				data["expirationDateTime"] = tc.expires
				data["rejectionReason"] = map[string]any{"code": "TEMPO_EXPIRADO_CONSUMO",
					"detail": "the consent was not consumed within " + tc.words + " of its authorisation"}
				if got := b.get(openfinance.ConsentsPath + "/" + id); !gocmp.Equal(want, got.claims) {
					t.Errorf("GET consent at its expiry (-want +got):\n%s", gocmp.Diff(want, got.claims))
				}
				a := b.pay("k1", paymentData(id))
				wantErr := errorBody("CONSENTIMENTO_INVALIDO", "Unprocessable Entity", "the consent "+id+" is REJECTED")
				if diff := gocmp.Diff(wantErr, a.claims); a.status != http.StatusUnprocessableEntity || diff != "" {
					t.Errorf("POST payment = %d (-want +got):\n%s", a.status, diff)
				}
			})
		})
	}
}

func TestConsentKeyReplaysTheConsent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		first := b.post(openfinance.ConsentsPath, "k1", consentData())
		id := first.claims["data"].(map[string]any)["consentId"].(string)
		if a := b.pay("p1", paymentData(id)); a.status != http.StatusCreated {
			t.Fatalf("POST payment = %d %s, want 201", a.status, a.body)
		}
		time.Sleep(time.Second)
		reordered := map[string]any{"payment": consentData()["payment"], "creditor": consentData()["creditor"],
			"loggedUser": consentData()["loggedUser"]}
		again := b.post(openfinance.ConsentsPath, "k1", reordered) // signed anew: a new jti and iat
		self := "http://" + host + openfinance.ConsentsPath + "/" + id
		if diff := gocmp.Diff(wantConsent(id, "CONSUMED", start, self), again.claims); again.status != http.StatusCreated || diff != "" {
			t.Errorf("POST consents again = %d (-want +got):\n%s", again.status, diff)
		}
		other := b.post(openfinance.ConsentsPath, "k1", edited(consentData(), "151.00", "payment", "amount"))
		want := errorBody("ERRO_IDEMPOTENCIA", "Unprocessable Entity",
			"the data claim differs from the one first sent under this x-idempotency-key")
		if diff := gocmp.Diff(want, other.claims); other.status != http.StatusUnprocessableEntity || diff != "" {
			t.Errorf("POST consents with other data = %d (-want +got):\n%s", other.status, diff)
		}
	})
}

func TestConsentKeyExpiresAfterKeyTTL(t *testing.T) {
	for _, ttl := range []time.Duration{0, time.Hour} {
		t.Run(ttl.String(), func(t *testing.T) { testConsentKeyExpires(t, ttl) })
	}
}

// testConsentKeyExpires checks that a key of POST /consents is kept for Config.KeyTTL ttl, 24
// hours if 0.
func testConsentKeyExpires(t *testing.T, ttl time.Duration) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, func(_ *psp.Config, c *openfinance.Config) { c.KeyTTL = ttl })
		a1 := b.post(openfinance.ConsentsPath, "k1", consentData())
		time.Sleep(cmp.Or(ttl, 24*time.Hour) - time.Second)
		a2 := b.post(openfinance.ConsentsPath, "k1", consentData())
		time.Sleep(time.Second)
		a3 := b.post(openfinance.ConsentsPath, "k1", consentData())
		id := func(a answer) any { return a.claims["data"].(map[string]any)["consentId"] }
		if id(a1) != id(a2) {
			t.Errorf("consentId a second before the key's TTL = %v, want %v: the key holds", id(a2), id(a1))
		}
		if id(a1) == id(a3) {
			t.Errorf("consentId at the key's TTL = %v, want a new one: the key has expired", id(a3))
		}
	})
}

func TestGetConsentNotFound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		id := b.mustConsent(consentData())
		for _, tc := range []struct {
			name, id, token string
		}{
			{"unknown", "urn:pixretry:nope", token},
			{"another token", id, "other-token"},
		} {
			r := request(http.MethodGet, openfinance.ConsentsPath+"/"+tc.id, "")
			r.Header.Set("Authorization", "Bearer "+tc.token)
			a := b.serve(r)
			want := errorBody("NOT_FOUND", "Not Found", "no consent "+tc.id)
			if diff := gocmp.Diff(want, a.json); a.status != http.StatusNotFound || diff != "" {
				t.Errorf("%s: GET consent = %d (-want +got):\n%s", tc.name, a.status, diff)
			}
		}
	})
}

func TestMaxConsentsForgetsTheOldest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, func(_ *psp.Config, c *openfinance.Config) { c.MaxConsents = 1 })
		first := b.mustConsent(consentData())
		second := b.mustConsent(consentData())
		if got := b.get(openfinance.ConsentsPath + "/" + first); got.status != http.StatusNotFound {
			t.Errorf("GET the first consent = %d, want 404: forgotten", got.status)
		}
		if got := b.consentStatus(second); got != "AUTHORISED" {
			t.Errorf("the second consent = %s, want AUTHORISED", got)
		}
		a := b.pay("p1", paymentData(first))
		want := errorBody("CONSENTIMENTO_INVALIDO", "Unprocessable Entity", "the consent "+first+" is unknown")
		if diff := gocmp.Diff(want, a.claims); diff != "" {
			t.Errorf("POST payment of a forgotten consent (-want +got):\n%s", diff)
		}
	})
}

func TestConsentDataRefused(t *testing.T) {
	const (
		missing = "PARAMETRO_NAO_INFORMADO"
		invalid = "PARAMETRO_INVALIDO"
	)
	details := func(k string, v any) map[string]any { return edited(consentData(), v, "payment", "details", k) }
	for _, tc := range []struct {
		name         string
		data         any
		code, detail string
	}{
		{"no data", nil, missing, "data is required"},
		{"data not an object", []any{}, invalid, "data must be a JSON object"},
		{"no loggedUser", edited(consentData(), nil, "loggedUser"), missing, "data.loggedUser is required"},
		{"document not an object", edited(consentData(), "x", "loggedUser", "document"), invalid,
			"data.loggedUser.document must be a JSON object"},
		{"identification short", edited(consentData(), "1111111111", "loggedUser", "document", "identification"), invalid,
			`data.loggedUser.document.identification must match ^\d{11}$`},
		{"rel missing", edited(consentData(), nil, "loggedUser", "document", "rel"), missing,
			"data.loggedUser.document.rel is required"},
		{"no document", edited(consentData(), nil, "loggedUser", "document"), missing,
			"data.loggedUser.document is required"},
		{"no identification", edited(consentData(), nil, "loggedUser", "document", "identification"), missing,
			"data.loggedUser.document.identification is required"},
		{"rel in lower case", edited(consentData(), "cpf", "loggedUser", "document", "rel"), invalid,
			`data.loggedUser.document.rel must match ^[A-Z]{3}$`},
		{"no creditor", edited(consentData(), nil, "creditor"), missing, "data.creditor is required"},
		{"no personType", edited(consentData(), nil, "creditor", "personType"), missing,
			"data.creditor.personType is required"},
		{"no cpfCnpj", edited(consentData(), nil, "creditor", "cpfCnpj"), missing, "data.creditor.cpfCnpj is required"},
		{"no name", edited(consentData(), nil, "creditor", "name"), missing, "data.creditor.name is required"},
		{"no payment", edited(consentData(), nil, "payment"), missing, "data.payment is required"},
		{"no type", edited(consentData(), nil, "payment", "type"), missing, "data.payment.type is required"},
		{"no currency", edited(consentData(), nil, "payment", "currency"), missing, "data.payment.currency is required"},
		{"no amount", edited(consentData(), nil, "payment", "amount"), missing, "data.payment.amount is required"},
		{"two members missing", edited(edited(consentData(), nil, "creditor", "name"), nil, "payment", "amount"), missing,
			"data.creditor.name is required"},
		{"two members malformed", edited(edited(consentData(), "cpf", "loggedUser", "document", "rel"), "1.5", "payment",
			"amount"), invalid, `data.loggedUser.document.rel must match ^[A-Z]{3}$`},
		{"personType unknown", edited(consentData(), "PESSOA", "creditor", "personType"), invalid,
			`data.creditor.personType must be one of "PESSOA_NATURAL","PESSOA_JURIDICA"`},
		{"cpfCnpj of 12 digits", edited(consentData(), "123456789012", "creditor", "cpfCnpj"), invalid,
			`data.creditor.cpfCnpj must match ^(\d{11}|\d{14})$`},
		{"name a number", edited(consentData(), 7, "creditor", "name"), invalid, "data.creditor.name must be a JSON string"},
		{"name of 121", edited(consentData(), strings.Repeat("a", 121), "creditor", "name"), invalid,
			`data.creditor.name must match (?s)^.{1,120}$`},
		{"type TED", edited(consentData(), "TED", "payment", "type"), invalid, `data.payment.type must be one of "PIX"`},
		{"no date", edited(consentData(), nil, "payment", "date"), missing, "data.payment.date is required"},
		{"bad date", edited(consentData(), "2000-13-01", "payment", "date"), invalid,
			`data.payment.date must match ^(\d{4})-(1[0-2]|0?[1-9])-(3[01]|[12][0-9]|0?[1-9])$`},
		{"currency brl", edited(consentData(), "brl", "payment", "currency"), invalid,
			`data.payment.currency must match ^[A-Z]{3}$`},
		{"amount 1.5", edited(consentData(), "1.5", "payment", "amount"), invalid,
			`data.payment.amount must match ^\d{1,16}\.\d{2}$`},
		{"amount of 17 digits", edited(consentData(), "12345678901234567.00", "payment", "amount"), invalid,
			`data.payment.amount must match ^\d{1,16}\.\d{2}$`},
		{"no details", edited(consentData(), nil, "payment", "details"), missing, "data.payment.details is required"},
		{"no localInstrument", details("localInstrument", nil), missing, "data.payment.details.localInstrument is required"},
		{"no proxy", details("proxy", nil), missing, "data.payment.details.proxy is required"},
		{"proxy of 78", details("proxy", strings.Repeat("a", 78)), invalid,
			`data.payment.details.proxy must match (?s)^.{1,77}$`},
		{"no creditorAccount", details("creditorAccount", nil), missing, "data.payment.details.creditorAccount is required"},
		{"ispb of 7", details("creditorAccount", edited(creditorAccount(), "1234567", "ispb")), invalid,
			`data.payment.details.creditorAccount.ispb must match ^\d{8}$`},
		{"issuer of 5", details("creditorAccount", edited(creditorAccount(), "12345", "issuer")), invalid,
			`data.payment.details.creditorAccount.issuer must match ^\d{1,4}$`},
		{"no number", details("creditorAccount", edited(creditorAccount(), nil, "number")), missing,
			"data.payment.details.creditorAccount.number is required"},
		{"no ispb", details("creditorAccount", edited(creditorAccount(), nil, "ispb")), missing,
			"data.payment.details.creditorAccount.ispb is required"},
		{"no accountType", details("creditorAccount", edited(creditorAccount(), nil, "accountType")), missing,
			"data.payment.details.creditorAccount.accountType is required"},
		{"accountType", details("creditorAccount", edited(creditorAccount(), "XXXX", "accountType")), invalid,
			`data.payment.details.creditorAccount.accountType must be one of "CACC","SVGS","TRAN"`},
		{"scheduled", edited(edited(consentData(), nil, "payment", "date"), map[string]any{"single": map[string]any{}},
			"payment", "schedule"), "FORMA_PAGAMENTO_INVALIDA", "the PSP pays at once: data.payment.schedule is not supported"},
		{"MANU", edited(details("localInstrument", "MANU"), nil, "payment", "details", "proxy"), "FORMA_PAGAMENTO_INVALIDA",
			"the PSP pays to a Pix key typed in: localInstrument MANU is not supported"},
		{"QRDN", details("localInstrument", "QRDN"), "FORMA_PAGAMENTO_INVALIDA",
			"the PSP pays to a Pix key typed in: localInstrument QRDN is not supported"},
		{"QRES", details("localInstrument", "QRES"), "FORMA_PAGAMENTO_INVALIDA",
			"the PSP pays to a Pix key typed in: localInstrument QRES is not supported"},
		{"INIC", details("localInstrument", "INIC"), "FORMA_PAGAMENTO_INVALIDA",
			"the PSP pays to a Pix key typed in: localInstrument INIC is not supported"},
		{"USD", edited(consentData(), "USD", "payment", "currency"), "DETALHE_PAGAMENTO_INVALIDO",
			"data.payment.currency must be BRL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := mustBank(t, nil)
				claims := claimsFor(openfinance.ConsentsPath, tc.data)
				if tc.data == nil {
					delete(claims, "data")
				}
				a := b.serve(signedRequest(openfinance.ConsentsPath, "k1", claims))
				want := errorBody(tc.code, "Unprocessable Entity", tc.detail)
				if diff := gocmp.Diff(want, a.claims); a.status != http.StatusUnprocessableEntity || diff != "" {
					t.Errorf("POST consents = %d (-want +got):\n%s", a.status, diff)
				}
				if ok := b.post(openfinance.ConsentsPath, "k1", consentData()); ok.status != http.StatusCreated {
					t.Errorf("POST consents after a 422 = %d, want 201: a 422 keeps no key of consents", ok.status)
				}
			})
		})
	}
}

// TestConsentOptionalMembers: a creditorAccount without its issuer is taken, and a
// businessEntity is kept and shown as it was sent.
func TestConsentOptionalMembers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		entity := map[string]any{"document": map[string]any{"identification": "11222333000181", "rel": "CNPJ"}}
		data := edited(edited(consentData(), entity, "businessEntity"), nil, "payment", "details", "creditorAccount", "issuer")
		a := b.post(openfinance.ConsentsPath, "k1", data)
		if a.status != http.StatusCreated {
			t.Fatalf("POST consents = %d %s, want 201", a.status, a.body)
		}
		id := a.claims["data"].(map[string]any)["consentId"].(string)
		got := b.get(openfinance.ConsentsPath + "/" + id).claims["data"].(map[string]any)
		if !equalJSON(got["businessEntity"], entity) {
			t.Errorf("businessEntity = %v, want %v", got["businessEntity"], entity)
		}
	})
}
