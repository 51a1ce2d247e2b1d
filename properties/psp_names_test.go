package properties

import (
	"pixretry/internal/pspcheck"
	"pixretry/psp"
)

// The names of psp the suite uses beyond its Server, Config, Settlement and fault
// constructors: the problem codes of the contract, the lookup's query parameter, the fault kinds
// a scenario reads back, and the helpers of the wire format. They live here alone, so that a
// change to psp's API lands in one file.
const (
	codeInsufficientFunds    = psp.CodeInsufficientFunds
	codeIdempotencyKeyReused = psp.CodeIdempotencyKeyReused
	codeIdempotencyKeyInUse  = psp.CodeIdempotencyKeyInUse
	codeInvalidRequest       = psp.CodeInvalidRequest
	codeInjectedFault        = psp.CodeInjectedFault
	codeNotFound             = psp.CodeNotFound
	codePaymentNotFound      = psp.CodePaymentNotFound
	codeIdempotencyKeyClosed = psp.CodeIdempotencyKeyClosed
	codeOutcomeUnprovable    = psp.CodeOutcomeUnprovable

	paymentsPath = psp.PaymentsPath
	lookupParam  = psp.LookupParam

	faultStatus       = psp.FaultStatus
	faultSlow         = psp.FaultSlow
	faultLate         = psp.FaultLate
	faultDrop         = psp.FaultDrop
	faultReset        = psp.FaultReset
	faultDown         = psp.FaultDown
	faultDuplicate    = psp.FaultDuplicate
	faultCommitStatus = psp.FaultCommitStatus
	faultBadBody      = psp.FaultBadBody
	faultRedirect     = psp.FaultRedirect
)

// The breaches a bad_body fault can make.
var breaches = []psp.Breach{psp.BreachNotJSON, psp.BreachShort, psp.BreachCut, psp.BreachAmount, psp.BreachPixKey,
	psp.BreachEndToEndID}

// badBodyWithout is a bad_body fault whose 201 lacks member m.
func badBodyWithout(m string) psp.Fault {
	return psp.Fault{Kind: psp.FaultBadBody, Breach: psp.BreachMissing, Member: m}
}

var (
	formatAmount  = psp.FormatAmount // cents as the contract's valor, "150.00"
	parseAmount   = psp.ParseBalance // the contract's valor as cents
	defaultKeyTTL = psp.DefaultConfig().KeyTTL
)

// validPixKey reports whether the PSP takes k as a chave, asked through the contract
// (pspcheck.TakesPixKey). Any answer but a verdict on k is a bug of the suite: it panics.
func validPixKey(k string) bool {
	takes, err := pspcheck.TakesPixKey(k)
	if err != nil {
		panic(err)
	}
	return takes
}
