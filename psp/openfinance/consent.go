package openfinance

import (
	"context"
	"fmt"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// consentLifetime is how long an AUTHORISED consent may wait to be consumed, counted from its
// status update: then it is REJECTED with TEMPO_EXPIRADO_CONSUMO (4.1.0.yml,
// ResponsePaymentConsent, expirationDateTime). It is Config.ConsentTTL's default.
const consentLifetime = 60 * time.Minute

// The statuses of a consent the double shows (4.1.0.yml, EnumAuthorisationStatusType). It
// authorises a consent as it creates it, as a sandbox does, so none is AWAITING_AUTHORISATION.
const (
	consentAuthorised = "AUTHORISED"
	consentConsumed   = "CONSUMED"
	consentRejected   = "REJECTED"
)

// expiredConsumption is the rejectionReason code of a consent that expired unconsumed (4.1.0.yml,
// EnumConsentRejectionReasonType).
const expiredConsumption = "TEMPO_EXPIRADO_CONSUMO"

// consent is a payment consent. The Server's mutex guards its fields but turn.
type consent struct {
	id, token string // its consentId, and the bearer token that created it and may use it
	data      consentData
	created   time.Time // its creation, and its authorisation
	expires   time.Time // when it reads REJECTED unless consumed: its expirationDateTime
	consumed  time.Time // when a payment consumed it; zero until then
	inFlight  bool      // a payment under it is being relayed (see status)
	// turn is held by the request relaying a payment under the consent, so that its payments
	// are relayed one at a time and each sees what the last did to the consent.
	turn chan struct{}
}

// newConsent returns a consent authorised at now, which expires ttl later unless consumed.
func newConsent(id, token string, data consentData, now time.Time, ttl time.Duration) *consent {
	return &consent{id: id, token: token, data: data, created: now, expires: now.Add(ttl),
		turn: make(chan struct{}, 1)}
}

// status is c's status at now and when it took it. An AUTHORISED consent reads REJECTED from
// its expiry on (Config.ConsentTTL after its authorisation), computed at each read, unless a
// payment under it is being relayed: that payment may be paid, and it then reads CONSUMED. So
// REJECTED proves that no payment consumed it, nor ever will.
func (c *consent) status(now time.Time) (string, time.Time) {
	switch {
	case !c.consumed.IsZero():
		return consentConsumed, c.consumed
	case !c.inFlight && !now.Before(c.expires):
		return consentRejected, c.expires
	}
	return consentAuthorised, c.created
}

// consume marks c consumed at now, unless it already is.
func (c *consent) consume(now time.Time) {
	if c.consumed.IsZero() {
		c.consumed = now
	}
}

// take waits for c's turn, or for ctx to end: then it reports false.
func (c *consent) take(ctx context.Context) bool {
	select {
	case c.turn <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// give hands c's turn on.
func (c *consent) give() { <-c.turn }

// consentBody is the body of POST /consents's 201 and of GET /consents/{consentId}'s 200: the
// spec's ResponseCreatePaymentConsent and ResponsePaymentConsent.
type consentBody struct {
	Data  consentView `json:"data"`
	Links links       `json:"links"`
	Meta  meta        `json:"meta"`
}

type consentView struct {
	ConsentID            string         `json:"consentId"`
	CreationDateTime     string         `json:"creationDateTime"`
	ExpirationDateTime   string         `json:"expirationDateTime"`
	StatusUpdateDateTime string         `json:"statusUpdateDateTime"`
	Status               string         `json:"status"`
	LoggedUser           jsontext.Value `json:"loggedUser"`
	BusinessEntity       jsontext.Value `json:"businessEntity,omitzero"`
	Creditor             jsontext.Value `json:"creditor"`
	Payment              jsontext.Value `json:"payment"`
	DebtorAccount        jsontext.Value `json:"debtorAccount,omitzero"`
	RejectionReason      *reason        `json:"rejectionReason,omitzero"`
}

// reason is the spec's ConsentRejectionReason and RejectionReason: a code and a detail.
type reason struct {
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

// view is c as its answers show it at now.
func (c *consent) view(now time.Time) consentView {
	status, updated := c.status(now)
	v := consentView{ConsentID: c.id, CreationDateTime: stamp(c.created), ExpirationDateTime: stamp(c.expires),
		StatusUpdateDateTime: stamp(updated), Status: status, LoggedUser: c.data.loggedUser,
		BusinessEntity: c.data.businessEntity, Creditor: c.data.creditor, Payment: c.data.payment,
		DebtorAccount: c.data.debtorAccount}
	if status == consentRejected {
		v.RejectionReason = &reason{expiredConsumption, "the consent was not consumed within " +
			inWords(c.expires.Sub(c.created)) + " of its authorisation"}
	}
	return v
}

// inWords is d as a rejection's detail says it: "60 minutes", "1 minute", or d's String when
// d is not a whole number of minutes, as in "90s".
func inWords(d time.Duration) string {
	switch {
	case d == time.Minute:
		return "1 minute"
	case d%time.Minute == 0:
		return fmt.Sprintf("%d minutes", d/time.Minute)
	}
	return d.String()
}
