package main

import "pixretry/pix"

// expectation is what a scenario must produce in a dialect.
type expectation struct {
	// Err is the error the payment must fail with, matched with errors.Is. Nil means it settles.
	Err error
	// AttemptsMin and AttemptsMax bound the number of payment requests, both included.
	AttemptsMin, AttemptsMax int
	// Pending says whether Send must end with pix.ErrPending: the PSP accepted the payment and
	// tells its end only on a lookup. The demo then awaits the payment.
	Pending bool
	// Lookups is the number of lookups the wait for a pending payment must take.
	Lookups int
	// Replayed says whether the settling answer must be a stored one: a replay, or a lookup's.
	Replayed bool
}

// The expectations of each dialect, one per scenario in the order of scenarios. They differ
// where the dialects do.
//
// The double speaking Efí answers a first PUT EM_PROCESSAMENTO even when it settled at once, so
// a payment ends pending and a lookup finds it REALIZADO. A replay answers the payment's state,
// so scenario 3's retry settles without a lookup. Efí documents one refusal, pagamento_negado,
// which pix reads as pix.ErrRejected.
//
// The double speaking Open Finance settles at once, 201 ACSC, so no payment ends pending. Its
// overload is 529, which pix retries as it retries a 503. A replay answers 201 as the first
// answer does, and nothing marks it, so scenario 3's settlement is no replay to the client. An
// overdraft is 422 SALDO_INSUFICIENTE, pix.ErrInsufficientFunds.
var (
	pixExpectations = []expectation{
		{AttemptsMin: 1, AttemptsMax: 1},
		{AttemptsMin: 3, AttemptsMax: 3},
		{AttemptsMin: 2, AttemptsMax: policy.AttemptsMax, Replayed: true},
		{Err: pix.ErrInsufficientFunds, AttemptsMin: 1, AttemptsMax: 1},
		{Err: pix.ErrOutcomeUnknown, AttemptsMin: policy.AttemptsMax, AttemptsMax: policy.AttemptsMax},
	}
	efiExpectations = []expectation{
		{AttemptsMin: 1, AttemptsMax: 1, Pending: true, Lookups: 1, Replayed: true},
		{AttemptsMin: 3, AttemptsMax: 3, Pending: true, Lookups: 1, Replayed: true},
		{AttemptsMin: 2, AttemptsMax: policy.AttemptsMax, Replayed: true},
		{Err: pix.ErrRejected, AttemptsMin: 1, AttemptsMax: 1},
		{Err: pix.ErrOutcomeUnknown, AttemptsMin: policy.AttemptsMax, AttemptsMax: policy.AttemptsMax},
	}
	openfinanceExpectations = []expectation{
		{AttemptsMin: 1, AttemptsMax: 1},
		{AttemptsMin: 3, AttemptsMax: 3},
		{AttemptsMin: 2, AttemptsMax: policy.AttemptsMax},
		{Err: pix.ErrInsufficientFunds, AttemptsMin: 1, AttemptsMax: 1},
		{Err: pix.ErrOutcomeUnknown, AttemptsMin: policy.AttemptsMax, AttemptsMax: policy.AttemptsMax},
	}
)
