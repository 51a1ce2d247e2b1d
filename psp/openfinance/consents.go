package openfinance

import (
	"net/http"
	"time"

	"github.com/google/uuid"
)

// consentIDPrefix begins every consentId: a URN in the double's namespace, as the spec's
// pattern asks. A UUID follows it.
const consentIDPrefix = "urn:pixretry:"

// consentKey is what the Server holds under an x-idempotency-key of POST /consents: the data
// it created a consent with, and the consent.
type consentKey struct {
	data    string // canonical
	consent *consent
}

// postConsent is POST /consents. A new key creates a consent, AUTHORISED at once, and the key
// is kept only then, on a 201 (the idempotency page of payments v4). The same key with the
// same data answers 201 with the consent as it is now; with other data, 422
// ERRO_IDEMPOTENCIA.
func (s *Server) postConsent(x *exchange) {
	req, bad := s.readSigned(x)
	if bad != nil {
		x.fail(bad)
		return
	}
	d, bad := readConsent(req.data)
	if bad != nil {
		x.fail(bad)
		return
	}
	c, bad := s.createConsent(req, d)
	if bad != nil {
		x.fail(bad)
		return
	}
	s.mu.Lock()
	view := c.view(time.Now())
	s.mu.Unlock()
	x.signed(http.StatusCreated, consentBody{view, links{x.url() + "/" + c.id}, x.meta()})
}

// createConsent returns the consent of req: the one its key made, or a new one.
func (s *Server) createConsent(req signedRequest, d consentData) (*consent, *apiError) {
	data := canonical(req.data)
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if k, ok := s.consentKeys.get(req.scope, now); ok {
		if k.data != data {
			return nil, idempotencyError()
		}
		return k.consent, nil
	}
	c := newConsent(consentIDPrefix+uuid.NewString(), req.token, d, now, s.cfg.ConsentTTL)
	if !s.consentKeys.add(req.scope, &consentKey{data, c}, now) {
		return nil, keysFull(s.cfg.MaxKeys)
	}
	s.consents.push(c.id, c, now)
	return c, nil
}

// getConsent is GET /consents/{consentId}: the consent as it is now, to the bearer token that
// created it. Any other token, like an unknown consentId, gets 404.
func (s *Server) getConsent(x *exchange, id string) {
	token, bad := bearer(x.r)
	if bad != nil {
		x.fail(bad)
		return
	}
	now := time.Now()
	s.mu.Lock()
	c, ok := s.consents.get(id, now)
	var view consentView
	if ok && c.token == token {
		view = c.view(now)
	}
	s.mu.Unlock()
	if view.ConsentID == "" {
		x.fail(statusError(http.StatusNotFound, "no consent "+id))
		return
	}
	x.signed(http.StatusOK, consentBody{view, x.links(), x.meta()})
}

// idempotencyError is the 422 of a key reused with other data.
func idempotencyError() *apiError {
	return errorf(http.StatusUnprocessableEntity, codeIdempotency, "the data claim differs from the one first sent "+
		"under this %s", keyHeader)
}

// keysFull is the 529 of a new key when the key store holds max keys, none expired.
func keysFull(max int) *apiError {
	return errorf(statusSiteOverloaded, codeOverloaded, "the PSP holds %d idempotency keys, its limit, and none has "+
		"expired; retry later", max)
}
