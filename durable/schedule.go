package durable

import (
	"time"

	"github.com/riverqueue/river/rivertype"
)

// schedule is River's retry policy for the Payer's jobs. River uses it when a job attempt
// fails without an answer for its intent, as when the database is lost, and when its rescuer
// takes a job from a dead process. It waits as Config.delay does, after the job's n-th attempt.
type schedule struct{ cfg Config }

// NextRetry returns when job's next attempt may start.
func (s schedule) NextRetry(job *rivertype.JobRow) time.Time {
	return time.Now().Add(s.cfg.delay(job.Attempt))
}
