package retry

import (
	"strconv"
	"time"
)

// Attempt is what an observer (see [WithObserver]) learns about one attempt.
type Attempt struct {
	// Number is the attempt's number, 1-based.
	Number int
	// Err is the error the operation returned; nil on success.
	Err error
	// Transient is the classifier's verdict on Err; false on success.
	Transient bool
	// Wait is the wait Do chose before the next attempt. It is 0 when no wait
	// was considered (Stop is StopSuccess, StopPermanent or StopBudget). When
	// Stop is StopRetryAfter it is the server's hint that Do refused. When Stop
	// is StopContext it is the wait that Do did not start because the context
	// had ended or would end before the wait did. When Stop is StopQuota it is
	// the wait that Do did not start because the quota refused the retry.
	Wait time.Duration
	// Stop says why Do made no further attempt; StopNone when it goes on to
	// wait for Wait and try again.
	Stop Stop
}

// Stop is the reason Do stopped after an attempt.
type Stop int

const (
	// StopNone: Do goes on to another attempt.
	StopNone Stop = iota
	// StopSuccess: the attempt succeeded.
	StopSuccess
	// StopPermanent: the classifier judged the error permanent.
	StopPermanent
	// StopBudget: the attempt was the last one Policy.AttemptsMax allows.
	StopBudget
	// StopRetryAfter: the server asked for a wait longer than Policy.DelayMax.
	StopRetryAfter
	// StopContext: the context ended, or its deadline would pass before the
	// wait ended.
	StopContext
	// StopQuota: the Quota refused the retry (see [WithQuota]).
	StopQuota
)

// String returns the reason's name: "none", "success", "permanent", "budget",
// "retry-after", "context" or "quota". Any other value reads "Stop(n)".
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
