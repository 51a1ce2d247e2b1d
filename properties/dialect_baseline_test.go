package properties

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/psp"
	"pixretry/retry"
)

// Each dialect has a baseline run of its own, in which violations of the invariants that read
// its answers or its front end are planted (dialectPlanted): each dialect's run is shown able to
// fail. The calls never overlap, and the faults fall on the core's payment requests in the order
// they arrive.

// The calls of Efí's baseline run, by what happens to them.
const (
	efiSettled      = iota // a timeout under a late answer, then the replay: 201 REALIZADO
	efiDenied              // beyond the balance: 422 pagamento_negado, ErrRejected
	efiPending             // accepted pending for 0.3 s: 201 EM_PROCESSAMENTO, ErrPending
	efiAwaited             // awaits efiPending's idEnvio: 200 EM_PROCESSAMENTO, then REALIZADO
	efiUnknown             // three 503s: outcome unknown
	efiNoSettlement        // resumes efiUnknown past its key deadline: 404 PixEnviadoNaoEncontrado
	efiRepaid              // pays efiUnknown's payment under a new idEnvio: 201 EM_PROCESSAMENTO
)

// efiBaselineRun is Efí's baseline run. The PSP and the clients keep keys 2 s, so the key
// deadline falls 1.8 s after a key's first send.
var efiBaselineRun = scenario{
	Dialect:        efiAPI.Name,
	Policy:         retry.Policy{AttemptsMax: 3, DelayBase: 100 * time.Millisecond, DelayMax: time.Second},
	AttemptTimeout: 500 * time.Millisecond,
	KeyTTL:         2 * time.Second,
	BalanceCents:   100_000,
	Faults: []psp.Fault{psp.Late(2 * time.Second), psp.Slow(0), psp.Slow(0),
		psp.Pending(300*time.Millisecond, "settled"), psp.Status(503), psp.Status(503), psp.Status(503)},
	Calls: []callSpec{
		efiSettled: {Payment: pix.Payment{AmountCents: 15000, PixKey: "pix@example.com"}, Jitter: []float64{0.5}},
		efiDenied: {Payment: pix.Payment{AmountCents: 90000, PixKey: "12345678901"}, After: 3 * time.Second,
			Jitter: []float64{0.5}},
		efiPending: {Payment: pix.Payment{AmountCents: 3000, PixKey: "+5511987654321", Description: "aluguel"},
			After: 4 * time.Second, Jitter: []float64{0.5}},
		efiAwaited: {Reconcile: true, Await: true, Deadline: 5 * time.Second, Jitter: []float64{0.5}},
		efiUnknown: {Payment: pix.Payment{AmountCents: 1000, PixKey: "11222333000181"}, After: 10 * time.Second,
			Jitter: []float64{0.5}},
		efiNoSettlement: {Reconcile: true, After: 3 * time.Second, Jitter: []float64{0.5}},
		efiRepaid:       {Reconcile: true, Jitter: []float64{0.5}},
	},
}

// The calls of Open Finance's baseline run, by what happens to them.
const (
	ofSettled  = iota // 201 ACSC at once
	ofRefused         // beyond the balance: 422 SALDO_INSUFICIENTE, ErrInsufficientFunds
	ofPending         // accepted pending for 0.3 s: 201 ACCP, ErrPending with its paymentId
	ofAwaited         // awaits ofPending by its paymentId: 200 ACCP, then ACSC
	ofLost            // its first answer dropped after the commit, then two 529s: outcome unknown
	ofConsumed        // resumes ofLost past its key deadline: its consent CONSUMED, outcome unknown
	ofUnpaid          // three 529s before any processing: outcome unknown, its consent unconsumed
	ofExpired         // resumes ofUnpaid past its consent's hour: REJECTED, ErrNoSettlement
	ofRepaid          // pays ofUnpaid's payment under a new key and a new consent: 201 ACSC
)

// openFinanceBaselineRun is Open Finance's baseline run, whose keys live 2 s as Efí's do.
var openFinanceBaselineRun = scenario{
	Dialect:        openFinanceAPI.Name,
	Policy:         retry.Policy{AttemptsMax: 3, DelayBase: 100 * time.Millisecond, DelayMax: time.Second},
	AttemptTimeout: 500 * time.Millisecond,
	KeyTTL:         2 * time.Second,
	BalanceCents:   100_000,
	Faults: []psp.Fault{psp.Slow(0), psp.Slow(0), psp.Pending(300*time.Millisecond, "settled"), psp.Drop(),
		psp.Status(503), psp.Status(503), psp.Status(503), psp.Status(503), psp.Status(503)},
	Calls: []callSpec{
		ofSettled: {Payment: pix.Payment{AmountCents: 15000, PixKey: "pix@example.com"}, Jitter: []float64{0.5}},
		ofRefused: {Payment: pix.Payment{AmountCents: 90000, PixKey: "12345678901"}, After: time.Second,
			Jitter: []float64{0.5}},
		ofPending: {Payment: pix.Payment{AmountCents: 3000, PixKey: "+5511987654321", Description: "aluguel"},
			After: 2 * time.Second, Jitter: []float64{0.5}},
		ofAwaited: {Reconcile: true, Await: true, Deadline: 5 * time.Second, Jitter: []float64{0.5}},
		ofLost: {Payment: pix.Payment{AmountCents: 2500, PixKey: "pix@example.com"}, After: 10 * time.Second,
			Jitter: []float64{0.5}},
		ofConsumed: {Reconcile: true, After: 3 * time.Second, Jitter: []float64{0.5}},
		ofUnpaid: {Payment: pix.Payment{AmountCents: 700, PixKey: "11222333000181", Description: "boleto"},
			After: 20 * time.Second, Jitter: []float64{0.5}},
		ofExpired: {Reconcile: true, After: 61 * time.Minute, Jitter: []float64{0.5}},
		ofRepaid:  {Reconcile: true, Jitter: []float64{0.5}},
	},
}

// dialectBaselines are the baseline runs of the dialects but the double's own, by name.
var dialectBaselines = map[string]scenario{efiAPI.Name: efiBaselineRun, openFinanceAPI.Name: openFinanceBaselineRun}

// dialectBaseline plays the baseline run of dialect in a synctest bubble and returns its
// trace, fresh on every call.
func dialectBaseline(t *testing.T, dialect string) Trace {
	t.Helper()
	var tr Trace
	var err error
	synctest.Test(t, func(*testing.T) { tr, err = runScenario(dialectBaselines[dialect]) })
	if err != nil {
		t.Fatalf("runScenario(the %s baseline) = %v", dialect, err)
	}
	return tr
}

// TestDialectBaselinesKeepEveryInvariant: the traces the dialects' planted violations start
// from are valid.
func TestDialectBaselinesKeepEveryInvariant(t *testing.T) {
	for name := range dialectBaselines {
		t.Run(name, func(t *testing.T) {
			if _, err := checkAll(dialectBaseline(t, name)); err != nil {
				t.Fatalf("checkAll(the %s baseline) = %v, want nil", name, err)
			}
		})
	}
}

// TestDialectBaselinesHaveTheirShape: each call of each dialect's baseline ends as its constant
// says, after as many payment attempts and lookup attempts.
func TestDialectBaselinesHaveTheirShape(t *testing.T) {
	want := map[string][]string{
		efiAPI.Name: {efiSettled: "settled on a replay after 2+0", efiDenied: "rejected after 1+0",
			efiPending: "pending after 1+0", efiAwaited: "found by a lookup after 0+4",
			efiUnknown: "outcome unknown after 3+0", efiNoSettlement: "no settlement after 0+1",
			efiRepaid: "pending after 1+0"},
		openFinanceAPI.Name: {ofSettled: "settled after 1+0", ofRefused: "insufficient funds after 1+0",
			ofPending: "pending after 1+0", ofAwaited: "found by a lookup after 0+4",
			ofLost: "outcome unknown after 3+0", ofConsumed: "outcome unknown after 0+1",
			ofUnpaid: "outcome unknown after 3+0", ofExpired: "no settlement after 0+1", ofRepaid: "settled after 1+0"},
	}
	for name, want := range want {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, c := range dialectBaseline(t, name).Calls {
				got = append(got, fmt.Sprintf("%s after %d+%d", callOutcome(c), len(c.Attempts), len(c.Lookup.Attempts)))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the %s baseline's calls (-want +got):\n%s", name, diff)
			}
		})
	}
}
