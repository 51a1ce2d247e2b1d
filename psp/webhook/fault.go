package webhook

import (
	"fmt"
	"time"

	"pixretry/psp"
)

// The kinds of fault, the Kind of a Fault.
const (
	kindDuplicate = "duplicate" // the delivery is sent twice
	kindDelay     = "delay"     // the delivery waits Duration before its first try
	kindReorder   = "reorder"   // the delivery is held until the next one has been tried
	kindFail      = "fail"      // the delivery's first Times tries fail unsent
)

// Fault is one misbehaviour of the Sender, consumed by the next delivery that Send queues. It
// is data, as a psp.Fault is: the control API's JSON form {"target":"webhook","kind":...} has
// the same fields. Make one with Duplicate, Delay, Reorder or Fail. Validate says whether it
// may be injected. The zero value is no fault and may not be injected.
//
//   - duplicate: the delivery is sent twice, the same id and body, each copy signed and
//     retried on its own. Stats.Duplicated counts it.
//   - delay: the delivery waits Duration before its first try.
//   - reorder: the delivery is held until the next delivery has been tried, so that it
//     arrives after a later payment's. It is held until Close if no delivery follows.
//   - fail: the delivery's first Times tries fail without being sent, as a lost connection
//     would, and are retried as such. Times as large as Config.Attempts gives it up unsent.
type Fault struct {
	Kind     string        // duplicate, delay, reorder or fail
	Duration time.Duration // how long a delay fault waits: 0 to psp.MaxFaultDuration
	Times    int           // how many tries a fail fault fails: 1 to MaxAttempts
}

// The constructors of the faults of each kind.
func Duplicate() Fault            { return Fault{Kind: kindDuplicate} }
func Delay(d time.Duration) Fault { return Fault{Kind: kindDelay, Duration: d} }
func Reorder() Fault              { return Fault{Kind: kindReorder} }
func Fail(times int) Fault        { return Fault{Kind: kindFail, Times: times} }

// Validate reports a fault that cannot be injected: an unknown kind, a field its kind does not
// use, a Duration out of 0 to psp.MaxFaultDuration or Times out of 1 to MaxAttempts. The error
// wraps psp.ErrInvalidFault, as a payment fault's does.
func (f Fault) Validate() error {
	used := Fault{Kind: f.Kind} // f with only the fields its kind uses
	var takes string
	switch f.Kind {
	case kindDuplicate, kindReorder:
		takes = "no other field"
	case kindDelay:
		used.Duration, takes = f.Duration, fmt.Sprintf("a Duration of 0 to %v", psp.MaxFaultDuration)
	case kindFail:
		used.Times, takes = f.Times, fmt.Sprintf("Times, 1 to %d", MaxAttempts)
	default:
		return fmt.Errorf("%w: unknown webhook kind %q: the kinds are duplicate, delay, reorder and fail",
			psp.ErrInvalidFault, f.Kind)
	}
	if f != used || f.Duration < 0 || f.Duration > psp.MaxFaultDuration ||
		f.Kind == kindFail && (f.Times < 1 || f.Times > MaxAttempts) {
		return fmt.Errorf("%w: webhook kind %q takes %s", psp.ErrInvalidFault, f.Kind, takes)
	}
	return nil
}
