package properties

import (
	"errors"
	"fmt"
)

// invariant is one named check over a Trace. check returns nil when the invariant holds, else an
// error naming every violation. Each lives in invariant_NAME_test.go.
type invariant struct {
	name    string
	check   func(Trace) error
	planted []planted // violations of it, each planted in the baseline trace
}

// invariants are the checks of the Retry Pattern, numbered as in docs/properties.md.
var invariants = []invariant{
	{"1 attempt budget", checkAttemptBudget, budgetPlanted},
	{"2 permanent errors stop", checkPermanentStops, permanentPlanted},
	{"3 one settlement per payment", checkSettlements, settlementsPlanted},
	{"4 one key per payment", checkKeys, keysPlanted},
	{"5a each wait is max(FullJitter(ceiling, u), hint)", checkJitter, jitterPlanted},
	{"5b the log's time line is the wire's", checkTimeline, timelinePlanted},
	{"5c elapsed time bounded", checkElapsed, elapsedPlanted},
	{"5d the caller's deadline kept", checkCallerDeadline, callerDeadlinePlanted},
	{"5e the key deadline kept", checkKeyDeadline, keyDeadlinePlanted},
	{"6 final error is the last attempt's", checkFinalError, finalErrorPlanted},
	{"7 honest outcome", checkHonesty, honestyPlanted},
	{"8 byte-identical replays", checkReplays, replaysPlanted},
	{"9 money conserved", checkMoney, moneyPlanted},
	{"10 local validation agrees with the PSP", checkValidation, validationPlanted},
	{"11 transient failures are retried", checkTransientRetried, transientPlanted},
	{"12 a refused attempt never reaches the wire", checkBreakerRefusals, breakerRefusalsPlanted},
	{"13 an open breaker is honest", checkBreakerHonesty, breakerHonestyPlanted},
	{"14 business refusals are not failures", checkBreakerBusiness, breakerBusinessPlanted},
	{"15 the breaker's counts match the wire", checkBreakerCounts, breakerCountsPlanted},
	{"16 a key is abandoned only on proof", checkKeyAbandoned, keyAbandonedPlanted},
	{"17 nothing settled before REALIZADO, nor refused while it may settle", checkPremature, prematurePlanted},
	{"18 a finished payment never changes", checkFinished, finishedPlanted},
	{"19 each delivery's effect once", checkDeliveryOnce, deliveryOncePlanted},
	{"20 a forged delivery has none", checkForged, forgedPlanted},
}

// checkAll names the invariants tr breaks, in order, and joins their violations, each under its
// invariant's name. Both are nil when all hold.
func checkAll(tr Trace) (broken []string, err error) {
	var errs []error
	for _, inv := range invariants {
		if err := inv.check(tr); err != nil {
			broken, errs = append(broken, inv.name), append(errs, fmt.Errorf("invariant %s: %w", inv.name, err))
		}
	}
	return broken, errors.Join(errs...)
}
