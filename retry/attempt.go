package retry

import (
	"strconv"
	"time"
)

// Attempt is what an observer learns about one attempt (see [WithObserver]).
type Attempt struct {
	// Number is the attempt's number, from 1.
	Number int
	// Err is the error the operation returned, or nil on success.
	Err error
	// Transient is the classifier's verdict on Err, false on success.
	Transient bool
	// Wait is the wait Do chose before the next attempt. It is 0 when Stop is StopSuccess,
	// StopPermanent or StopBudget. With StopRetryAfter it is the server's hint that Do refused.
	// With StopContext it is the wait that Do did not start.
	// With StopQuota it is the wait that Do did not start.
	Wait time.Duration
	// Stop is why Do made no further attempt. It is StopNone when Do goes on to wait for Wait
	// and try again.
	Stop Stop
}

// Stop is the reason Do stopped after an attempt.
type Stop int

const (
	// StopNone means that Do goes on to another attempt.
	StopNone Stop = iota
	// StopSuccess means that the attempt succeeded.
	StopSuccess
	// StopPermanent means that the classifier judged the error permanent.
	StopPermanent
	// StopBudget means that Policy.AttemptsMax allows no more attempts.
	StopBudget
	// StopRetryAfter means that the server asked for a wait longer than Policy.DelayMax.
	StopRetryAfter
	// StopContext means that the context ended, or that it would end before the wait did.
	StopContext
	// StopQuota means that the Quota refused the retry (see [WithQuota]).
	StopQuota
)

// String returns the reason's name, such as "success" or "retry-after". The names are "none",
// "success", "permanent", "budget", "retry-after", "context" and "quota". Any other value
// reads "Stop(n)".
func (s Stop) String() string {
	switch s {
	case StopNone:
		return "none"
	case StopSuccess:
		return "success"
	case StopPermanent:
		return "permanent"
	case StopBudget:
		return "budget"
	case StopRetryAfter:
		return "retry-after"
	case StopContext:
		return "context"
	case StopQuota:
		return "quota"
	}
	return "Stop(" + strconv.Itoa(int(s)) + ")"
}
