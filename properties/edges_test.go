package properties

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// clientConfig is a pix.Client's configuration, maybe broken in one field.
type clientConfig struct {
	BaseURL        string // "" stands for the PSP's own URL
	AttemptTimeout time.Duration
	KeyTTL         time.Duration // 0: 24 h
	Policy         retry.Policy
	WithKey        bool // SendWithKey instead of Send
}

// validConfig is the contract's rule for a usable Client: an absolute http or https URL with a
// host, an AttemptTimeout of 0 or more and below KeyTTL less a tenth, a KeyTTL of 0 (24 h) or
// more, a valid policy.
func validConfig(c clientConfig) bool {
	p, ttl := c.Policy, cmp.Or(c.KeyTTL, 24*time.Hour)
	if p.AttemptsMax < 1 || p.DelayBase < 0 || p.DelayMax < p.DelayBase || c.AttemptTimeout < 0 || c.KeyTTL < 0 ||
		c.AttemptTimeout >= ttl-ttl/10 {
		return false
	}
	u, err := url.Parse(c.BaseURL)
	return c.BaseURL == "" || err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// brokenBaseURLs are BaseURLs a Client must refuse: relative, without a host, with another
// scheme, not URLs at all.
var brokenBaseURLs = []string{"/v1", "http://", "https://", "ftp://psp.test", "psp.test:80", "http://[::1", ":",
	"mailto:psp@test"}

// clientConfigGen draws a configuration with at most one field broken: BaseURL, AttemptTimeout
// (negative, or 0 at the edge), KeyTTL (negative, or around AttemptTimeout's edge, a tenth
// above it) or Policy.
func clientConfigGen() *rapid.Generator[clientConfig] {
	return rapid.Custom(func(t *rapid.T) clientConfig {
		c := clientConfig{Policy: retry.Policy{AttemptsMax: 2}, WithKey: rapid.Bool().Draw(t, "SendWithKey")}
		switch rapid.IntRange(0, 4).Draw(t, "field broken") {
		case 1:
			c.BaseURL = rapid.SampledFrom(brokenBaseURLs).Draw(t, "BaseURL")
		case 2:
			c.AttemptTimeout = rapid.OneOf(rapid.Just(time.Duration(0)), durationGen(-time.Hour, -1)).
				Draw(t, "AttemptTimeout")
		case 3:
			c.Policy = invalidPolicyGen().Draw(t, "Policy")
		case 4:
			c.AttemptTimeout = msRange(1, 3000).Draw(t, "AttemptTimeout")
			edge := c.AttemptTimeout * 10 / 9
			c.KeyTTL = rapid.OneOf(durationGen(-time.Hour, -1), durationGen(edge-10, edge+10)).Draw(t, "KeyTTL")
		}
		return c
	})
}

// TestClientConfigurationIsChecked: a Client with a broken field sends nothing and fails,
// honestly. Send's error is not ErrOutcomeUnknown: nothing can have settled. SendWithKey's is:
// the caller's key may hold a settlement already. A valid Client settles the payment.
func TestClientConfigurationIsChecked(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := clientConfigGen().Draw(t, "client")
		rapid.SyncTest(t, func(t *rapid.T) {
			if err := runClientConfig(c); err != nil {
				t.Fatal(err)
			}
		})
	})
}

// TestEveryBrokenBaseURLIsRefused: every broken BaseURL, with Send and with SendWithKey, on every
// run. A random draw reaches a given one only now and then.
func TestEveryBrokenBaseURLIsRefused(t *testing.T) {
	for _, u := range brokenBaseURLs {
		for _, withKey := range []bool{false, true} {
			synctest.Test(t, func(t *testing.T) {
				if err := runClientConfig(clientConfig{Policy: retry.Policy{AttemptsMax: 2}, BaseURL: u,
					WithKey: withKey}); err != nil {
					t.Fatalf("BaseURL %q, SendWithKey %v: %v", u, withKey, err)
				}
			})
		}
	}
}

// runClientConfig sends one payment with a Client configured as c to a fresh PSP, inside the
// current synctest bubble, and checks the outcome. A valid client's run keeps every invariant.
func runClientConfig(c clientConfig) error {
	p := pix.Payment{AmountCents: 100, PixKey: "pix@example.com"}
	call := callSpec{Payment: p, Jitter: []float64{0}}
	if c.WithKey {
		call.Key = "order-1"
	}
	tr, err := runScenario(scenario{BaseURL: c.BaseURL, Policy: c.Policy, AttemptTimeout: c.AttemptTimeout,
		ClientKeyTTL: c.KeyTTL, BalanceCents: 100_000, Calls: []callSpec{call}})
	if err != nil {
		return err
	}
	got := tr.Calls[0]
	if err := checkConfigOutcome(c, p, got.Receipt, got.Err, len(got.Trips)); err != nil || !validConfig(c) {
		return err
	}
	return checkAll(tr)
}

// checkConfigOutcome checks the outcome of a call of p by a client configured as c: its receipt
// r, its error, and how many round trips it began.
func checkConfigOutcome(c clientConfig, p pix.Payment, r pix.Receipt, err error, sent int) error {
	switch {
	case validConfig(c) && (err != nil || sent != 1 || r.AmountCents != p.AmountCents):
		return fmt.Errorf("valid client %+v: Send() = %+v, %v after %d requests; want the receipt after 1",
			c, r, err, sent)
	case !validConfig(c) && (err == nil || sent != 0 || errors.Is(err, pix.ErrOutcomeUnknown) != c.WithKey):
		return fmt.Errorf("invalid client %+v: Send() error = %v after %d requests; "+
			"want an error, none sent, ErrOutcomeUnknown %t", c, err, sent, c.WithKey)
	}
	return nil
}

// TestNoVacuousConfigCheck: checkConfigOutcome sees each way a call can break the rule.
func TestNoVacuousConfigCheck(t *testing.T) {
	p := pix.Payment{AmountCents: 100, PixKey: "pix@example.com"}
	paid, failed := pix.Receipt{AmountCents: p.AmountCents, PixKey: p.PixKey}, errors.New("x")
	valid := clientConfig{Policy: retry.Policy{AttemptsMax: 1}}
	broken := clientConfig{BaseURL: "ftp://psp.test", Policy: valid.Policy}
	brokenWithKey := clientConfig{BaseURL: "/v1", WithKey: true, Policy: valid.Policy}
	for name, tc := range map[string]struct {
		c    clientConfig
		r    pix.Receipt
		err  error
		sent int
	}{
		"a valid client that failed":              {valid, pix.Receipt{}, failed, 1},
		"a valid client with another receipt":     {valid, pix.Receipt{AmountCents: 99}, nil, 1},
		"an invalid client that sent":             {broken, pix.Receipt{}, failed, 1},
		"an invalid client that succeeded":        {broken, paid, nil, 0},
		"an invalid Send said outcome unknown":    {broken, pix.Receipt{}, &pix.OutcomeUnknownError{Err: failed}, 0},
		"an invalid SendWithKey said it is known": {brokenWithKey, pix.Receipt{}, failed, 0},
		"a negative AttemptTimeout let through":   {clientConfig{AttemptTimeout: -1, Policy: valid.Policy}, paid, nil, 1},
		"an invalid policy let through": {clientConfig{Policy: retry.Policy{AttemptsMax: 1, DelayBase: 2,
			DelayMax: 1}}, paid, nil, 1},
		"a negative KeyTTL let through": {clientConfig{KeyTTL: -1, Policy: valid.Policy}, paid, nil, 1},
		"an AttemptTimeout past KeyTTL's margin let through": {clientConfig{AttemptTimeout: 9, KeyTTL: 10,
			Policy: valid.Policy}, paid, nil, 1},
	} {
		if checkConfigOutcome(tc.c, p, tc.r, tc.err, tc.sent) == nil {
			t.Errorf("%s: checkConfigOutcome() = nil, want a violation", name)
		}
	}
	if err := checkConfigOutcome(valid, p, paid, nil, 1); err != nil {
		t.Errorf("checkConfigOutcome(a valid call) = %v, want nil", err)
	}
}

// edgePayments are payments at both sides of each edge of the contract: the largest amount, an
// e-mail key of 77 bytes and one of 78, 140 characters of description, and every broken input
// the generators know.
func edgePayments() []pix.Payment {
	const key = "pix@example.com"
	edges := []pix.Payment{{AmountCents: 1, PixKey: key}, {AmountCents: 999_999_999_999, PixKey: key},
		{AmountCents: 1, PixKey: strings.Repeat("a", 65) + "@example.com"}, // 77 bytes
		{AmountCents: 1, PixKey: strings.Repeat("a", 66) + "@example.com"}, // 78 bytes
		{AmountCents: 1, PixKey: key, Description: strings.Repeat("ç", 140)}}
	for _, a := range invalidAmounts {
		edges = append(edges, pix.Payment{AmountCents: a, PixKey: key})
	}
	for _, k := range invalidPixKeys {
		edges = append(edges, pix.Payment{AmountCents: 1, PixKey: k})
	}
	for _, d := range invalidDescriptions {
		edges = append(edges, pix.Payment{AmountCents: 1, PixKey: key, Description: d})
	}
	return edges
}

// TestEdgePaymentsKeepInvariants: each edge payment, sent once to a PSP whose balance covers the
// largest amount, keeps every invariant: pix's validation and the PSP's agree at every edge, on
// every run. A random payment reaches a given edge only now and then.
func TestEdgePaymentsKeepInvariants(t *testing.T) {
	for _, p := range edgePayments() {
		synctest.Test(t, func(t *testing.T) {
			tr, err := runScenario(scenario{Policy: retry.Policy{AttemptsMax: 1}, BalanceCents: 999_999_999_999,
				Calls: []callSpec{{Payment: p, Jitter: []float64{0}}}})
			if err == nil {
				err = checkAll(tr)
			}
			if err != nil {
				t.Fatalf("payment %+v:\n%v\ntrace:\n%s", p, err, tr)
			}
		})
	}
}

// refusalCodes are the problem codes that name a refusal, each with the sentinel it matches.
var refusalCodes = map[string]error{
	psp.CodeInsufficientFunds:    pix.ErrInsufficientFunds,
	psp.CodeIdempotencyKeyReused: pix.ErrKeyReused,
	psp.CodeInvalidRequest:       pix.ErrInvalidPayment,
}

// TestErrorSaysWhatThePSPAnswered: a *pix.Error reads "pix: PSP answered STATUS CODE: DETAIL",
// without an empty code or detail. It matches a refusal's sentinel exactly when its code names
// the refusal on a 4xx. It matches ErrContract exactly below 400.
func TestErrorSaysWhatThePSPAnswered(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := &pix.Error{
			Status: rapid.OneOf(rapid.IntRange(100, 599), rapid.SampledFrom([]int{200, 302, 400, 409, 422, 429, 499,
				500})).Draw(t, "status"),
			Code: rapid.OneOf(rapid.Just(""), rapid.SampledFrom([]string{psp.CodeInsufficientFunds, psp.CodeIdempotencyKeyReused,
				psp.CodeInvalidRequest, psp.CodeInjectedFault, psp.CodeIdempotencyKeyInUse}), rapid.StringN(1, 12, -1)).Draw(t, "code"),
			Detail: rapid.OneOf(rapid.Just(""), rapid.String()).Draw(t, "detail"),
		}
		want := "pix: PSP answered " + strconv.Itoa(e.Status)
		if e.Code != "" {
			want += " " + e.Code
		}
		if e.Detail != "" {
			want += ": " + e.Detail
		}
		if got := e.Error(); got != want {
			t.Fatalf("Error() = %q, want %q", got, want)
		}
		if got, want := errors.Is(e, pix.ErrContract), e.Status < 400; got != want {
			t.Fatalf("errors.Is(%v, ErrContract) = %v, want %v", e, got, want)
		}
		for code, sentinel := range refusalCodes {
			if got, want := errors.Is(e, sentinel), e.Status/100 == 4 && e.Code == code; got != want {
				t.Fatalf("errors.Is(%v, %v) = %v, want %v", e, sentinel, got, want)
			}
		}
	})
}
