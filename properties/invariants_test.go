package properties

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"pixretry/retry"
)

// invariant is one named check over a Trace. check returns nil when the invariant holds, else an
// error naming every violation. Each lives in invariant_NAME_test.go.
type invariant struct {
	name    string
	check   func(Trace) error
	planted []planted // violations of it, each planted in the baseline trace
}

// invariants are the checks of the Retry Pattern, numbered as in docs/properties.md.
var invariants = []invariant{
	{"1 attempt budget", checkAttemptBudget, budgetPlanted},
	{"2 permanent errors stop", checkPermanentStops, permanentPlanted},
	{"3 one settlement per key", checkSettlements, settlementsPlanted},
	{"4 one key per payment", checkKeys, keysPlanted},
	{"5 waits and elapsed time", checkWaits, waitsPlanted},
	{"6 final error is the last attempt's", checkFinalError, finalErrorPlanted},
	{"7 honest outcome", checkHonesty, honestyPlanted},
	{"8 byte-identical replays", checkReplays, replaysPlanted},
	{"9 money conserved", checkMoney, moneyPlanted},
	{"10 local validation agrees with the PSP", checkValidation, validationPlanted},
	{"11 transient failures are retried", checkTransientRetried, transientPlanted},
	{"12 a refused attempt never reaches the wire", checkBreakerRefusals, breakerRefusalsPlanted},
	{"13 an open breaker is honest", checkBreakerHonesty, breakerHonestyPlanted},
	{"14 business refusals are not failures", checkBreakerBusiness, breakerBusinessPlanted},
	{"15 the breaker's counts match the wire", checkBreakerCounts, breakerCountsPlanted},
}

// checkAll joins the violations of every invariant over tr, each under its invariant's name. It
// is nil when all hold.
func checkAll(tr Trace) error {
	var errs []error
	for _, inv := range invariants {
		if err := inv.check(tr); err != nil {
			errs = append(errs, fmt.Errorf("invariant %s: %w", inv.name, err))
		}
	}
	return errors.Join(errs...)
}

// brokenInvariants names the invariants tr breaks, in order.
func brokenInvariants(tr Trace) []string {
	var names []string
	for _, inv := range invariants {
		if inv.check(tr) != nil {
			names = append(names, inv.name)
		}
	}
	return names
}

// violations collects the violations of one invariant.
type violations []error

func (v *violations) addf(format string, args ...any) { *v = append(*v, fmt.Errorf(format, args...)) }

func (v violations) err() error { return errors.Join(v...) }

// The oracles below restate retry's and pix's contracts as plain rules: the suite does not grade
// them with their own answers.

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
