package properties

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"pixretry/pix"
)

// dialectViolation is a violation planted in the baseline run of a dialect (dialectBaselines):
// the invariant that must report it, by the number that opens its name, and the violation.
type dialectViolation struct {
	dialect   string
	invariant string
	planted
}

// dialectPlanted are the violations planted in each dialect's baseline run: for every
// invariant whose reading differs in the dialect (its answers as said reads them, its front
// end's record, what stands in where the dialect has no analogue), one the dialect's run is
// shown able to catch.
var dialectPlanted = []dialectViolation{
	{"efi", "1 ", planted{"the front end relays a request twice", "to the core 2 times",
		func(tr *Trace) { tr.Wire = append(tr.Wire, *tr.answer(efiSettled, 2)) }}},
	{"efi", "1 ", planted{"the front end relays none of a request", "to the core 0 times, want 1",
		func(tr *Trace) { tr.answer(efiDenied, 1).Trip = -1 }}},
	{"efi", "4 ", planted{"an idEnvio with hyphens", "not a UUID v4 without its hyphens",
		func(tr *Trace) { rekey(tr, efiDenied, uuid.NewString()) }}},
	{"efi", "2 ", planted{"an Await that stops at a lookup's 200 REALIZADO", "got a final answer (200)",
		func(tr *Trace) { rewriteTold(tr, tr.lookupTrip(efiAwaited, 1), `"EM_PROCESSAMENTO"`, `"REALIZADO"`) }}},
	{"efi", "6 ", planted{"an error without the answer's nome", `the PSP's answer said "pagamento_negado"`,
		func(tr *Trace) { tr.Calls[efiDenied].Err.(*pix.Error).Code = "" }}},
	{"efi", "7 ", planted{"a replay told by its body, not marked replayed", "a replay by its body true",
		func(tr *Trace) { tr.Calls[efiSettled].Receipt.Replayed = false }}},
	{"efi", "7 ", planted{"a receipt a millisecond off the ledger", "but the ledger holds",
		func(tr *Trace) {
			tr.Calls[efiSettled].Receipt.SettledAt = tr.Calls[efiSettled].Receipt.SettledAt.Add(time.Millisecond)
		}}},
	{"efi", "7 ", planted{"a success on a 201 EM_PROCESSAMENTO", "accepted a 201 that breaks the contract",
		func(tr *Trace) { succeeded(tr, efiPending, efiAwaited) }}},
	{"efi", "8 ", planted{"a replay naming another payout", "names payment",
		func(tr *Trace) { otherPayment(tr, efiSettled, 2) }}},
	{"efi", "16 ", planted{"a 404 of another Tipo taken as proof", `a lookup answered 404 "PermanentementeRemovido"`,
		func(tr *Trace) {
			rewriteTold(tr, tr.lookupTrip(efiNoSettlement, 1), "PixEnviadoNaoEncontrado", "PermanentementeRemovido")
		}}},
	{"efi", "17 ", planted{"a pagamento_negado the core never gave", "might still settle",
		func(tr *Trace) { tr.answer(efiDenied, 1).Status = 503 }}},

	{"openfinance", "1 ", planted{"the front end relays a request twice", "to the core 2 times",
		func(tr *Trace) { tr.Wire = append(tr.Wire, *tr.answer(ofSettled, 1)) }}},
	{"openfinance", "1 ", planted{"a consent no one asked for", "a request that no round trip sent",
		func(tr *Trace) { tr.Setup-- }}},
	{"openfinance", "3 ", planted{"a payment whose consent expired, settled", "of its payment under its key",
		func(tr *Trace) { settle(tr, ofExpired) }}},
	{"openfinance", "4 ", planted{"a lookup of another payment's id", "lookup round trip 1 sent key",
		func(tr *Trace) { tr.lookupTrip(ofAwaited, 1).Key = tr.Calls[ofSettled].Receipt.Ref.PaymentID }}},
	{"openfinance", "4 ", planted{"a key that is no UUIDv7", "not a lower-case UUIDv7",
		func(tr *Trace) { rekey(tr, ofRefused, uuid.NewString()) }}},
	{"openfinance", "4 ", planted{"a retry that repeats its jti", "carry one jti", func(tr *Trace) {
		tr.told(tr.trip(ofLost, 2)).Request = tr.told(tr.trip(ofLost, 1)).Request
	}}},
	{"openfinance", "4 ", planted{"a retry that signs other data", "carries another data claim", func(tr *Trace) {
		tr.told(tr.trip(ofLost, 2)).Request = tr.told(tr.trip(ofUnpaid, 1)).Request
	}}},
	{"openfinance", "6 ", planted{"a consent CONSUMED taken as a contract breach", "after a consent CONSUMED",
		func(tr *Trace) {
			tr.unknownErr(ofConsumed).Err = fmt.Errorf("%w: %w", pix.ErrContract, tr.unknownErr(ofConsumed).Err)
		}}},
	{"openfinance", "6 ", planted{"a consent REJECTED read as a contract breach too", "after a consent REJECTED",
		func(tr *Trace) { tr.Calls[ofExpired].Err = fmt.Errorf("%w: %w", pix.ErrNoSettlement, pix.ErrContract) }}},
	{"openfinance", "6 ", planted{"a 422 the PSP did not sign taken as a refusal", "after a 422 it did not accept",
		func(tr *Trace) { unsigned(tr, tr.trip(ofRefused, 1)) }}},
	{"openfinance", "7 ", planted{"a success on a 201 the PSP did not sign", "accepted a 201 that breaks the contract",
		func(tr *Trace) { unsigned(tr, tr.trip(ofSettled, 1)) }}},
	{"openfinance", "7 ", planted{"a receipt a second off the ledger", "but the ledger holds",
		func(tr *Trace) {
			tr.Calls[ofSettled].Receipt.SettledAt = tr.Calls[ofSettled].Receipt.SettledAt.Add(time.Second)
		}}},
	{"openfinance", "8 ", planted{"a replay naming another paymentId", "names payment", func(tr *Trace) {
		again, first := *tr.told(tr.trip(ofPending, 1)), tr.told(tr.trip(ofSettled, 1))
		again.Key, again.Trip, again.Arrived = first.Key, first.Trip, first.Arrived.Add(time.Millisecond)
		tr.Front = append(tr.Front, again)
	}}},
	{"openfinance", "16 ", planted{"a consent CONSUMED taken as proof", "a lookup answered 200", func(tr *Trace) {
		tr.told(tr.lookupTrip(ofExpired, 1)).Body = tr.told(tr.lookupTrip(ofConsumed, 1)).Body
	}}},
	{"openfinance", "17 ", planted{"a receipt before its key's payment settled", "returned the receipt of",
		func(tr *Trace) { tr.Calls[ofAwaited].End = tr.Calls[ofPending].End }}},
	{"openfinance", "5c ", planted{"a request held at the front end longer than it queued", "attempt 1 took",
		func(tr *Trace) {
			tr.told(tr.trip(ofSettled, 1)).Arrived = tr.answer(ofSettled, 1).Arrived.Add(time.Hour)
		}}},
}

// TestNoVacuousInvariantInADialect hands the invariants, in the baseline run of each dialect
// but the double's own, the violations of dialectPlanted: each must report its own, and
// checkAll must too.
func TestNoVacuousInvariantInADialect(t *testing.T) {
	for _, c := range dialectPlanted {
		t.Run(c.dialect+"/"+c.name, func(t *testing.T) {
			k := slices.IndexFunc(invariants, func(inv invariant) bool { return strings.HasPrefix(inv.name, c.invariant) })
			if k < 0 {
				t.Fatalf("no invariant %q", c.invariant)
			}
			tr := dialectBaseline(t, c.dialect)
			c.plant(&tr)
			if err := invariants[k].check(tr); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("invariant %s = %v, want a violation saying %q", invariants[k].name, err, c.want)
			}
			if _, err := checkAll(tr); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("checkAll() = %v, want it to report %q", err, c.want)
			}
		})
	}
}

// told is what the dialect's front end received for round trip t and answered.
func (tr *Trace) told(t *Trip) *Exchange {
	return &tr.Front[slices.IndexFunc(tr.Front, func(ex Exchange) bool { return ex.Trip == t.Number })]
}

// rewriteTold replaces old by new in the front end's answer to round trip t.
func rewriteTold(tr *Trace, t *Trip, old, new string) {
	tr.told(t).Body = withBody(tr.told(t).Body, old, new)
}

// otherPayment makes the front end's answer to payment round trip n of call i name another
// payment: its id with the last character changed.
func otherPayment(tr *Trace, i, n int) {
	ex := tr.told(tr.trip(i, n))
	id := tr.Dialect.Says(*ex, tr.Calls[i].Payment).ID
	other := id[:len(id)-1] + map[bool]string{true: "y", false: "z"}[strings.HasSuffix(id, "z")]
	ex.Body = withBody(ex.Body, id, other)
}

// unsigned replaces the front end's signed answer to round trip t by its claims, unsigned.
func unsigned(tr *Trace, t *Trip) {
	ex := tr.told(t)
	payload, err := verifiedPayload(ex.Body)
	if err != nil {
		panic(err) // the baseline's answer is signed
	}
	ex.Body = payload
}

// succeeded makes call i return the receipt that call j, which awaited it, found.
func succeeded(tr *Trace, i, j int) {
	c := &tr.Calls[i]
	c.Receipt, c.Err = tr.Calls[j].Receipt, nil
	c.Receipt.Attempts, c.Receipt.Replayed = 1, false
}
