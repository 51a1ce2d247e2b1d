package pix

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"pixretry/pix/internal/hook"
)

// Webhook is the PSP's word that a payment ended, as [WebhookHandler] decodes it from a signed
// delivery.
type Webhook struct {
	ID             string    // the delivery's id: a retry of the delivery carries the same
	EndToEndID     string    // the payment's unique Pix id
	IdempotencyKey string    // the key the payment was sent under
	Status         string    // "REALIZADO" (settled) or "NAO_REALIZADO" (rejected: nothing was paid)
	AmountCents    int64     // the payment's valor, in centavos
	At             time.Time // when the payment settled or was rejected (its horario)
	// Reason is why the PSP rejected the payment, if its webhook says: "" for a settlement.
	// The double's own webhook says no reason, so WebhookHandler leaves it "". A receiver of
	// another PSP's webhook, such as pix/efi's, sets it from what that PSP sends.
	Reason string
}

// Settled reports whether the payment settled: its Status is REALIZADO. Otherwise the PSP
// rejected it, and nothing was paid.
func (w Webhook) Settled() bool { return w.Status == statusSettled }

// WebhookHandler receives the PSP's webhooks, each a POST of one payment's end. It verifies
// and decodes each delivery, and Apply applies it. Serve it at the URL the PSP posts to.
//
// It applies a delivery only if every check passes, in this order. A method other than POST
// answers 405. A body over 64 KiB answers 413. The Pix-Signature header
// must be t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under Secret>, with t within
// 300 s of Now, either way: otherwise 401. Other members of the header are ignored, and any
// of several v1 may match. The body must then be one JSON object with exactly the members id,
// endToEndId, idempotencyKey, status, valor and horario, each a string: otherwise 400, whose
// detail names each member at fault and what it takes. status is REALIZADO or NAO_REALIZADO,
// valor an amount such as "150.00" and horario an RFC 3339 time. Every refusal is an
// application/problem+json body, and nothing is applied.
//
// Apply's nil answers 204. An error matching [ErrUnknownPayment] answers 404, which the PSP
// takes as final. Any other error answers 503, so that the PSP delivers again later.
//
// The zero WebhookHandler is not usable: a handler without Secret or Apply answers 503 to every
// delivery, so that the PSP retries once it is set up. A WebhookHandler is safe for concurrent
// use if Apply and Now are.
type WebhookHandler struct {
	// Secret is the key of the deliveries' HMAC, shared with the PSP. It is not empty.
	Secret []byte
	// Apply applies one delivery, with the request's context. The PSP delivers at least once:
	// retries repeat a delivery, late and in any order across payments. So Apply applies a
	// payment's end once, leaves a payment that ended as it is, and returns nil for a
	// duplicate. It returns nil only once the change is stored, so that a crash before then
	// gets the delivery again.
	Apply func(context.Context, Webhook) error
	// Now is the clock that t is checked against. If nil, time.Now.
	Now func() time.Time
}

// webhookBodyLimit is the largest delivery body read, 64 KiB.
const webhookBodyLimit = 64 << 10

// ServeHTTP verifies and decodes one delivery, and applies it.
func (h WebhookHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	delivery, refused := h.receive(w, r)
	if refused != nil {
		refused.Write(w)
		return
	}
	err := h.Apply(r.Context(), delivery)
	switch {
	case err == nil:
		w.WriteHeader(http.StatusNoContent)
	case errors.Is(err, ErrUnknownPayment):
		hook.Refusal(http.StatusNotFound, "unknown_payment",
			"no payment here has the idempotencyKey %q, and nothing was applied", delivery.IdempotencyKey).Write(w)
	default:
		hook.Refusal(http.StatusServiceUnavailable, "not_applied", "the webhook was not applied: deliver it again later").
			Write(w)
	}
}

// receive reads, verifies and decodes the delivery r, or says why it is refused.
func (h WebhookHandler) receive(w http.ResponseWriter, r *http.Request) (Webhook, *hook.Problem) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return Webhook{}, hook.Refusal(http.StatusMethodNotAllowed, "method_not_allowed", "a webhook is a POST, not a %s", r.Method)
	}
	if len(h.Secret) == 0 || h.Apply == nil {
		return Webhook{}, hook.Refusal(http.StatusServiceUnavailable, "not_configured",
			"the webhook handler has no Secret or no Apply yet")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, webhookBodyLimit))
	if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge {
		return Webhook{}, hook.Refusal(http.StatusRequestEntityTooLarge, "payload_too_large",
			"the body must be at most %d bytes", webhookBodyLimit)
	}
	if err != nil {
		return Webhook{}, hook.Refusal(http.StatusBadRequest, "invalid_webhook", "the body could not be read: %v", err)
	}
	if err := h.verify(r.Header.Get(signatureHeader), body); err != nil {
		return Webhook{}, hook.Refusal(http.StatusUnauthorized, "invalid_signature", "%v", err)
	}
	delivery, err := decodeWebhook(body)
	if err != nil {
		return Webhook{}, hook.Refusal(http.StatusBadRequest, "invalid_webhook", "%v", err)
	}
	return delivery, nil
}
