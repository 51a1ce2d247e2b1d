package properties

import (
	"context"
	"crypto/rsa"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"path"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/google/uuid"

	"pixretry/internal/testkeys"
	"pixretry/pix"
	"pixretry/pix/openfinance"
	"pixretry/psp"
	ofpsp "pixretry/psp/openfinance"
)

// The values of the runs' Open Finance requests that the double's sandbox takes: the
// initiator's, the payer's who authorises every consent, and the payee every Pix key leads to.
const (
	initiatorCNPJ = "50685362000135"
	initiatorISPB = "99999999"
	payerCPF      = "11122233396"
	clientKeyID   = "property-client"
)

// payee is the creditor the clients name for every Pix key, as the DICT would. The double
// checks only that a payment names its consent's.
var payee = openfinance.Creditor{Name: "Maria da Silva", Document: "12345678909",
	Account: openfinance.Account{ISPB: "12345678", Issuer: "0001", Number: "1234567", Type: "CACC"}}

// openFinanceKeys are the keys of every Open Finance run (package testkeys), made into the
// double's JWKS once per test binary. The double signs its answers with signing, the clients their
// requests with client, and psp is the double's public key as its JWKS serves it.
var openFinanceKeys = sync.OnceValue(func() struct {
	signing, client *rsa.PrivateKey
	psp             jose.JSONWebKeySet
} {
	keys := struct {
		signing, client *rsa.PrivateKey
		psp             jose.JSONWebKeySet
	}{signing: testkeys.PSP(), client: testkeys.Client()}
	front, err := ofpsp.New(http.NotFoundHandler(), openFinanceConfig(keys.signing, keys.client, 0))
	if err != nil {
		panic(err)
	}
	keys.psp = front.PublicKeys()
	return keys
})

// openFinanceConfig is the double's v4 front end signing with signing, trusting client's
// public key, keeping keys ttl (0: 24 hours).
func openFinanceConfig(signing, client *rsa.PrivateKey, ttl time.Duration) ofpsp.Config {
	return ofpsp.Config{SigningKey: signing, KeyTTL: ttl,
		ClientKeys: []jose.JSONWebKey{{Key: &client.PublicKey, KeyID: clientKeyID}}}
}

// openFinanceAPI is Open Finance Brasil payments v4: pix/openfinance's Dialect and the
// double's front end psp/openfinance, which authorises each consent at once, as a sandbox
// does. Each payment consumes a consent, which the run creates before it pays (Consent). Keys
// are UUIDv7 in x-idempotency-key; a payment is looked up by its paymentId, or by its consent
// when no answer gave one, never by key. Times carry seconds.
var openFinanceAPI = &dialect{
	Name: "openfinance",
	Front: func(next http.Handler, ttl time.Duration) (http.Handler, error) {
		keys := openFinanceKeys()
		return ofpsp.New(next, openFinanceConfig(keys.signing, keys.client, ttl))
	},
	Client: func() pix.Dialect { return openFinanceClient() },
	KeyOf: func(r *http.Request) string {
		if r.Method == http.MethodGet {
			return path.Base(r.URL.Path) // the paymentId or the consentId looked up
		}
		return r.Header.Get("x-idempotency-key")
	},
	Says: openFinanceSays,
	MadeKey: func(key string) bool {
		u, err := uuid.Parse(key)
		return err == nil && u.Version() == 7 && u.String() == key
	},
	KeyForm:     "a lower-case UUIDv7",
	SharedKey:   sharedUUIDv7,
	Precision:   time.Second,
	LooksUpByID: true,
	Claims:      openFinanceClaims,
	Consent: func(ctx context.Context, c *pix.Client, p pix.Payment) (string, error) {
		return openFinanceClient().CreateConsent(ctx, c, payerCPF, p)
	},
}

// openFinanceClient is the clients' Dialect: it signs with the client key and trusts the
// double's.
func openFinanceClient() *openfinance.Dialect {
	keys := openFinanceKeys()
	return &openfinance.Dialect{Key: keys.client, KeyID: clientKeyID, Issuer: ofpsp.DefaultClientOrganisationID,
		PSPIssuer: ofpsp.DefaultOrganisationID, PSPKeys: keys.psp, CNPJInitiator: initiatorCNPJ, ISPB: initiatorISPB,
		Creditors: func(string) (openfinance.Creditor, error) { return payee, nil }}
}

// sharedUUIDv7 is the key of the duplicate senders of call j: a UUIDv7 of the instant a
// synctest bubble starts, its random bits j's, so that a run replays.
func sharedUUIDv7(j int) string {
	var u uuid.UUID
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()))
	copy(u[:6], ms[2:])
	binary.BigEndian.PutUint64(u[8:], uint64(j)+1)
	u[6], u[8] = 0x70, u[8]&0x3f|0x80 // version 7, variant 10
	return u.String()
}

// ofBody is the body of an answer of Open Finance: the claims of a signed one, or the errors
// body of a plain one.
type ofBody struct {
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
	} `json:"errors"`
}

// ofPayment and ofConsent are a payment and a consent as an answer's data shows them.
type ofPayment struct {
	PaymentID             string `json:"paymentId"`
	EndToEndID            string `json:"endToEndId"`
	Status                string `json:"status"`
	StatusUpdateDateTime  string `json:"statusUpdateDateTime"`
	Proxy                 string `json:"proxy"`
	RemittanceInformation string `json:"remittanceInformation"`
	Payment               struct {
		Amount   string `json:"amount"`
		Currency string `json:"currency"`
	} `json:"payment"`
}

type ofConsent struct {
	ConsentID string `json:"consentId"`
	Status    string `json:"status"`
}

// ofStates are the statuses of a payment (4.1.0.yml, EnumPaymentStatusType) in the double's
// words: only ACSC settled, RJCT and CANC rejected, the others pending.
var ofStates = map[string]string{"ACSC": statusSettled, "RCVD": statusPending, "ACCP": statusPending,
	"ACPD": statusPending, "PDNG": statusPending, "SCHD": statusPending, "RJCT": statusRejected, "CANC": statusRejected}

// openFinanceSays reads ex, an answer of Open Finance to a call of payment p, as
// psp/openfinance's package documentation gives the contract. A payment's 201 and 422 and a
// lookup's 200 are JWS the double's keys verify, else they prove nothing: an unsigned 201 or
// 200 states no status, and an unsigned 422 is no refusal (Unsigned). A lookup has no 422 in
// the spec (4.1.0.yml, GET /pix/payments/{paymentId}): it is read as plain, as any other error.
// A payment's 201 and 200 state its status; a consent's 200 states AUTHORISED, which is pending
// (a payment may still consume it), CONSUMED, which leaves the outcome unknown (Consumed), or
// REJECTED, which proves nothing was paid (NoSettlement). Any other answer is plain JSON. An
// error's code is the first of its errors.
func openFinanceSays(ex Exchange, p pix.Payment) said {
	var s said
	var b ofBody
	signed := ex.Status == http.StatusOK || !lookup(ex) && (ex.Status == http.StatusCreated ||
		ex.Status == http.StatusUnprocessableEntity)
	if signed {
		payload, err := verifiedPayload(ex.Body)
		if err != nil {
			s.Unsigned = ex.Status == http.StatusUnprocessableEntity
			return s
		}
		json.Unmarshal(payload, &b)
	} else {
		json.Unmarshal(ex.Body, &b)
	}
	if len(b.Errors) > 0 {
		s.Code, s.Detail = b.Errors[0].Code, b.Errors[0].Detail
	}
	var pays []ofPayment
	var pay ofPayment
	var consent ofConsent
	switch {
	case !lookup(ex) && ex.Status == http.StatusCreated && json.Unmarshal(b.Data, &pays) == nil && len(pays) == 1:
		s.read(pays[0], p, false)
	case lookup(ex) && ex.Status == http.StatusOK && json.Unmarshal(b.Data, &pay) == nil && pay.PaymentID != "":
		s.read(pay, p, true)
	case lookup(ex) && ex.Status == http.StatusOK && json.Unmarshal(b.Data, &consent) == nil:
		switch consent.Status {
		case "AUTHORISED", "AWAITING_AUTHORISATION", "PARTIALLY_ACCEPTED":
			s.State = statusPending
		case "CONSUMED":
			s.Consumed = true
		case "REJECTED":
			s.NoSettlement = true
		}
	}
	return s
}

// read reads pay, the payment an answer shows, for payment p, into s. A payment missing a
// member of its form states nothing.
func (s *said) read(pay ofPayment, p pix.Payment, lookedUp bool) {
	_, errAmount := psp.ParseBalance(pay.Payment.Amount)
	_, errTime := time.Parse(time.RFC3339, pay.StatusUpdateDateTime)
	state, ok := ofStates[pay.Status]
	if !ok || errAmount != nil || errTime != nil || pay.Payment.Currency != "BRL" || pay.PaymentID == "" ||
		!endToEndIDShape.MatchString(pay.EndToEndID) {
		return
	}
	mine := pay.Payment.Amount == psp.FormatAmount(p.AmountCents) && pay.Proxy == p.PixKey &&
		pay.RemittanceInformation == p.Description
	s.State, s.ID = state, pay.PaymentID
	s.Receipt, s.Foreign = state == statusSettled && mine, lookedUp && !mine
}

// verifiedPayload is the payload of jws, a compact JWS that the double's keys verify.
func verifiedPayload(jws []byte) ([]byte, error) {
	sig, err := jose.ParseSignedCompact(string(jws), []jose.SignatureAlgorithm{jose.PS256})
	if err != nil {
		return nil, err
	}
	return sig.Verify(openFinanceKeys().psp)
}

// openFinanceClaims reads the claims of ex's request, a POST the client signed: its jti, and
// its data claim re-encoded with its members sorted, so that two attempts that sign one
// payment carry equal data whatever their order. ok is false when the client's key does not
// verify it.
func openFinanceClaims(ex Exchange) (jti, data string, ok bool) {
	sig, err := jose.ParseSignedCompact(string(ex.Request), []jose.SignatureAlgorithm{jose.PS256})
	if err != nil {
		return "", "", false
	}
	payload, err := sig.Verify(&openFinanceKeys().client.PublicKey)
	var claims struct {
		Jti  string `json:"jti"`
		Data any    `json:"data"`
	}
	if err != nil || json.Unmarshal(payload, &claims) != nil {
		return "", "", false
	}
	canonical, _ := json.Marshal(claims.Data) // decoded JSON always encodes, maps' members sorted
	return claims.Jti, string(canonical), true
}

// TestOpenFinanceSaysWhatTheContractSays grades openFinanceSays on answers written by hand
// from payments v4, signed with the double's key or not, for a payment of 12.34 to
// pix@example.com.
func TestOpenFinanceSaysWhatTheContractSays(t *testing.T) {
	p := pix.Payment{AmountCents: 1234, PixKey: "pix@example.com", Description: "rent"}
	payment := func(amount, status string) map[string]any {
		return map[string]any{"paymentId": "pay-1", "endToEndId": "E99999999202001011200abcdefghijk",
			"status": status, "statusUpdateDateTime": "2020-01-01T12:00:00Z", "proxy": "pix@example.com",
			"remittanceInformation": "rent", "payment": map[string]any{"amount": amount, "currency": "BRL"}}
	}
	failed := func(code string) map[string]any {
		return map[string]any{"errors": []any{map[string]any{"code": code, "title": "T", "detail": "D"}}}
	}
	post := func(status int, body []byte) Exchange {
		return Exchange{Method: http.MethodPost, Status: status, Body: body}
	}
	get := func(status int, body []byte) Exchange {
		return Exchange{Method: http.MethodGet, Status: status, Body: body}
	}
	plain := func(v any) []byte { b, _ := json.Marshal(v); return b }
	for _, tc := range []struct {
		name string
		ex   Exchange
		want said
	}{
		{"a 201 ACSC", post(201, signedByPSP(t, map[string]any{"data": []any{payment("12.34", "ACSC")}})),
			said{State: statusSettled, ID: "pay-1", Receipt: true}},
		{"a 201 ACCP", post(201, signedByPSP(t, map[string]any{"data": []any{payment("12.34", "ACCP")}})),
			said{State: statusPending, ID: "pay-1"}},
		{"a 201 RJCT", post(201, signedByPSP(t, map[string]any{"data": []any{payment("12.34", "RJCT")}})),
			said{State: statusRejected, ID: "pay-1"}},
		{"a 201 of another amount", post(201, signedByPSP(t, map[string]any{"data": []any{payment("12.35", "ACSC")}})),
			said{State: statusSettled, ID: "pay-1"}},
		{"a 201 unsigned", post(201, plain(map[string]any{"data": []any{payment("12.34", "ACSC")}})), said{}},
		{"a 422 signed", post(422, signedByPSP(t, failed("SALDO_INSUFICIENTE"))),
			said{Code: "SALDO_INSUFICIENTE", Detail: "D"}},
		{"a 422 unsigned", post(422, plain(failed("SALDO_INSUFICIENTE"))), said{Unsigned: true}},
		{"a 529", post(529, plain(failed("SITE_IS_OVERLOADED"))), said{Code: "SITE_IS_OVERLOADED", Detail: "D"}},
		{"a lookup's 200 of the payment", get(200, signedByPSP(t, map[string]any{"data": payment("12.34", "ACSC")})),
			said{State: statusSettled, ID: "pay-1", Receipt: true}},
		{"a lookup's 200 of another payment", get(200, signedByPSP(t, map[string]any{"data": payment("99.00", "ACCP")})),
			said{State: statusPending, ID: "pay-1", Foreign: true}},
		{"a consent AUTHORISED", get(200, signedByPSP(t, map[string]any{"data": map[string]any{"status": "AUTHORISED"}})),
			said{State: statusPending}},
		{"a consent CONSUMED", get(200, signedByPSP(t, map[string]any{"data": map[string]any{"status": "CONSUMED"}})),
			said{Consumed: true}},
		{"a consent REJECTED", get(200, signedByPSP(t, map[string]any{"data": map[string]any{"status": "REJECTED"}})),
			said{NoSettlement: true}},
		{"a consent REJECTED unsigned", get(200, plain(map[string]any{"data": map[string]any{"status": "REJECTED"}})),
			said{}},
		{"a lookup's 422, which the spec lacks", get(422, signedByPSP(t, failed("X"))), said{}},
	} {
		if got := openFinanceSays(tc.ex, p); got != tc.want {
			t.Errorf("%s: openFinanceSays() = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// signedByPSP is claims signed with the double's key, as its answers are.
func signedByPSP(t *testing.T, claims map[string]any) []byte {
	t.Helper()
	keys := openFinanceKeys()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.PS256,
		Key: jose.JSONWebKey{Key: keys.signing, KeyID: keys.psp.Keys[0].KeyID}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(claims) // maps of strings and slices always encode
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	compact, _ := jws.CompactSerialize()
	return []byte(compact)
}
