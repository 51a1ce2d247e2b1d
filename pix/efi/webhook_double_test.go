package efi_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/internal/pipenet"
	"pixretry/pix"
	"pixretry/pix/efi"
	"pixretry/psp"
	efidouble "pixretry/psp/efi"
	"pixretry/psp/webhook"
)

// efiSender is the double's webhook Sender in Efí's form, with secret as the hmac, posting to
// srv's /webhook over pipes, one try at a time, waiting half of each ceiling from 1 s. It is
// closed when the test ends.
func efiSender(t *testing.T, srv *pipenet.Server, secret string) *webhook.Sender {
	t.Helper()
	s, err := webhook.New(webhook.Config{URL: srv.URL + "/webhook", Secret: webhook.Secret(secret),
		Transport: srv.Transport(), Parallel: 1, Rand: func() float64 { return 0.5 }, Form: efidouble.WebhookForm{}})
	if err != nil {
		t.Fatalf("webhook.New() error = %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// ended is the end of a payout of 150.00 under idEnvio, as the double reports it: a rejected
// one with the reason of a pending fault.
func ended(idEnvio, status string) psp.Ended {
	e := psp.Ended{IdempotencyKey: idEnvio, EndToEndID: "E12345678202501021504abcDEF12345", AmountCents: 15000,
		PixKey: "payee@example.com", Status: status, At: time.Now().UTC()}
	if status == "NAO_REALIZADO" {
		e.Reason = "rejected by a pending fault"
	}
	return e
}

// hookOf is what a WebhookHandler gives Apply for the callback of e.
func hookOf(e psp.Ended) pix.Webhook {
	w := pix.Webhook{ID: e.EndToEndID, EndToEndID: e.EndToEndID, IdempotencyKey: e.IdempotencyKey, Status: e.Status,
		AmountCents: e.AmountCents}
	if e.Status == "REALIZADO" {
		w.At = e.At.Truncate(time.Millisecond) // Efí's horario has milliseconds
	} else {
		w.Reason = "DS04: " + e.Reason + " (PSP do usuário recebedor)" // the double's codigo and origem
	}
	return w
}

// TestWebhookTakesTheDoublesCallbacks: what the double's Sender posts in Efí's form, a
// WebhookHandler checks, decodes and applies: a settlement, a rejection, each copy of a
// duplicate, one delayed, one whose first two tries fail unsent, and one whose first Apply
// fails and is delivered again. An unknown payout is refused for good, once.
func TestWebhookTakesTheDoublesCallbacks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		failures := 1
		a := &applied{answer: func(w pix.Webhook) error {
			switch {
			case w.IdempotencyKey == "unknown":
				return fmt.Errorf("payer: %w", pix.ErrUnknownPayment)
			case w.IdempotencyKey == "flaky" && failures > 0:
				failures--
				return errors.New("payer: database is locked")
			}
			return nil
		}}
		srv := pipenet.NewServer(efi.WebhookHandler{HMAC: []byte(hookHMAC), Apply: a.apply})
		defer srv.Close()
		s := efiSender(t, srv, hookHMAC)
		ends := []psp.Ended{ended("settled", "REALIZADO"), ended("rejected", "NAO_REALIZADO"),
			ended("twice", "REALIZADO"), ended("late", "REALIZADO"), ended("failing", "REALIZADO"),
			ended("flaky", "REALIZADO"), ended("unknown", "REALIZADO")}
		faults := map[string]webhook.Fault{"twice": webhook.Duplicate(), "late": webhook.Delay(10 * time.Second),
			"failing": webhook.Fail(2)}
		for _, e := range ends {
			if f, ok := faults[e.IdempotencyKey]; ok {
				s.Inject(f)
			}
			s.Send(e)
		}
		time.Sleep(time.Minute) // every wait is over
		synctest.Wait()

		var got []string
		for _, d := range s.Deliveries() {
			got = append(got, fmt.Sprintf("%s %s %s %v", d.IdempotencyKey, d.Status, d.State, statuses(d)))
		}
		want := []string{
			"settled REALIZADO delivered [204]",
			"rejected NAO_REALIZADO delivered [204]",
			"twice REALIZADO delivered [204]",
			"twice REALIZADO delivered [204]",
			"late REALIZADO delivered [204]",
			"failing REALIZADO delivered [0 0 204]",
			"flaky REALIZADO delivered [503 204]",
			"unknown REALIZADO refused [404]",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the Sender's deliveries (-want +got):\n%s", diff)
		}
		// In the order applied: flaky's second try after 0.5 s, failing's third after 1.5 s, late
		// after 10 s.
		wantApplied := []pix.Webhook{hookOf(ends[0]), hookOf(ends[1]), hookOf(ends[2]), hookOf(ends[2]),
			hookOf(ends[5]), hookOf(ends[6]), hookOf(ends[5]), hookOf(ends[4]), hookOf(ends[3])}
		if diff := cmp.Diff(wantApplied, a.webhooks()); diff != "" {
			t.Errorf("Apply() got (-want +got):\n%s", diff)
		}
	})
}

// TestWebhookRefusesAForgedHMAC: a Sender with another hmac, a forger's, gets 401 for each
// callback, which it does not retry, and nothing is applied.
func TestWebhookRefusesAForgedHMAC(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := &applied{}
		srv := pipenet.NewServer(efi.WebhookHandler{HMAC: []byte(hookHMAC), Apply: a.apply})
		defer srv.Close()
		forger := efiSender(t, srv, "not the hmac, but 32 bytes long.")

		forger.Send(ended("settled", "REALIZADO"))
		forger.Send(ended("rejected", "NAO_REALIZADO"))
		time.Sleep(time.Minute)
		synctest.Wait()

		if got := forger.Stats(); got.Refused != 2 || got.Sent != 0 || got.Retried != 0 {
			t.Errorf("the forger's Stats() = %+v, want 2 refused, none sent or retried", got)
		}
		if got := a.webhooks(); got != nil {
			t.Errorf("Apply() got %+v, want nothing applied", got)
		}
	})
}

// TestWebhookTellsTheCoresRejection: the double rejects a payout whose valor is in its rejected
// range, and its callback gives Apply the core's motivo, the one that Await's lookup reports.
func TestWebhookTellsTheCoresRejection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := &applied{}
		srv := pipenet.NewServer(efi.WebhookHandler{HMAC: []byte(hookHMAC), Apply: a.apply})
		defer srv.Close()
		s := efiSender(t, srv, hookHMAC)
		r := newRig(t, func(cfg *psp.Config) {
			cfg.CompleteAfter, cfg.RejectFromCents, cfg.RejectToCents = time.Second, 10001, 20000
			cfg.OnEnd = s.Send
		})
		c := r.client()
		_, err := c.Send(t.Context(), payment)
		unknown := pending(t, "Send()", err, 1)
		time.Sleep(time.Second) // the payout ends
		synctest.Wait()

		const motivo = "valor 150.00 is in the range the PSP rejects, 100.01 to 200.00"
		want := "DS04: " + motivo + " (PSP do usuário recebedor)"
		if got := a.webhooks(); len(got) != 1 || got[0].IdempotencyKey != unknown.Key || got[0].Reason != want {
			t.Errorf("Apply() got %+v, want one webhook under %s whose Reason is %q", got, unknown.Key, want)
		}
		if _, err := c.Await(t.Context(), unknown.Key); !errors.Is(err, pix.ErrRejected) ||
			!strings.HasSuffix(err.Error(), ": "+motivo) {
			t.Errorf("Await() error = %v, want ErrRejected ending with %q", err, motivo)
		}
	})
}

// statuses are the answers to d's tries, 0 for none.
func statuses(d webhook.Delivery) []int {
	var s []int
	for _, at := range d.Attempts {
		s = append(s, at.Status)
	}
	return s
}
