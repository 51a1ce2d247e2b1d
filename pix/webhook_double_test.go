package pix_test

import (
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"pixretry/internal/pipenet"
	"pixretry/pix"
	"pixretry/psp"
	"pixretry/psp/webhook"
)

// senderTo is the double's webhook Sender, signing with secret, posting to srv over pipes,
// with waits of half their ceiling from 1 s. It is closed when the test ends.
func senderTo(t *testing.T, srv *pipenet.Server, secret []byte) *webhook.Sender {
	t.Helper()
	s, err := webhook.New(webhook.Config{URL: srv.URL + "/hooks/pix", Secret: secret, Transport: srv.Transport(),
		Rand: halfDraw, Parallel: 1})
	if err != nil {
		t.Fatalf("webhook.New() error = %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// ended is the end of a payment of 150.00 under key, as the double reports it.
func ended(key, status string) psp.Ended {
	return psp.Ended{Token: token, IdempotencyKey: key, EndToEndID: "E12345678202501021504abcDEF12345",
		AmountCents: 15000, PixKey: payment.PixKey, Status: status, At: time.Now().UTC()}
}

// TestWebhookTakesTheDoublesDeliveries: what the double's Sender posts, a WebhookHandler
// verifies, decodes and applies: a settlement, a rejection, each copy of a duplicate. An Apply
// that fails gets the delivery again, from the Sender's retry. An unknown payment is refused
// for good, once. Each delivery is the payment's end as the double reported it.
func TestWebhookTakesTheDoublesDeliveries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		failures := 1 // order-flaky's first Apply fails
		a := &applier{answer: func(w pix.Webhook) error {
			switch {
			case w.IdempotencyKey == "order-unknown":
				return fmt.Errorf("payer: %w", pix.ErrUnknownPayment)
			case w.IdempotencyKey == "order-flaky" && failures > 0:
				failures--
				return errors.New("payer: database is locked")
			}
			return nil
		}}
		srv := pipenet.NewServer(pix.WebhookHandler{Secret: webhookSecret, Apply: a.apply})
		defer srv.Close()
		s := senderTo(t, srv, webhookSecret)
		ends := []psp.Ended{ended("order-1", "REALIZADO"), ended("order-2", "NAO_REALIZADO"),
			ended("order-3", "REALIZADO"), ended("order-flaky", "REALIZADO"), ended("order-unknown", "REALIZADO")}

		for i, e := range ends {
			if i == 2 {
				s.Inject(webhook.Duplicate())
			}
			s.Send(e)
		}
		time.Sleep(time.Minute) // every retry's wait is over
		synctest.Wait()

		var got []string
		for _, d := range s.Deliveries() {
			var statuses []int
			for _, at := range d.Attempts {
				statuses = append(statuses, at.Status)
			}
			got = append(got, fmt.Sprintf("%s %s %s %v", d.IdempotencyKey, d.Status, d.State, statuses))
		}
		want := []string{
			"order-1 REALIZADO delivered [204]",
			"order-2 NAO_REALIZADO delivered [204]",
			"order-3 REALIZADO delivered [204]",
			"order-3 REALIZADO delivered [204]",
			"order-flaky REALIZADO delivered [503 204]",
			"order-unknown REALIZADO refused [404]",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the Sender's deliveries (-want +got):\n%s", diff)
		}
		// order-flaky's retry comes after order-unknown's first try.
		wantApplied := []pix.Webhook{webhookOf(ends[0]), webhookOf(ends[1]), webhookOf(ends[2]), webhookOf(ends[2]),
			webhookOf(ends[3]), webhookOf(ends[4]), webhookOf(ends[3])}
		applied := a.applied()
		if diff := cmp.Diff(wantApplied, applied, cmpIgnoreID); diff != "" {
			t.Fatalf("Apply() got (-want +got):\n%s", diff)
		}
		if applied[2].ID != applied[3].ID || applied[4].ID != applied[6].ID {
			t.Errorf("Apply() got ids %s, %s (a duplicate) and %s, %s (a retry), want each pair the same",
				applied[2].ID, applied[3].ID, applied[4].ID, applied[6].ID)
		}
	})
}

// TestWebhookRefusesAForgedSender: a Sender with another secret, a forger's, gets 401 for each
// delivery, which it does not retry, and nothing is applied.
func TestWebhookRefusesAForgedSender(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := &applier{}
		srv := pipenet.NewServer(pix.WebhookHandler{Secret: webhookSecret, Apply: a.apply})
		defer srv.Close()
		forger := senderTo(t, srv, []byte("not the secret, but 32 bytes lon"))

		forger.Send(ended("order-1", "REALIZADO"))
		forger.Send(ended("order-2", "NAO_REALIZADO"))
		time.Sleep(time.Minute)
		synctest.Wait()

		if got := forger.Stats(); got.Refused != 2 || got.Sent != 0 || got.Retried != 0 {
			t.Errorf("the forger's Stats() = %+v, want 2 refused, none sent or retried", got)
		}
		if got := a.applied(); len(got) != 0 {
			t.Errorf("Apply() got %+v, want nothing applied", got)
		}
	})
}

// webhookOf is what a WebhookHandler decodes of the delivery of e, but its id.
func webhookOf(e psp.Ended) pix.Webhook {
	return pix.Webhook{EndToEndID: e.EndToEndID, IdempotencyKey: e.IdempotencyKey, Status: e.Status,
		AmountCents: e.AmountCents, At: e.At}
}

// cmpIgnoreID compares webhooks without their delivery ids, which the Sender draws.
var cmpIgnoreID = cmpopts.IgnoreFields(pix.Webhook{}, "ID")
