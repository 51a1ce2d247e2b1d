package properties

import (
	"time"

	"pgregory.net/rapid"

	"pixretry/psp"
)

// contractFaultGen draws a fault that breaks the response contract: a status after the commit
// (any 5xx, 501 and 505 among them, with or without Retry-After; or a 2xx other than 201), a
// 201 whose body breaks the contract in any of the ways psp offers, or a redirect before any
// processing.
func contractFaultGen() *rapid.Generator[psp.Fault] {
	commit := rapid.Custom(func(t *rapid.T) psp.Fault {
		code := rapid.OneOf(rapid.IntRange(500, 599), rapid.SampledFrom([]int{500, 502, 503, 504}),
			rapid.SampledFrom([]int{200, 202, 203, 206})).Draw(t, "commit status")
		if after := rapid.IntRange(0, 8).Draw(t, "commit retry_after_s"); after > 0 {
			return psp.Fault{Kind: psp.FaultCommitStatus, Status: code, RetryAfter: time.Duration(after) * time.Second}
		}
		return psp.CommitStatus(code)
	})
	body := rapid.OneOf(
		rapid.Map(rapid.SampledFrom(breaches), psp.BadBody),
		rapid.Map(rapid.SampledFrom([]string{"endToEndId", "valor", "chave", "status", "horario"}), badBodyWithout),
	)
	return rapid.OneOf(commit, body, rapid.Map(rapid.IntRange(300, 399), psp.Redirect))
}

// distortions counts the faults aimed at target that distort a success on its way out:
// bad_body, and commit_status with a 2xx.
func distortions(faults []psp.Fault, target psp.Target) int {
	n := 0
	for _, f := range faults {
		if f.Target == target && (f.Kind == faultBadBody || f.Kind == faultCommitStatus && f.Status < 300) {
			n++
		}
	}
	return n
}
