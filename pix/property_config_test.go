package pix_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"pgregory.net/rapid"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/psp/psptest"
	"pixretry/retry"
	"pixretry/retry/retrytest"
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
			c.AttemptTimeout = rapid.OneOf(rapid.Just(time.Duration(0)), retrytest.Durations(-time.Hour, -1)).
				Draw(t, "AttemptTimeout")
		case 3:
			c.Policy = retrytest.InvalidPolicy().Draw(t, "Policy")
		case 4:
			c.AttemptTimeout = retrytest.Millis(1, 3000).Draw(t, "AttemptTimeout")
			edge := c.AttemptTimeout * 10 / 9
			c.KeyTTL = rapid.OneOf(retrytest.Durations(-time.Hour, -1), retrytest.Durations(edge-10, edge+10)).
				Draw(t, "KeyTTL")
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
// current synctest bubble, and checks the outcome. A valid client's payment is the PSP's one
// settlement.
func runClientConfig(c clientConfig) error {
	srv, err := psptest.NewServer(testConfig(psp.Config{BalanceCents: 100_000}))
	if err != nil {
		return err
	}
	defer srv.Close()
	client := srv.Client(c.Policy)
	client.BaseURL = cmp.Or(c.BaseURL, srv.URL)
	client.AttemptTimeout, client.KeyTTL, client.Jitter = c.AttemptTimeout, c.KeyTTL, halfDraw
	var sent atomic.Int64 // round trips begun
	next := client.HTTPClient.Transport
	client.HTTPClient.Transport = roundTrip(func(r *http.Request) (*http.Response, error) {
		sent.Add(1)
		return next.RoundTrip(r)
	})
	p := pix.Payment{AmountCents: 100, PixKey: "pix@example.com"}
	var r pix.Receipt
	if c.WithKey {
		r, err = client.SendWithKey(context.Background(), "order-1", p)
	} else {
		r, err = client.Send(context.Background(), p)
	}
	if err := checkConfigOutcome(c, p, r, err, int(sent.Load())); err != nil || !validConfig(c) {
		return err
	}
	if s := srv.Settlements(); len(s) != 1 || s[0].AmountCents != p.AmountCents {
		return fmt.Errorf("valid client %+v: the PSP settled %+v, want one payment of %d cents", c, s, p.AmountCents)
	}
	return nil
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
