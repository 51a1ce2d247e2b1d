package psp

import (
	"cmp"
	"context"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// LookupParam is the query parameter of a status lookup, GET PaymentsPath?idempotency_key=KEY:
// the key looked up, percent-encoded, read as the Idempotency-Key header is read. So abc and
// `"abc"` both look up the payment sent with Idempotency-Key abc or `"abc"`; the key "abc",
// quotes included, is `"\"abc\""` in both places.
const LookupParam = "idempotency_key"

// serveLookup is GET /v1/pix/payments, in the order of processing the OpenAPI document gives. A
// lookup takes no processing slot and no service time, and never pays. It notes in x the fault
// it meets and the answer it writes.
func (s *Server) serveLookup(w http.ResponseWriter, r *http.Request, x *exchange) {
	x.fault = s.nextFault(targetLookup)
	switch f := x.fault; f.Kind {
	case kindReset, kindDown:
		s.cfg.Logger.Info("psp: lookup: connection closed", "fault", f.Kind)
		hangUp(w, true)
	case kindStatus, kindRedirect:
		s.deliverLookup(w, faultAnswer(f, answer{}), "", x)
	default:
		a, key := s.lookup(r)
		s.deliverLookup(w, a, key, x)
	}
}

// lookup checks the token and the query, then answers from the book. It returns the answer and
// the key looked up ("" until it has been found valid).
func (s *Server) lookup(r *http.Request) (answer, string) {
	token, f := s.bearerToken(r.Header)
	if f != nil {
		return f.answer(), ""
	}
	key, f := lookupKey(r.URL.RawQuery)
	if f != nil {
		return f.answer(), ""
	}
	now := s.lock()
	defer s.unlock()
	return s.book.lookup(scope{token, key}, now), key
}

// lookupKey reads the key of a lookup's query: exactly one LookupParam, and no other
// parameter. It is read as the Idempotency-Key header is (see parseKey), so that `"abc"` looks
// up the payment sent as abc or as "abc": a lookup's 404 closes the key, and a client that
// quotes its header must not close another key than the one it paid under.
func lookupKey(rawQuery string) (string, *failure) {
	query, err := url.ParseQuery(rawQuery)
	if err != nil {
		return "", invalid(codeInvalidRequest, Violation{"query", "could not be parsed: " + err.Error()})
	}
	keys := query[LookupParam]
	delete(query, LookupParam)
	var unknown []Violation
	for _, name := range slices.Sorted(maps.Keys(query)) {
		unknown = append(unknown, Violation{cmp.Or(name, `""`), "unknown parameter"}) // "" shows an empty name
	}
	switch {
	case unknown != nil:
		return "", invalid(codeInvalidRequest, unknown...)
	case keys == nil:
		return "", invalid(codeIdempotencyKeyMissing, Violation{LookupParam, "required"})
	}
	key, ok := parseKey(keys[0])
	if len(keys) > 1 || !ok {
		return "", invalid(codeIdempotencyKeyInvalid, Violation{LookupParam,
			"must be one parameter of 1 to 255 characters from 0x21 to 0x7E, or that quoted as a structured-field string, percent-encoded"})
	}
	return key, nil
}

// lookup answers a status lookup of sc at now, the first that holds: 409 while a request with
// the key is in flight; 202 while its payment is pending; 200 with the receipt of its payment
// rejected, until its key expires, or of the latest settlement held under it, in the key store
// or the ledger; 404 if sc is closed; 410 if the ledger has dropped a settlement, which could
// have been sc's; else 404, and sc is closed from now on.
func (b *book) lookup(sc scope, now time.Time) answer {
	if e := b.keys[sc]; e != nil {
		switch {
		case e.phase == phaseInFlight:
			return inUse()
		case e.phase == phasePending:
			return e.p.statusAnswer(http.StatusAccepted, statusPending, "")
		case e.phase == phaseRejected && now.Before(b.expiresAt(e)): // expired, it is forgotten, evicted or not
			return e.p.statusAnswer(http.StatusOK, statusRejected, e.end.motivo)
		case e.phase == phaseSettled: // the latest under sc, though the ledger may have dropped it
			return e.p.receiptAnswer(http.StatusOK)
		}
	}
	switch {
	case b.latest[sc] != nil:
		return b.latest[sc].receiptAnswer(http.StatusOK)
	case b.closed[sc] != nil:
		return notFound()
	case b.stats.Dropped > 0:
		return fail(codeOutcomeUnprovable, "the PSP has dropped settlements from its ledger and cannot tell "+
			"whether one was made under this Idempotency-Key").answer()
	}
	b.closeKey(sc)
	return notFound()
}

// notFound is the 404 of a lookup that proves no payment was made under the key.
func notFound() answer {
	return fail(codePaymentNotFound, "no payment was made under this Idempotency-Key, and none will be: "+
		"the key is closed").answer()
}

// deliverLookup logs the lookup's answer a, then writes it, or holds it for a late fault, or
// breaks its body for a bad_body fault. key is the key looked up, for the log.
func (s *Server) deliverLookup(w http.ResponseWriter, a answer, key string, x *exchange) {
	s.cfg.Logger.LogAttrs(context.Background(), slog.LevelInfo, "psp: lookup", slog.Int("status", a.status),
		slog.String("key", key), slog.String("fault", string(cmp.Or(x.fault.Kind, "none"))))
	x.send(w, a, "")
}
