package openfinance

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"pixretry/pix"
)

// ErrConsentConsumed reports a consent that a payment consumed, when the paymentId of that
// payment is not known. The PSP offers no lookup by key ([spec] paths), and a consent does not
// name its payment ([spec] schema ResponsePaymentConsent). So the payment may have been made,
// or refused with a 422 that consumed the consent as well: the outcome stays unknown, and an
// error matching ErrConsentConsumed is always an [*pix.OutcomeUnknownError]. Within the key's
// 24 hours, [pix.Client.Resume] resends the payment and learns its paymentId from the replay.
// After them, only the PSP's records can tell: never pay again without that proof.
var ErrConsentConsumed = errors.New("openfinance: the consent was consumed, and the paymentId is unknown")

// Look returns the request that asks the PSP about the payment that ref names: GET
// /pix/payments/{paymentId} with ref.PaymentID, the only lookup of a payment that the API
// offers ([spec] paths), or else GET /consents/{consentId} with ref.ConsentID. It returns an
// error wrapping [pix.ErrNoLookup] when ref holds neither: the API has no lookup by key. It
// sends nothing, and returns an error, when d is not valid.
func (d *Dialect) Look(ctx context.Context, base *url.URL, _ string, ref pix.Ref) (*http.Request, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	switch {
	case ref.PaymentID != "":
		return newRequest(ctx, http.MethodGet, below(base, paymentsPath, url.PathEscape(ref.PaymentID))), nil
	case ref.ConsentID != "":
		return newRequest(ctx, http.MethodGet, below(base, consentsPath, url.PathEscape(ref.ConsentID))), nil
	}
	return nil, fmt.Errorf("openfinance: %w: neither the paymentId nor the consentId is known, and the API has no "+
		"lookup by key", pix.ErrNoLookup)
}

// Seen reads the answer to the request that Look made for ref. Any status but 200 is an
// [*pix.Error], as in [Dialect.Paid].
//
// A payment's 200 ([spec] schema ResponsePixPayment) is read as Paid reads a 201, and it must
// be the payment of ref.PaymentID.
//
// A consent's 200 ([spec] schema ResponsePaymentConsent) must be the consent of
// ref.ConsentID. A consent ends CONSUMED when a payment is made under it, or REJECTED
// ([spec] schema EnumAuthorisationStatusType), and nothing moves it on from either. So:
//
//   - REJECTED proves that no payment consumed it, and none can: the error wraps
//     [pix.ErrNoSettlement]. Its usual reason, once the payer authorised it, is
//     TEMPO_EXPIRADO_CONSUMO: left unconsumed 60 minutes after its authorisation ([spec]
//     "Validações" item 5.1.11, and expirationDateTime).
//   - CONSUMED without a known paymentId is an error wrapping [ErrConsentConsumed].
//   - AUTHORISED, or not authorised yet (AWAITING_AUTHORISATION, PARTIALLY_ACCEPTED), is an
//     error wrapping [pix.ErrPending]. It proves nothing while an attempt may still be in
//     flight, since that attempt may consume it yet. But it ends within the hour, CONSUMED or
//     REJECTED, so [pix.Client.AwaitRef] looks it up until it does, and only then says what
//     became of the payment.
func (d *Dialect) Seen(a pix.Answer, ref pix.Ref) (pix.Found, error) {
	if a.Status != http.StatusOK {
		return pix.Found{}, failure(a)
	}
	payload, err := d.verified(a)
	if err != nil {
		return pix.Found{}, err
	}
	if ref.PaymentID != "" {
		return seenPayment(payload, ref.PaymentID)
	}
	return pix.Found{}, seenConsent(payload, ref.ConsentID)
}

// seenPayment reads the claims of a payment's 200, which must be paymentID's.
func seenPayment(payload []byte, paymentID string) (pix.Found, error) {
	var body struct {
		Data *paymentAnswer `json:"data"`
	}
	if err := json.Unmarshal(payload, &body); err != nil || body.Data == nil {
		return pix.Found{}, contractError("the 200's data is not a payment")
	}
	if body.Data.PaymentID != paymentID {
		return pix.Found{}, contractError("the 200 is for paymentId %q, not %q", body.Data.PaymentID, paymentID)
	}
	return body.Data.found(http.StatusOK)
}

// consentAnswer is a consent in an answer ([spec] schema ResponsePaymentConsent), with the
// fields that Seen reads.
type consentAnswer struct {
	ConsentID            string     `json:"consentId"`
	Status               string     `json:"status"`
	StatusUpdateDateTime string     `json:"statusUpdateDateTime"`
	ExpirationDateTime   string     `json:"expirationDateTime"`
	RejectionReason      *rejection `json:"rejectionReason"`
}

// The statuses of a consent ([spec] schema EnumAuthorisationStatusType).
const (
	consentAwaiting   = "AWAITING_AUTHORISATION"
	consentPartially  = "PARTIALLY_ACCEPTED"
	consentAuthorised = "AUTHORISED"
	consentConsumed   = "CONSUMED"
	consentRejected   = "REJECTED"
)

// seenConsent reads the claims of a consent's 200, which must be consentID's, and returns the
// error that its status stands for.
func seenConsent(payload []byte, consentID string) error {
	var body struct {
		Data *consentAnswer `json:"data"`
	}
	if err := json.Unmarshal(payload, &body); err != nil || body.Data == nil {
		return contractError("the 200's data is not a consent")
	}
	c := body.Data
	if c.ConsentID != consentID {
		return contractError("the 200 is for consentId %q, not %q", c.ConsentID, consentID)
	}
	at, err := time.Parse(time.RFC3339, c.StatusUpdateDateTime)
	if err != nil {
		return contractError("the consent's statusUpdateDateTime %q is not an RFC 3339 time", c.StatusUpdateDateTime)
	}
	since := at.UTC().Format(time.RFC3339)
	switch c.Status {
	case consentRejected:
		return fmt.Errorf("openfinance: %w: consent %s was REJECTED at %s (%s), never consumed", pix.ErrNoSettlement,
			consentID, since, cmp.Or(c.RejectionReason.String(), "no rejectionReason"))
	case consentConsumed:
		return fmt.Errorf("%w: consent %s, consumed at %s", ErrConsentConsumed, consentID, since)
	case consentAuthorised, consentAwaiting, consentPartially:
		return fmt.Errorf("openfinance: %w: consent %s is %s since %s, not consumed yet: it ends CONSUMED, or REJECTED "+
			"unconsumed at %s", pix.ErrPending, consentID, c.Status, since, c.ExpirationDateTime)
	}
	return contractError("the consent's status %q is not a consent status", c.Status)
}
