package psp

import "time"

// StatusRetryAfter is what recorder_test.go calls. It leaves with the Recorder, which is moving
// out of psp; elsewhere a Fault literal says it.
func StatusRetryAfter(code int, after time.Duration) Fault {
	return Fault{Kind: FaultStatus, Status: code, RetryAfter: after}
}
