package pix

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"
)

// problem is the part of an application/problem+json body (RFC 9457) that Error keeps.
type problem struct {
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

// decodeError makes the Error for an answer of the double that is not a payment's status. A
// body that is not a problem (not JSON, or with members of the wrong type) leaves Code and
// Detail empty.
func decodeError(a Answer) *Error {
	var p problem
	if json.Unmarshal(a.Body, &p) != nil {
		p = problem{}
	}
	return &Error{Status: a.Status, Code: p.Code, Detail: p.Detail}
}

// withRetryAfter returns err, the error a Dialect read from a, with a's Retry-After, read now,
// on the Error it is or wraps, unless that Error has one already.
func withRetryAfter(err error, a Answer) error {
	if e, ok := errors.AsType[*Error](err); ok && e.retryAfter == 0 {
		e.retryAfter = parseRetryAfter(a.Header.Get("Retry-After"), time.Now())
	}
	return err
}

// parseRetryAfter reads a Retry-After value, delay-seconds (a run of digits) or an HTTP-date
// taken relative to now. Absent, unparsable or past values give 0. More seconds than a
// time.Duration holds are cut to the most it does (about 292 years, far beyond any
// Policy.DelayMax, so that retry stops rather than wait).
func parseRetryAfter(v string, now time.Time) time.Duration {
	secs, err := strconv.ParseUint(v, 10, 64)
	if err == nil || errors.Is(err, strconv.ErrRange) { // on ErrRange, secs is the largest uint64
		return time.Duration(min(secs, uint64(math.MaxInt64/time.Second))) * time.Second
	}
	date, _ := http.ParseTime(v) // no date gives the zero time, long past: no wait
	return max(date.Sub(now), 0)
}
