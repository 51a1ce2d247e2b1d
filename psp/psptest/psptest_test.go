package psptest_test

import (
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/psp/psptest"
	"pixretry/retry"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var (
	policy  = retry.Policy{AttemptsMax: 3, DelayBase: 100 * time.Millisecond, DelayMax: time.Second}
	payment = pix.Payment{AmountCents: 1234, PixKey: "pix@example.com"}
)

func mustServer(t *testing.T, cfg psp.Config, front func(*psp.Server) http.Handler) *psptest.Server {
	t.Helper()
	s, err := psptest.NewServerBehind(cfg, front)
	if err != nil {
		t.Fatalf("NewServerBehind() error = %v", err)
	}
	return s
}

func TestClientPaysTheDoubleInsideABubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, psp.DefaultConfig(), nil)
		defer s.Close()
		c := s.Client(policy)
		if c.BaseURL != s.URL || c.Token != psp.DefaultToken || c.Policy != policy {
			t.Fatalf("Client() = {BaseURL %q, Token %q, Policy %+v}, want {%q, %q, %+v}",
				c.BaseURL, c.Token, c.Policy, s.URL, psp.DefaultToken, policy)
		}
		receipt, err := c.Send(t.Context(), payment)
		if err != nil {
			t.Fatalf("Send() error = %v", err)
		}
		ledger := s.Settlements()
		if len(ledger) != 1 || ledger[0].EndToEndID != receipt.EndToEndID || ledger[0].AmountCents != payment.AmountCents {
			t.Errorf("ledger = %+v, want one settlement of %d cents, endToEndId %q", ledger, payment.AmountCents, receipt.EndToEndID)
		}
	})
}

func TestClientsHaveTheirOwnConnections(t *testing.T) {
	s := mustServer(t, psp.DefaultConfig(), nil)
	defer s.Close()
	a, b := s.Client(policy), s.Client(policy)
	if a.HTTPClient.Transport == b.HTTPClient.Transport {
		t.Error("two Clients share a transport, want a pool of connections each")
	}
	if a.HTTPClient.Transport == s.Transport() {
		t.Error("a Client shares the pipes' own transport, want a pool of its own")
	}
	if s.HTTPClient().Transport != s.Transport() {
		t.Error("HTTPClient() does not use Transport()")
	}
}

// A slow fault holds its answer past the client's attempt timeout; Close must wait for it, so
// that the bubble ends with no goroutine and the settlement the held request made is in the
// ledger.
func TestCloseWaitsForHeldAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, psp.DefaultConfig(), nil)
		s.Inject(psp.Slow(time.Minute))
		c := s.Client(retry.Policy{AttemptsMax: 1, DelayBase: 0, DelayMax: 0})
		c.AttemptTimeout = time.Second
		_, err := c.Send(t.Context(), payment)
		if !errors.Is(err, pix.ErrOutcomeUnknown) {
			t.Fatalf("Send() error = %v, want ErrOutcomeUnknown", err)
		}
		start := time.Now()
		s.Close()
		if got := time.Since(start); got < time.Minute-2*time.Second {
			t.Errorf("Close returned after %v, want it to wait for the slow answer (about a minute)", got)
		}
		if n := len(s.Settlements()); n != 1 {
			t.Errorf("ledger holds %d settlements after Close, want the held request's 1", n)
		}
	})
}

// Close waits for the first copy of a duplicated request, which runs with no handler.
func TestCloseWaitsForDuplicates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, psp.DefaultConfig(), nil)
		s.Inject(psp.Fault{Kind: "duplicate"})
		if _, err := s.Client(policy).Send(t.Context(), payment); err != nil {
			t.Fatalf("Send() error = %v", err)
		}
		s.Close()
		if n := len(s.Settlements()); n != 1 {
			t.Errorf("ledger holds %d settlements, want 1", n)
		}
	})
}

func TestFrontSeesEveryRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var seen atomic.Int32
		s := mustServer(t, psp.DefaultConfig(), func(double *psp.Server) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if seen.Add(1) == 1 {
					http.Error(w, "gateway busy", http.StatusServiceUnavailable)
					return
				}
				double.ServeHTTP(w, r)
			})
		})
		defer s.Close()
		if _, err := s.Client(policy).Send(t.Context(), payment); err != nil {
			t.Fatalf("Send() error = %v", err)
		}
		if got := seen.Load(); got != 2 {
			t.Errorf("front saw %d requests, want 2 (the 503, then the retry)", got)
		}
		if n := len(s.Settlements()); n != 1 {
			t.Errorf("ledger holds %d settlements, want 1", n)
		}
	})
}

func TestNewServerRefusesBadConfigs(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  psp.Config
		want string
	}{
		{"no token", psp.Config{BalanceCents: 100}, "needs a token"},
		{"the double's own refusal", psp.Config{Tokens: []string{"t"}, BalanceCents: -1}, "psp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := psptest.NewServer(tc.cfg)
			if err == nil {
				s.Close()
				t.Fatalf("NewServer(%+v) error = nil, want one containing %q", tc.cfg, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewServer(%+v) error = %v, want it to contain %q", tc.cfg, err, tc.want)
			}
		})
	}
}

func TestCloseTwiceIsHarmless(t *testing.T) {
	s := mustServer(t, psp.DefaultConfig(), nil)
	s.Close()
	s.Close()
	if _, err := s.HTTPClient().Get(s.URL + psp.PaymentsPath); err == nil {
		t.Error("a request after Close reached the double, want a dial error")
	}
}
