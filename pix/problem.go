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

// decodeError makes the Error for an answer other than 201, read at now. A body
// that is not a problem (not JSON, or with members of the wrong type) leaves Code and Detail
// empty.
func decodeError(a answer, now time.Time) *Error {
	var p problem
	if json.Unmarshal(a.body, &p) != nil {
		p = problem{}
	}
	return &Error{Status: a.status, Code: p.Code, Detail: p.Detail,
		retryAfter: parseRetryAfter(a.header.Get("Retry-After"), now)}
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
