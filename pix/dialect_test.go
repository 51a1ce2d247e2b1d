package pix_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// idDialect speaks the double's API, but as a PSP that looks payments up by its own id would:
// an answer's endToEndId is the payment's id (Ref.PaymentID), and a lookup needs it. Its keys
// are 1 to 8 characters, and its PSP keeps them an hour. unwritable makes Pay fail, and accept
// is the Accept header its payments ask for, if any.
type idDialect struct {
	unwritable bool
	accept     string
}

func (idDialect) NewKey() string { return "k1" }

func (idDialect) CheckKey(key string) error {
	if len(key) < 1 || len(key) > 8 {
		return fmt.Errorf("%w: key %q is not 1 to 8 characters", pix.ErrInvalidPayment, key)
	}
	return nil
}

func (idDialect) KeyTTL() time.Duration { return time.Hour }

// errNoSigningKey is the error of an unwritable idDialect's Pay.
var errNoSigningKey = errors.New("no signing key")

func (d idDialect) Pay(ctx context.Context, base *url.URL, key string, p pix.Payment) (*http.Request, error) {
	if d.unwritable {
		return nil, errNoSigningKey
	}
	body := fmt.Sprintf(`{"valor":"%d.%02d","chave":%q}`, p.AmountCents/100, p.AmountCents%100, p.PixKey)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base.JoinPath(psp.PaymentsPath).String(),
		bytes.NewReader([]byte(body)))
	if err == nil {
		req.Header.Set("Idempotency-Key", key)
		req.Header.Set("Content-Type", "application/json")
		if d.accept != "" {
			req.Header.Set("Accept", d.accept)
		}
	}
	return req, err
}

func (idDialect) Paid(a pix.Answer, _ pix.Payment) (pix.Found, error) {
	return readFound(a, http.StatusCreated)
}

func (idDialect) Look(ctx context.Context, base *url.URL, key string, ref pix.Ref) (*http.Request, error) {
	if ref.PaymentID == "" {
		return nil, fmt.Errorf("%w: no payment id", pix.ErrNoLookup)
	}
	u := base.JoinPath(psp.PaymentsPath)
	u.RawQuery = url.Values{"idempotency_key": {key}}.Encode()
	return http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
}

func (idDialect) Seen(a pix.Answer, ref pix.Ref) (pix.Found, error) {
	f, err := readFound(a, http.StatusOK)
	if err == nil && f.Ref.PaymentID != ref.PaymentID {
		return pix.Found{}, fmt.Errorf("%w: payment %s, not %s", pix.ErrContract, f.Ref.PaymentID, ref.PaymentID)
	}
	return f, err
}

// readFound reads the double's answer: settled with done, pending with 202, or an Error
// meaning what its code says.
func readFound(a pix.Answer, done int) (pix.Found, error) {
	var b struct{ EndToEndID, Valor, Chave, Status string }
	if a.Status != done && a.Status != http.StatusAccepted {
		return pix.Found{}, &pix.Error{Status: a.Status, Code: "THEIRS", Means: pix.ErrInsufficientFunds}
	}
	if err := json.Unmarshal(a.Body, &b); err != nil {
		return pix.Found{}, fmt.Errorf("%w: %v", pix.ErrContract, err)
	}
	f := pix.Found{State: pix.Settled, EndToEndID: b.EndToEndID, AmountCents: cents(b.Valor), PixKey: b.Chave,
		Ref: pix.Ref{PaymentID: b.EndToEndID}}
	if a.Status == http.StatusAccepted {
		f.State = pix.Pending
	}
	return f, nil
}

// cents reads a valor such as "150.00".
func cents(valor string) int64 {
	var units, hundredths int64
	fmt.Sscanf(valor, "%d.%d", &units, &hundredths)
	return units*100 + hundredths
}

// The PSP's ids travel with the payment: a pending answer's id is in the unknown outcome's Ref,
// with the payment's consent, and AwaitRef finds the payment by it; without an id there is no
// lookup, and nothing is sent.
func TestDialectRefTravelsWithThePayment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, c := newFixtureWithClient(t, psp.Config{}, []psp.Fault{psp.Pending(time.Minute, "settled")},
			func(c *pix.Client) { c.Dialect = idDialect{} })
		p := payment
		p.ConsentID = "urn:consent:1"
		_, err := c.Send(t.Context(), p)
		unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
		if !ok || !errors.Is(err, pix.ErrPending) {
			t.Fatalf("Send() error = %v, want an unknown outcome matching ErrPending", err)
		}
		if unknown.Key != "k1" || unknown.Ref.PaymentID == "" || unknown.Ref.ConsentID != "urn:consent:1" {
			t.Fatalf("Send() unknown = %+v, want key k1, a PaymentID and the payment's consent", unknown)
		}
		lookups := f.psp.Stats().Lookups
		_, err = c.Await(t.Context(), "k1")
		want := `pix: outcome unknown for key "k1" after 0 attempt(s): pix: the PSP offers no lookup for what is known of the payment: no payment id`
		if !errors.Is(err, pix.ErrNoLookup) || err.Error() != want {
			t.Errorf("Await() with no Ref error = %v, want ErrNoLookup: %q", err, want)
		}
		if got := f.psp.Stats().Lookups; got != lookups {
			t.Errorf("lookups after Await() with no Ref = %d, want %d", got, lookups)
		}
		r, err := c.AwaitRef(t.Context(), "k1", unknown.Ref)
		if err != nil || r.Ref != unknown.Ref || r.EndToEndID != unknown.Ref.PaymentID {
			t.Fatalf("AwaitRef() = %+v, %v, want the receipt with Ref %+v", r, err, unknown.Ref)
		}
	})
}

// A key the dialect cannot carry is refused before any request, and so is an attempt whose
// request the dialect cannot write.
func TestDialectRefusesBeforeAnyRequest(t *testing.T) {
	f := newFixture(t, psp.Config{})
	c := f.client(func(c *pix.Client) { c.Dialect = idDialect{} })
	_, err := c.SendWithKey(t.Context(), "123456789", payment)
	if want := `pix: invalid payment: key "123456789" is not 1 to 8 characters`; err == nil || err.Error() != want {
		t.Errorf("SendWithKey(9 characters) error = %v, want %q", err, want)
	}
	c.Dialect = idDialect{unwritable: true}
	_, err = c.Send(t.Context(), payment)
	if want := "pix: writing the request: no signing key"; !errors.Is(err, errNoSigningKey) || err.Error() != want {
		t.Errorf("Send(unwritable) error = %v, want %q wrapping the dialect's", err, want)
	}
	_, err = c.SendWithKey(t.Context(), "k2", payment)
	if unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err); !ok || unknown.Attempts != 0 {
		t.Errorf("SendWithKey(unwritable) error = %v, want an unknown outcome after 0 attempts: the key may hold a payment", err)
	}
	if got := f.psp.Stats().Requests; got != 0 {
		t.Errorf("PSP requests = %d, want 0", got)
	}
}

// A Client's KeyTTL may not outlive the dialect's, and zero takes the dialect's.
func TestDialectBoundsKeyTTL(t *testing.T) {
	c := pix.Client{BaseURL: "http://psp.test", Policy: policy, Dialect: idDialect{}, KeyTTL: time.Hour + 1}
	want := "pix: invalid Client: KeyTTL 1h0m0.000000001s is longer than the PSP's, 1h0m0s"
	if err := c.Validate(); err == nil || err.Error() != want {
		t.Errorf("Validate(KeyTTL over the dialect's) = %v, want %q", err, want)
	}
	c.KeyTTL = time.Hour
	if err := c.Validate(); err != nil {
		t.Errorf("Validate(KeyTTL the dialect's) = %v, want nil", err)
	}
	c.KeyTTL, c.AttemptTimeout = 0, 54*time.Minute
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "is not below 54m0s") {
		t.Errorf("Validate(AttemptTimeout of the dialect's KeyTTL less a tenth) = %v, want it refused", err)
	}
}

// A dialect's refusal means what its Means says, on a 4xx only.
func TestErrorMeansTheDialectsRefusal(t *testing.T) {
	saldo := &pix.Error{Status: 422, Code: "SALDO_INSUFICIENTE", Means: pix.ErrInsufficientFunds}
	if !errors.Is(saldo, pix.ErrInsufficientFunds) || errors.Is(saldo, pix.ErrKeyReused) {
		t.Errorf("errors.Is(%v) matched the wrong sentinels", saldo)
	}
	// The double's code does not count once a dialect says what the answer means.
	reused := &pix.Error{Status: 422, Code: "insufficient_funds", Means: pix.ErrKeyReused}
	if errors.Is(reused, pix.ErrInsufficientFunds) || !errors.Is(reused, pix.ErrKeyReused) {
		t.Errorf("errors.Is(%v): Means must win over Code", reused)
	}
	if failed := (&pix.Error{Status: 503, Means: pix.ErrInsufficientFunds}); errors.Is(failed, pix.ErrInsufficientFunds) {
		t.Errorf("errors.Is(%v, ErrInsufficientFunds) = true, want false on a 5xx", failed)
	}
}

// A State prints as the double's status.
func TestStateString(t *testing.T) {
	tests := []struct {
		s    pix.State
		want string
	}{{pix.Settled, "REALIZADO"}, {pix.Pending, "EM_PROCESSAMENTO"}, {pix.Rejected, "NAO_REALIZADO"},
		{0, "State(0)"}, {4, "State(4)"}}
	for _, tt := range tests {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("State(%d).String() = %q, want %q", int(tt.s), got, tt.want)
		}
	}
}

// keyDialect is idDialect whose answers name a key, always "other".
type keyDialect struct{ idDialect }

func (d keyDialect) Paid(a pix.Answer, p pix.Payment) (pix.Found, error) {
	f, err := d.idDialect.Paid(a, p)
	f.Key = "other"
	return f, err
}

func (d keyDialect) Seen(a pix.Answer, ref pix.Ref) (pix.Found, error) {
	f, err := d.idDialect.Seen(a, ref)
	f.Key = "other"
	return f, err
}

// An answer that names another key than the call's breaks the contract, to a payment and to a
// lookup: it is not this key's outcome.
func TestDialectAnswerForAnotherKeyBreaksTheContract(t *testing.T) {
	f := newFixture(t, psp.Config{})
	c := f.client(func(c *pix.Client) { c.Dialect = keyDialect{} })
	r, err := c.SendWithKey(t.Context(), "k3", payment)
	want := `pix: outcome unknown for key "k3" after 1 attempt(s): pix: PSP broke the response contract: the 201 is for key "other", not "k3"`
	if err == nil || err.Error() != want {
		t.Errorf("SendWithKey() = %+v, %v, want %q", r, err, want)
	}
	_, err = c.LookupRef(t.Context(), "k3", pix.Ref{PaymentID: f.psp.Settlements()[0].EndToEndID})
	if !errors.Is(err, pix.ErrContract) || !strings.Contains(err.Error(), `the 200 is for key "other", not "k3"`) {
		t.Errorf("LookupRef() error = %v, want the 200 for another key to break the contract", err)
	}
}

// NewKey makes the key Send would: the Dialect's, or a UUID for the double's API.
func TestNewKeyIsTheDialects(t *testing.T) {
	if got := (&pix.Client{Dialect: idDialect{}}).NewKey(); got != "k1" {
		t.Errorf("NewKey() with a Dialect = %q, want its key k1", got)
	}
	if got := (&pix.Client{}).NewKey(); len(got) != 36 || got[8] != '-' {
		t.Errorf("NewKey() of the double's API = %q, want a UUID", got)
	}
}

// acceptSeen is a transport that answers 503 to every request, and keeps its Accept headers.
type acceptSeen []string

func (a *acceptSeen) RoundTrip(r *http.Request) (*http.Response, error) {
	*a = append(*a, r.Header.Get("Accept"))
	return &http.Response{StatusCode: http.StatusServiceUnavailable, Header: http.Header{},
		Body: http.NoBody, Request: r}, nil
}

// A dialect's Accept header is its own; pix asks for JSON and problems only when it sets none.
func TestDialectAcceptIsKept(t *testing.T) {
	var seen acceptSeen
	c := &pix.Client{BaseURL: "http://psp.test", Policy: retry.Policy{AttemptsMax: 1}, HTTPClient: &http.Client{Transport: &seen}}
	for _, d := range []idDialect{{accept: "application/jwt"}, {}} {
		c.Dialect = d
		if _, err := c.Send(t.Context(), payment); err == nil {
			t.Fatalf("Send() against a 503 = nil error")
		}
	}
	if want := (acceptSeen{"application/jwt", "application/json, application/problem+json"}); !slices.Equal(seen, want) {
		t.Errorf("Accept headers = %q, want %q", seen, want)
	}
}
