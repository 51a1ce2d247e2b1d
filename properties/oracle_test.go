package properties

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"
	"unicode/utf8"

	"pixretry/internal/pspcheck"
	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
	"pixretry/retry/retrytest"
)

// The oracles restate the contracts of retry, pix and the PSP as plain rules, so that the suite
// does not grade them with their own answers. Each one here serves two invariants or more; an
// invariant's own helpers live in its file. retry's oracles (Ceiling, FullJitter,
// TransientStatus) are package retrytest's, shared with retry's own properties.

// hintOf is the Retry-After hint of t's answer: whole seconds, or an HTTP-date from the instant
// the answer arrived. It is 0 when there is none, or it is past.
func hintOf(t Trip) time.Duration {
	if date, err := http.ParseTime(t.RetryAfter); err == nil {
		return max(date.Sub(t.End), 0)
	}
	if n, err := strconv.Atoi(t.RetryAfter); err == nil && n > 0 {
		return time.Duration(n) * time.Second
	}
	return 0
}

// transientTrip classifies a round trip. A transport failure (a lost connection, the attempt's
// deadline) or a body cut short is transient, but for a name that does not resolve and an
// unreadable header. An answer is classified by its status.
func transientTrip(t Trip, unreadable bool) bool {
	if _, ok := errors.AsType[*net.DNSError](t.Err); ok || unreadable {
		return false
	}
	return t.Err != nil || t.BodyErr != nil || retrytest.TransientStatus(t.Status)
}

// maySettle reports whether round trip t of call c may have left a settlement behind, by pix's
// contract: every one does but a connection that could not be made (the request never left)
// and a 4xx other than 409 and 429 that arrived whole (a refusal before processing, or a
// stored one). In Open Finance a 422 is a refusal only when the PSP signed it: one it did not
// proves nothing.
func (tr Trace) maySettle(c Call) func(Trip) bool {
	return func(t Trip) bool {
		if e, ok := errors.AsType[*net.OpError](t.Err); ok && e.Op == "dial" {
			return false
		}
		refusal := t.Status/100 == 4 && t.Status != http.StatusConflict && t.Status != http.StatusTooManyRequests
		if s, ok := tr.saidTo(t, c.Payment); ok && s.Unsigned {
			refusal = false
		}
		return t.Err != nil || t.BodyErr != nil || !refusal
	}
}

// fitsBefore reports whether an attempt under a key whose key deadline is deadline may start at
// start: it ends before the deadline, by its AttemptTimeout, or with none it starts before it
// (the key deadline then ends it). pix.Client.KeyTTL's rule.
func fitsBefore(start, deadline time.Time, attemptTimeout time.Duration) bool {
	return start.Add(attemptTimeout).Before(deadline)
}

// stoppedByBreaker reports whether the breaker refused a retry of call c: the call made an
// attempt, and its last question to the breaker was refused.
func stoppedByBreaker(c Call) bool {
	last, ok := lastOf(c.Tickets)
	return ok && last.Refused != nil && len(c.Attempts) > 0
}

// stoppedByKeyDeadline reports whether the key deadline ended the payment attempts of call c
// after its last attempt and wait, as pix says: the call ended with ErrKeyExpired, or Resume
// went on to look its key up.
func stoppedByKeyDeadline(c Call) bool {
	return len(c.Attempts) > 0 && (errors.Is(c.Err, pix.ErrKeyExpired) || c.lookedUp() && c.Summary != nil)
}

// stoppedAfterWait reports whether the payment attempts of call c ended with a retry refused
// after its wait, by the breaker or by the key deadline: pix asks both after the wait.
func stoppedAfterWait(c Call) bool { return stoppedByBreaker(c) || stoppedByKeyDeadline(c) }

// waitedAfter reports whether a wait followed attempt j+1 of phase k of call c: every attempt
// but the last, and the last when the breaker or the key deadline refused the retry after its
// wait (stoppedAfterWait).
func waitedAfter(c Call, k, j int) bool {
	return j < len(c.phases()[k].Attempts)-1 || k == 0 && stoppedAfterWait(c)
}

// again reports whether pix tries again after attempt a of call c, if its budget, the hint and
// the deadlines allow: after a transient failure, and in an Await after an answer that the
// payment is pending.
func again(c Call, a Attempt) bool {
	return a.Transient || c.Awaited && a.Outcome == string(pix.OutcomePending)
}

// budgetOf is how many attempts phase k of call c may make: AttemptsMax, but for an Await's
// lookups, which only its context bounds (the run stops them at awaitBudget).
func budgetOf(p retry.Policy, c Call, k int) int {
	if k == 1 && c.Awaited {
		return awaitBudget
	}
	return p.AttemptsMax
}

// lastOf returns the last element of s and true, or the zero value and false if s is empty.
func lastOf[T any](s []T) (T, bool) {
	if len(s) == 0 {
		var zero T
		return zero, false
	}
	return s[len(s)-1], true
}

// settlementsOf returns the ledger's settlements under key for token, in ledger order.
func settlementsOf(ledger []psp.Settlement, token, key string) []psp.Settlement {
	var out []psp.Settlement
	for _, s := range ledger {
		if s.Token == token && s.IdempotencyKey == key {
			out = append(out, s)
		}
	}
	return out
}

// pays reports whether s is the settlement of payment p.
func pays(s psp.Settlement, p pix.Payment) bool {
	return s.AmountCents == p.AmountCents && s.PixKey == p.PixKey && s.Description == p.Description
}

// describes reports whether receipt r is settlement s's: its endToEndId, amount, Pix key and
// time, which the dialect's answers carry to its precision. In Open Finance the client makes
// the endToEndId, and the ledger holds the one it made.
func (tr Trace) describes(r pix.Receipt, s psp.Settlement) bool {
	return r.EndToEndID == s.EndToEndID && r.AmountCents == s.AmountCents &&
		r.PixKey == s.PixKey && r.SettledAt.Equal(s.SettledAt.Truncate(tr.Dialect.Precision))
}

// validByContract reports whether p is a payment the PSP's contract accepts, read from the
// contract rather than from pix: an amount from 0.01 to 9,999,999,999.99, a Pix key the PSP
// takes (asked through the contract, pspcheck.TakesPixKey), and a description of valid UTF-8
// and at most 140 characters.
func validByContract(p pix.Payment) bool {
	takes, err := pspcheck.TakesPixKey(p.PixKey)
	if err != nil {
		panic(err) // any answer but a verdict on the key is a bug of the suite
	}
	return p.AmountCents >= 1 && p.AmountCents <= 999_999_999_999 && takes &&
		utf8.ValidString(p.Description) && utf8.RuneCountInString(p.Description) <= 140
}

// payload is a payment request body in the contract's terms.
type payload struct {
	Valor       string `json:"valor"`
	Chave       string `json:"chave"`
	InfoPagador string `json:"infoPagador,omitempty"`
}

// payloadOf is p in the contract's terms.
func payloadOf(p pix.Payment) payload {
	return payload{psp.FormatAmount(p.AmountCents), p.PixKey, p.Description}
}

// paymentRequest is the body of the payment request of p.
func paymentRequest(p pix.Payment) []byte {
	b, _ := json.Marshal(payloadOf(p))
	return b
}

// receiptBody is the body of a 201 answer, and of a lookup's 200.
type receiptBody struct {
	payload
	EndToEndID string `json:"endToEndId"`
	Status     string `json:"status"`
	Horario    string `json:"horario"`
}

// keepsContract reports whether the body of ex, a 201, is a whole receipt for its request:
// JSON with an endToEndId of the right shape, the requested valor and chave, status REALIZADO
// and an RFC 3339 horario. The body of a 202 keeps it with status EM_PROCESSAMENTO instead.
func keepsContract(ex Exchange) bool {
	want := statusSettled
	if ex.Status == http.StatusAccepted {
		want = statusPending
	}
	var req payload
	r, ok := statusBodyOf(ex)
	return json.Unmarshal(ex.Request, &req) == nil && ok && r.Valor == req.Valor && r.Chave == req.Chave &&
		r.Status == want
}

// statusBodyOf decodes the body of ex as a status answer's, and reports whether it has the form
// the contract gives it: an endToEndId of the right shape, a valor, a chave and an RFC 3339
// horario. A bad_body fault breaks one of them.
func statusBodyOf(ex Exchange) (receiptBody, bool) {
	var r receiptBody
	if json.Unmarshal(ex.Body, &r) != nil {
		return r, false
	}
	_, err := time.Parse(time.RFC3339, r.Horario)
	_, errValor := psp.ParseBalance(r.Valor)
	return r, endToEndIDShape.MatchString(r.EndToEndID) && errValor == nil && r.Chave != "" && err == nil
}

// endToEndIDShape is E, an 8-digit ISPB, a 12-digit yyyyMMddHHmm and 11 alphanumerics.
var endToEndIDShape = regexp.MustCompile(`^E[0-9]{20}[A-Za-z0-9]{11}$`)

// receiptOf reports whether body, a receipt, is one of payment p: its valor, chave and
// infoPagador.
func receiptOf(body []byte, p pix.Payment) bool {
	var r receiptBody
	return json.Unmarshal(body, &r) == nil && r.payload == payloadOf(p)
}

// The statuses of a payment that the PSP's answers state (statusSaid).
const (
	statusPending  = "EM_PROCESSAMENTO"
	statusSettled  = "REALIZADO"
	statusRejected = "NAO_REALIZADO"
)

// statusSaid is the status of its payment that the answer of ex states, as the contract lets
// it: the status member of a 201's body (REALIZADO), of a 202's (EM_PROCESSAMENTO) or of a
// lookup's 200 (REALIZADO or NAO_REALIZADO), each of the contract's form (statusBodyOf), or
// NAO_REALIZADO for a 422 payment_rejected. It is "" for any other answer, such as one a fault
// distorted.
func statusSaid(ex Exchange) string {
	if ex.Status == http.StatusUnprocessableEntity && problemCode(ex.Body) == "payment_rejected" {
		return statusRejected
	}
	r, ok := statusBodyOf(ex)
	switch {
	case !ok:
	case ex.Status == http.StatusCreated && r.Status == statusSettled,
		ex.Status == http.StatusAccepted && r.Status == statusPending,
		ex.Status == http.StatusOK && lookup(ex) && (r.Status == statusSettled || r.Status == statusRejected):
		return r.Status
	}
	return ""
}

// lastHeard is the status of its payment that the last round trip of call c brought whole
// (Trace.saidTo), or "" if it brought none.
func (tr Trace) lastHeard(c Call) string {
	t, ok := lastOf(c.final().Trips)
	if !ok {
		return ""
	}
	s, _ := tr.saidTo(t, c.Payment)
	return s.State
}

// problemCode is the code of a problem+json body, or "" if the body is not one.
func problemCode(body []byte) string {
	var p struct{ Code string }
	if json.Unmarshal(body, &p) != nil {
		return ""
	}
	return p.Code
}

// TestHintOfFollowsTheContract grades hintOf on values worked out by hand from the contract.
func TestHintOfFollowsTheContract(t *testing.T) {
	at := time.Date(2026, 1, 2, 10, 0, 0, 5e8, time.UTC)
	for retryAfter, want := range map[string]time.Duration{
		"7": 7 * time.Second, "0": 0, "-3": 0, "soon": 0, "": 0,
		at.Add(30 * time.Second).Format(http.TimeFormat): 29500 * time.Millisecond,
		at.Add(-time.Minute).Format(http.TimeFormat):     0,
	} {
		if got := hintOf(Trip{End: at, RetryAfter: retryAfter}); got != want {
			t.Errorf("hintOf(Retry-After %q) = %v, want %v", retryAfter, got, want)
		}
	}
}
