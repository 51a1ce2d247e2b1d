package properties

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestSameKeySendersKeepInvariants: 2 to 5 pix clients call SendWithKey with one key at once, some
// with another payment. Every invariant holds. The scheduler orders the requests, so rapid may call
// a failure flaky: the trace in the log is then the evidence.
func TestSameKeySendersKeepInvariants(t *testing.T) {
	checkPayments(t, scenarioGen(func(balance int64, _ time.Duration) *rapid.Generator[[]callSpec] {
		return rapid.Custom(func(t *rapid.T) []callSpec {
			first := paymentGen(balance).Draw(t, "payment")
			calls := make([]callSpec, rapid.IntRange(2, 5).Draw(t, "senders"))
			for i := range calls {
				calls[i] = callSpec{Payment: first, Key: "same-instant-key",
					Jitter: jitterGen().Draw(t, fmt.Sprintf("jitter of call %d", i))}
				if i > 0 && rapid.Bool().Draw(t, fmt.Sprintf("call %d sends another payment", i)) {
					calls[i].Payment = paymentGen(balance).Draw(t, fmt.Sprintf("payment %d", i))
				}
			}
			return calls
		})
	}))
}
