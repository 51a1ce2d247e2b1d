package main

import (
	"time"

	"pixretry/pix"
	"pixretry/retry"
)

// The client's retry settings: small real delays, so the whole demo runs in about a second.
var policy = retry.Policy{AttemptsMax: 4, DelayBase: 50 * time.Millisecond, DelayMax: 400 * time.Millisecond}

// attemptTimeout limits each attempt.
const attemptTimeout = 300 * time.Millisecond

// lateBy is how long scenario 3's PSP holds its answer after settling: longer than
// attemptTimeout, so the first attempt gives up before the answer comes.
const lateBy = 600 * time.Millisecond

// downFor is how long scenario 5's PSP stays down: longer than the worst case of the whole
// retry budget (every attempt timing out, every wait at its ceiling; see worstCaseBudget), so
// that no attempt can reach the PSP.
const downFor = 2 * time.Second

// scenario is one of the seed's five situations: the faults queued on the PSP before a
// payment, the payment, and what must come of it.
type scenario struct {
	Title  string
	Faults []fault
	// Payment returns the payment to send, given the payer's balance (in cents) just before.
	Payment func(balanceCents int64) pix.Payment
	Want    expectation
}

// expectation is what a scenario must produce, checked against the receipt or error, the
// payment requests the client sent, and the PSP's ledger and balance.
type expectation struct {
	// Err is the error the payment must fail with (matched with errors.Is); nil: it settles.
	Err error
	// AttemptsMin and AttemptsMax bound the number of attempts, both included.
	AttemptsMin, AttemptsMax int
	// Replayed says whether the settling answer must be a replay of a stored one.
	Replayed bool
}

// scenarios are the seed's five situations, in its order.
var scenarios = []scenario{
	{
		Title:   "the PSP answers on the first attempt",
		Payment: fixed(15000, "maria@example.com", "lunch"),
		Want:    expectation{AttemptsMin: 1, AttemptsMax: 1},
	},
	{
		Title:   "two 503 in a row, then success on the third attempt",
		Faults:  []fault{{Kind: "status", Status: 503}, {Kind: "status", Status: 503}},
		Payment: fixed(20000, "+5511987654321", "rent share"),
		Want:    expectation{AttemptsMin: 3, AttemptsMax: 3},
	},
	{
		Title:   "the PSP settles but answers after the attempt timeout; the retry gets the stored answer",
		Faults:  []fault{{Kind: "late", DelayMS: lateBy.Milliseconds()}},
		Payment: fixed(10000, "123e4567-e89b-42d3-a456-426614174000", "books"),
		Want:    expectation{AttemptsMin: 2, AttemptsMax: policy.AttemptsMax, Replayed: true},
	},
	{
		Title:   "an amount above the balance is refused and not retried",
		Payment: aboveBalance("12345678909", "a car"),
		Want:    expectation{Err: pix.ErrInsufficientFunds, AttemptsMin: 1, AttemptsMax: 1},
	},
	{
		Title:   "the PSP is down for longer than the retry budget",
		Faults:  []fault{{Kind: "down", DurationMS: downFor.Milliseconds()}},
		Payment: fixed(5000, "11222333000181", "supplies"),
		Want:    expectation{Err: pix.ErrOutcomeUnknown, AttemptsMin: policy.AttemptsMax, AttemptsMax: policy.AttemptsMax},
	},
}

// fixed is a payment of a fixed amount, whatever the balance.
func fixed(cents int64, pixKey, description string) func(int64) pix.Payment {
	return func(int64) pix.Payment {
		return pix.Payment{AmountCents: cents, PixKey: pixKey, Description: description}
	}
}

// aboveBalance is a payment of one cent more than the balance: the smallest amount the PSP
// must refuse.
func aboveBalance(pixKey, description string) func(int64) pix.Payment {
	return func(balanceCents int64) pix.Payment {
		return pix.Payment{AmountCents: balanceCents + 1, PixKey: pixKey, Description: description}
	}
}

// worstCaseBudget is the longest a payment can take under p when every attempt runs into its
// timeout and every wait is drawn at its ceiling.
func worstCaseBudget(p retry.Policy, timeout time.Duration) time.Duration {
	total := time.Duration(p.AttemptsMax) * timeout
	for n := range p.AttemptsMax - 1 { // the waits after attempts 1 to AttemptsMax-1
		total += retry.Ceiling(p, n+1)
	}
	return total
}
