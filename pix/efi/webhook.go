package efi

import (
	"context"
	"crypto/hmac"
	"errors"
	"io"
	"net/http"
	"strings"

	"pixretry/pix"
	"pixretry/pix/internal/hook"
)

// WebhookHandler receives Efí's callbacks for Pix sent: POST url-webhook-cadastrada/pix with
// {"pix":[...]}, one entry per payout that ended. It checks and decodes each callback, and
// Apply applies each entry. Serve it at the URL registered with Efí, which ends in
// ?hmac=<HMAC>&ignorar= so that the callbacks carry the hmac and keep the registered path
// (psp/efi's WebhookForm describes the form, and its source in Efí's documentation).
//
// It applies a callback only if every check passes, in this order. A method other than POST
// answers 405. The query must hold exactly one hmac parameter equal to HMAC, compared in
// constant time: otherwise 401. ignorar and the path are not looked at. A body over 64 KiB
// answers 413. The body must then be {"pix":[...]}, one or more entries, each with exactly the
// members endToEndId, chave, tipo, status, valor, horario, gnExtras and an optional
// infoPagador: otherwise 400, whose detail names each member at fault, as
// pix[0].gnExtras.idEnvio, and what it takes. gnExtras holds exactly idEnvio and, for a Pix
// NAO_REALIZADO, an optional erro {"codigo","origem","motivo"}, three strings, none empty. tipo
// is SOLICITACAO, status REALIZADO or NAO_REALIZADO, and horario null only for NAO_REALIZADO.
// Every refusal is an application/problem+json body in pix.WebhookHandler's form, and nothing
// is applied.
//
// Each entry becomes a pix.Webhook: ID and EndToEndID are its endToEndId, IdempotencyKey its
// gnExtras.idEnvio, At its horario (zero if null). Reason is its gnExtras.erro as
// "<codigo>: <motivo> (<origem>)", such as "AC03: Número da conta inválido (PSP do usuário
// recebedor)", or "" without an erro. Apply gets them in the body's order, every
// one even if one fails. Every nil answers 204. Otherwise an error other than
// pix.ErrUnknownPayment answers 503, so that the PSP delivers the callback again, and only
// pix.ErrUnknownPayment answers 404, which the double's Sender takes as final. A redelivered
// callback repeats the entries applied before: Apply returns nil for a duplicate, as
// pix.WebhookHandler's Apply does.
//
// Efí's own check of a receiver is mutual TLS, which the server in front of the handler does.
// The zero WebhookHandler is not usable: without HMAC or Apply it answers 503 to every
// callback, so that the PSP retries once it is set up. It is safe for concurrent use if Apply
// is.
type WebhookHandler struct {
	// HMAC is the hmac of the registered URL, shared with Efí. It is not empty.
	HMAC []byte
	// Apply applies one payout's end, with the request's context, as pix.WebhookHandler's
	// Apply does: once per payment, nil for a duplicate, nil only once the change is stored.
	Apply func(context.Context, pix.Webhook) error
}

// callbackBodyLimit is the largest callback body read, 64 KiB, as pix.WebhookHandler's.
const callbackBodyLimit = 64 << 10

// ServeHTTP checks and decodes one callback, and applies each of its entries.
func (h WebhookHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hooks, refused := h.receive(w, r)
	if refused != nil {
		refused.Write(w)
		return
	}
	var unknown, failed []string
	for _, entry := range hooks {
		err := h.Apply(r.Context(), entry)
		switch {
		case err == nil:
		case errors.Is(err, pix.ErrUnknownPayment):
			unknown = append(unknown, entry.IdempotencyKey)
		default:
			failed = append(failed, entry.IdempotencyKey)
		}
	}
	switch {
	case failed != nil:
		hook.Refusal(http.StatusServiceUnavailable, "not_applied",
			"the Pix sent under idEnvio %s were not applied: deliver the callback again later",
			strings.Join(failed, ", ")).Write(w)
	case unknown != nil:
		hook.Refusal(http.StatusNotFound, "unknown_payment", "no payment here has the idEnvio %s, and nothing was applied "+
			"for it", strings.Join(unknown, ", ")).Write(w)
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}

// receive checks, reads and decodes the callback r, or says why it is refused.
func (h WebhookHandler) receive(w http.ResponseWriter, r *http.Request) ([]pix.Webhook, *hook.Problem) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return nil, hook.Refusal(http.StatusMethodNotAllowed, "method_not_allowed", "a webhook is a POST, not a %s", r.Method)
	}
	if len(h.HMAC) == 0 || h.Apply == nil {
		return nil, hook.Refusal(http.StatusServiceUnavailable, "not_configured", "the webhook handler has no HMAC or no Apply yet")
	}
	if given := r.URL.Query()["hmac"]; len(given) != 1 || !hmac.Equal([]byte(given[0]), h.HMAC) {
		return nil, hook.Refusal(http.StatusUnauthorized, "invalid_hmac",
			"the URL must hold one hmac parameter, the one registered with the webhook")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, callbackBodyLimit))
	if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge {
		return nil, hook.Refusal(http.StatusRequestEntityTooLarge, "payload_too_large",
			"the body must be at most %d bytes", callbackBodyLimit)
	}
	if err != nil {
		return nil, hook.Refusal(http.StatusBadRequest, "invalid_webhook", "the body could not be read: %v", err)
	}
	hooks, err := decodeCallback(body)
	if err != nil {
		return nil, hook.Refusal(http.StatusBadRequest, "invalid_webhook", "%v", err)
	}
	return hooks, nil
}
