package properties

import (
	"errors"
	"math/big"
	"net"
	"net/http"
	"slices"
	"strconv"
	"time"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// The oracles restate retry's and pix's contracts as plain rules, so that the suite does not grade
// them with their own answers, and name what the invariants share: a payment's settlements,
// its chain of calls, a call's key deadline (trace_test.go).

// ceilingOf is the ceiling of the wait after attempt n: min(DelayMax, DelayBase·2^(n−1)). It
// doubles step by step and stops at DelayMax, so it cannot overflow.
func ceilingOf(p retry.Policy, n int) time.Duration {
	c := p.DelayBase
	for i := 1; i < n && 0 < c && c < p.DelayMax; i++ {
		if c > p.DelayMax/2 {
			return p.DelayMax
		}
		c *= 2
	}
	return min(c, p.DelayMax)
}

// transientStatus classifies an HTTP answer. A 5xx but 501 and 505, a 429 and a 409 are worth
// another attempt; every other status is final.
func transientStatus(code int) bool {
	serverError := code >= 500 && code <= 599 && code != http.StatusNotImplemented &&
		code != http.StatusHTTPVersionNotSupported
	return serverError || code == http.StatusTooManyRequests || code == http.StatusConflict
}

// transientTrip classifies a round trip. A transport failure (a lost connection, the attempt's
// deadline) or a body cut short is transient, but for a name that does not resolve and an
// unreadable header. An answer is classified by its status.
func transientTrip(t Trip, unreadable bool) bool {
	if _, ok := errors.AsType[*net.DNSError](t.Err); ok || unreadable {
		return false
	}
	return t.Err != nil || t.BodyErr != nil || transientStatus(t.Status)
}

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
// time.
func describes(r pix.Receipt, s psp.Settlement) bool {
	return r.EndToEndID == s.EndToEndID && r.AmountCents == s.AmountCents && r.PixKey == s.PixKey &&
		r.SettledAt.Equal(s.SettledAt)
}

// refused reports whether err is a business refusal: the PSP (or local validation) said no. An
// ErrKeyReused from a lookup, which sees only the key's latest settlement, is also outcome
// unknown, and no refusal.
func refused(err error) bool {
	return (errors.Is(err, pix.ErrInsufficientFunds) || errors.Is(err, pix.ErrKeyReused) ||
		errors.Is(err, pix.ErrInvalidPayment)) && !errors.Is(err, pix.ErrOutcomeUnknown)
}

// chains returns the calls of each payment of tr (Call.Chain), in order, the payments in the
// order of their first calls.
func (tr Trace) chains() [][]int {
	var out [][]int
	at := map[int]int{} // chain → its index in out
	for i, c := range tr.Calls {
		k, ok := at[c.Chain]
		if !ok {
			k, at[c.Chain] = len(out), len(out)
			out = append(out, nil)
		}
		out[k] = append(out[k], i)
	}
	return out
}

// paymentSettlements returns the ledger's settlements of the payment of chain, the calls of
// one payment: those under any of its calls' keys that pay it.
func (tr Trace) paymentSettlements(chain []int) []psp.Settlement {
	p := tr.Calls[chain[0]].Payment
	var out []psp.Settlement
	for _, s := range tr.Ledger {
		if pays(s, p) && slices.ContainsFunc(chain, func(i int) bool { return tr.Calls[i].Key() == s.IdempotencyKey }) &&
			s.Token == tr.Token {
			out = append(out, s)
		}
	}
	return out
}

// fitsBefore reports whether an attempt under a key whose key deadline is deadline may start at
// start: it ends before the deadline, by its AttemptTimeout, or with none it starts before it
// (the key deadline then ends it). pix.Client.KeyTTL's rule.
func fitsBefore(start, deadline time.Time, attemptTimeout time.Duration) bool {
	return start.Add(attemptTimeout).Before(deadline)
}

// fullJitterOf is retry.FullJitter's contract computed another way: ⌊u·(ceiling+1)⌋ with u
// counted in whole 2⁻⁵³, in big integers. A draw outside [0, 1) gives the ceiling.
func fullJitterOf(ceiling time.Duration, u float64) time.Duration {
	if !(u >= 0 && u < 1) {
		return ceiling
	}
	draw := new(big.Int).SetUint64(uint64(u * (1 << 53)))
	draw.Mul(draw, new(big.Int).Add(big.NewInt(int64(ceiling)), big.NewInt(1)))
	return time.Duration(draw.Rsh(draw, 53).Int64())
}
