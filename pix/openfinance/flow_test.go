package openfinance_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
	"pixretry/pix/openfinance"
	"pixretry/psp"
	"pixretry/retry"
)

// A payment under a fresh consent settles with one request: the receipt has the payment's
// endToEndId, made from its key, and the PSP's paymentId and the consent in its Ref.
func TestSendSettles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBank(t, psp.DefaultConfig())
		p := b.consent(t, payment)
		r, err := b.client.Send(t.Context(), p)
		if err != nil {
			t.Fatalf("Send() error = %v", err)
		}
		if r.Status != "REALIZADO" || r.AmountCents != p.AmountCents || r.PixKey != p.PixKey || r.Attempts != 1 ||
			r.Ref.PaymentID == "" || r.Ref.ConsentID != p.ConsentID || !strings.HasPrefix(r.EndToEndID, "E99999999200001010000") {
			t.Errorf("Send() = %+v, want settled in 1 attempt, with a paymentId, the consent and an endToEndId of now", r)
		}
		if got, want := paths(b.wire.requests()), []string{"POST /consents", "POST /pix/payments"}; !slices.Equal(got, want) {
			t.Errorf("requests = %q, want %q", got, want)
		}
		if got := b.settled(); !slices.Equal(got, []int64{p.AmountCents}) {
			t.Errorf("settlements = %v, want one of %d", got, p.AmountCents)
		}
	})
}

// A payment left pending ends the Send with an unknown outcome that holds the paymentId, and
// AwaitRef looks it up by that id until it settles.
func TestAwaitRefFollowsAPendingPayment(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBank(t, psp.DefaultConfig())
		p := b.consent(t, payment)
		b.core.Inject(psp.Pending(time.Minute, "settled"))
		_, err := b.client.Send(t.Context(), p)
		unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
		if !ok || !errors.Is(err, pix.ErrPending) || unknown.Ref.PaymentID == "" || unknown.Ref.ConsentID != p.ConsentID {
			t.Fatalf("Send() error = %v, want an unknown outcome matching ErrPending with the paymentId and consent", err)
		}
		start := time.Now()
		r, err := b.client.AwaitRef(t.Context(), unknown.Key, unknown.Ref)
		if err != nil || r.Status != "REALIZADO" || r.Ref != unknown.Ref {
			t.Fatalf("AwaitRef() = %+v, %v, want settled, with the same Ref", r, err)
		}
		if waited := time.Since(start); waited < time.Minute-time.Second || waited > time.Minute+2*time.Second {
			t.Errorf("AwaitRef() took %v, want about the pending minute", waited)
		}
		reqs := b.wire.requests()
		want := "GET /pix/payments/" + unknown.Ref.PaymentID
		for _, got := range paths(reqs[2:]) {
			if got != want {
				t.Errorf("AwaitRef() sent %s, want only %s", got, want)
			}
		}
		if got := b.settled(); !slices.Equal(got, []int64{p.AmountCents}) {
			t.Errorf("settlements = %v, want one of %d", got, p.AmountCents)
		}
	})
}

// A payment the PSP accepts and then rejects ends with ErrRejected and its reason, never an
// unknown outcome; nothing is paid.
func TestAwaitRefEndsWithARejection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBank(t, psp.DefaultConfig())
		p := b.consent(t, payment)
		b.core.Inject(psp.Pending(time.Minute, "rejected"))
		_, err := b.client.Send(t.Context(), p)
		unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
		if !ok || !errors.Is(err, pix.ErrPending) {
			t.Fatalf("Send() error = %v, want an unknown outcome matching ErrPending", err)
		}
		_, err = b.client.AwaitRef(t.Context(), unknown.Key, unknown.Ref)
		if !errors.Is(err, pix.ErrRejected) || errors.Is(err, pix.ErrOutcomeUnknown) ||
			!strings.Contains(err.Error(), "PAGAMENTO_RECUSADO_DETENTORA") {
			t.Errorf("AwaitRef() error = %v, want ErrRejected with PAGAMENTO_RECUSADO_DETENTORA, not unknown", err)
		}
		if got := b.settled(); len(got) != 0 {
			t.Errorf("settlements = %v, want none", got)
		}
	})
}

// An answer lost after the PSP paid leaves the outcome unknown, with the consent but no
// paymentId. Resume then resends the payment under its key, signed anew, with a new jti and
// iat and the same data; the PSP replays it, and the ledger holds one settlement, whose
// paymentId a lookup finds.
func TestResumeResendsALostAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBank(t, psp.DefaultConfig())
		p := b.consent(t, payment)
		b.client.Policy.AttemptsMax = 1
		b.core.Inject(psp.Drop())
		_, err := b.client.Send(t.Context(), p)
		unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
		if !ok || unknown.Ref != (pix.Ref{ConsentID: p.ConsentID}) {
			t.Fatalf("Send() error = %v, want an unknown outcome that knows only the consent", err)
		}
		time.Sleep(10 * time.Second)
		r, err := b.client.Resume(t.Context(), unknown, p)
		if err != nil || r.Status != "REALIZADO" || r.Ref.PaymentID == "" {
			t.Fatalf("Resume() = %+v, %v, want settled with a paymentId", r, err)
		}
		reqs := b.wire.requests()[1:]
		if got, want := paths(reqs), []string{"POST /pix/payments", "POST /pix/payments"}; !slices.Equal(got, want) {
			t.Fatalf("requests = %q, want %q", got, want)
		}
		first, resent := reqs[0], reqs[1]
		if first.Key != unknown.Key || resent.Key != unknown.Key || first.Data != resent.Data {
			t.Errorf("the resend has key %s and data %s, want key %s and data %s", resent.Key, resent.Data, first.Key,
				first.Data)
		}
		if first.Claims["jti"] == resent.Claims["jti"] || resent.Claims["iat"].(float64)-first.Claims["iat"].(float64) != 10 {
			t.Errorf("the resend has jti %v and iat %v, want a new jti and an iat 10 s after %v", resent.Claims["jti"],
				resent.Claims["iat"], first.Claims["iat"])
		}
		if got := b.settled(); !slices.Equal(got, []int64{p.AmountCents}) {
			t.Errorf("settlements = %v, want one of %d", got, p.AmountCents)
		}
		found, err := b.client.LookupRef(t.Context(), unknown.Key, r.Ref)
		if err != nil || found.Ref.PaymentID != r.Ref.PaymentID || found.EndToEndID != r.EndToEndID {
			t.Errorf("LookupRef() = %+v, %v, want the payment %s", found, err, r.Ref.PaymentID)
		}
	})
}

// A key that holds a payment refuses other data with ERRO_IDEMPOTENCIA: ErrKeyReused, which
// proves this payment was not made under the key, so not an unknown outcome.
func TestSendWithKeyRefusesOtherData(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBank(t, psp.DefaultConfig())
		p := b.consent(t, payment)
		r, err := b.client.Send(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		other := p
		other.AmountCents++
		_, err = b.client.SendWithKey(t.Context(), r.IdempotencyKey, other)
		e, ok := errors.AsType[*pix.Error](err)
		if !ok || e.Code != "ERRO_IDEMPOTENCIA" || !errors.Is(err, pix.ErrKeyReused) || errors.Is(err, pix.ErrOutcomeUnknown) {
			t.Errorf("SendWithKey(other data) error = %v, want 422 ERRO_IDEMPOTENCIA, ErrKeyReused, not unknown", err)
		}
		if got := b.settled(); !slices.Equal(got, []int64{p.AmountCents}) {
			t.Errorf("settlements = %v, want one of %d", got, p.AmountCents)
		}
	})
}

// An answer that does not verify with the PSP's keys is an unknown outcome, never a
// settlement nor a refusal, though the PSP paid.
func TestSendTakesAnUnverifiedAnswerForUnknown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBank(t, psp.DefaultConfig())
		p := b.consent(t, payment)
		b.d.PSPKeys.Keys[0].Key = &testKeys().stranger.PublicKey
		_, err := b.client.Send(t.Context(), p)
		if !errors.Is(err, pix.ErrOutcomeUnknown) || !errors.Is(err, pix.ErrContract) ||
			!strings.Contains(err.Error(), "the 201 answer's signature does not verify with PSPKeys") {
			t.Errorf("Send() error = %v, want an unknown outcome: the 201's signature does not verify", err)
		}
		if got := b.settled(); !slices.Equal(got, []int64{p.AmountCents}) {
			t.Errorf("settlements = %v, want one of %d", got, p.AmountCents)
		}
	})
}

// A consent never consumed, as when the only attempt was shed before the PSP processed it,
// is AUTHORISED, then REJECTED 60 minutes after its authorisation: AwaitRef, which has only
// the consent, waits for it and ends with ErrNoSettlement.
func TestAwaitRefProvesNothingPaidOnceTheConsentExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBank(t, psp.DefaultConfig())
		start := time.Now()
		p := b.consent(t, payment)
		b.client.Policy = retry.Policy{AttemptsMax: 1, DelayBase: time.Second, DelayMax: 10 * time.Minute}
		b.core.Inject(psp.Status(503))
		_, err := b.client.Send(t.Context(), p)
		unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
		if e, isErr := errors.AsType[*pix.Error](err); !ok || !isErr || e.Status != 529 || unknown.Ref.PaymentID != "" {
			t.Fatalf("Send() error = %v, want an unknown outcome of a 529, with no paymentId", err)
		}
		_, err = b.client.AwaitRef(t.Context(), unknown.Key, unknown.Ref)
		if !errors.Is(err, pix.ErrNoSettlement) || errors.Is(err, pix.ErrOutcomeUnknown) ||
			!strings.Contains(err.Error(), "TEMPO_EXPIRADO_CONSUMO") {
			t.Errorf("AwaitRef() error = %v, want ErrNoSettlement for a consent expired unconsumed", err)
		}
		// Half draws wait 0.5 s after the first lookup, doubling to 256 s after the tenth, then
		// 300 s, half of DelayMax: the 22nd lookup, 511.5 s + 11 × 300 s after the first, is the
		// first past the consent's hour.
		if waited, want := time.Since(start), time.Hour+3*time.Minute+31500*time.Millisecond; waited != want {
			t.Errorf("AwaitRef() ended %v after the consent, want %v", waited, want)
		}
		lookups := paths(b.wire.requests()[2:])
		if want := slices.Repeat([]string{"GET /consents/" + p.ConsentID}, 22); !slices.Equal(lookups, want) {
			t.Errorf("AwaitRef() sent %q, want 22 lookups of the consent", lookups)
		}
		if got := b.settled(); len(got) != 0 {
			t.Errorf("settlements = %v, want none", got)
		}
	})
}

// A consent consumed by a payment whose answer was lost, past the key's lifetime, leaves the
// outcome unknown, and the error says why: the consent was consumed, the paymentId is
// unknown.
func TestLookupRefOfAConsumedConsentStaysUnknown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBank(t, psp.DefaultConfig())
		p := b.consent(t, payment)
		b.client.Policy.AttemptsMax = 1
		b.core.Inject(psp.Drop())
		_, err := b.client.Send(t.Context(), p)
		unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
		if !ok {
			t.Fatalf("Send() error = %v, want an unknown outcome", err)
		}
		time.Sleep(25 * time.Hour)
		_, err = b.client.Resume(t.Context(), unknown, p)
		if !errors.Is(err, openfinance.ErrConsentConsumed) || !errors.Is(err, pix.ErrOutcomeUnknown) {
			t.Errorf("Resume() a day later error = %v, want an unknown outcome matching ErrConsentConsumed", err)
		}
		if got, want := paths(b.wire.requests()[2:]), []string{"GET /consents/" + p.ConsentID}; !slices.Equal(got, want) {
			t.Errorf("Resume() sent %q, want only %q", got, want)
		}
		if got := b.settled(); !slices.Equal(got, []int64{p.AmountCents}) {
			t.Errorf("settlements = %v, want the one the lost answer hid", got)
		}
	})
}

// Overload (529, which the double answers for its own 503) and a gateway timeout (504) are
// retried, under the same key, and the payment settles once.
func TestSendRetries529And504(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBank(t, psp.DefaultConfig())
		p := b.consent(t, payment)
		b.core.Inject(psp.Status(503), psp.Status(504))
		r, err := b.client.Send(t.Context(), p)
		if err != nil || r.Attempts != 3 {
			t.Fatalf("Send() = %+v, %v, want settled in 3 attempts", r, err)
		}
		reqs := b.wire.requests()[1:]
		var keys []string
		for _, r := range reqs {
			keys = append(keys, r.Key)
		}
		if want := []string{r.IdempotencyKey, r.IdempotencyKey, r.IdempotencyKey}; !cmp.Equal(keys, want) {
			t.Errorf("keys = %q, want %q", keys, want)
		}
		if got := b.settled(); !slices.Equal(got, []int64{p.AmountCents}) {
			t.Errorf("settlements = %v, want one of %d", got, p.AmountCents)
		}
	})
}

// The payer's balance short is 422 SALDO_INSUFICIENTE: ErrInsufficientFunds, a definitive
// refusal.
func TestSendRefusedForInsufficientFunds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := psp.DefaultConfig()
		cfg.BalanceCents = payment.AmountCents - 1
		b := newBank(t, cfg)
		_, err := b.client.Send(t.Context(), b.consent(t, payment))
		e, ok := errors.AsType[*pix.Error](err)
		if !ok || e.Code != "SALDO_INSUFICIENTE" || !errors.Is(err, pix.ErrInsufficientFunds) ||
			errors.Is(err, pix.ErrOutcomeUnknown) {
			t.Errorf("Send() error = %v, want 422 SALDO_INSUFICIENTE, ErrInsufficientFunds", err)
		}
	})
}

// Every key the dialect cannot carry, and a payment without a consent, are refused before any
// request.
func TestSendRefusesBeforeAnyRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBank(t, psp.DefaultConfig())
		p := b.consent(t, payment)
		b.wire.requests()
		key := b.d.NewKey()
		for _, bad := range []string{"", key + "abcde", " " + key} {
			_, err := b.client.SendWithKey(t.Context(), bad, p)
			if !errors.Is(err, pix.ErrInvalidPayment) || errors.Is(err, pix.ErrOutcomeUnknown) {
				t.Errorf("SendWithKey(%q) error = %v, want ErrInvalidPayment, not unknown", bad, err)
			}
		}
		unconsented := p
		unconsented.ConsentID = ""
		_, err := b.client.Send(t.Context(), unconsented)
		if !errors.Is(err, pix.ErrInvalidPayment) || errors.Is(err, pix.ErrOutcomeUnknown) ||
			!strings.Contains(err.Error(), "the payment has no ConsentID") {
			t.Errorf("Send(no consent) error = %v, want ErrInvalidPayment for the missing consent, not unknown", err)
		}
		if reqs := b.wire.requests(); len(reqs) != 0 {
			t.Errorf("requests = %q, want none", paths(reqs))
		}
	})
}

// spoiled is a Dialect whose attempts from the nth on are written by what spoil leaves of it,
// such as a key the PSP does not trust or another issuer.
type spoiled struct {
	*openfinance.Dialect
	from  int
	spoil func(*openfinance.Dialect)
	calls int
}

func (s *spoiled) Pay(ctx context.Context, base *url.URL, key string, p pix.Payment) (*http.Request, error) {
	s.calls++
	d := s.Dialect
	if s.calls >= s.from {
		spoilt := *s.Dialect
		s.spoil(&spoilt)
		d = &spoilt
	}
	return d.Pay(ctx, base, key, p)
}

// A 400 BAD_SIGNATURE or a 403 refuses an attempt before the PSP processes it. To a first
// attempt under a fresh key it proves that nothing was paid. After an attempt whose answer was
// lost, or to a resend, it proves nothing of that attempt: the outcome stays unknown, and the
// PSP did pay.
func TestBadSignatureAndForbiddenAreNoRefusalAfterALostAnswer(t *testing.T) {
	spoils := map[string]func(*openfinance.Dialect){
		"400 BAD_SIGNATURE":  func(d *openfinance.Dialect) { d.Key = testKeys().stranger },
		"403 INVALID_CLIENT": func(d *openfinance.Dialect) { d.Issuer = "someone-else" },
	}
	for name, spoil := range spoils {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := newBank(t, psp.DefaultConfig())
				p := b.consent(t, payment)
				b.client.Dialect = &spoiled{Dialect: b.d, from: 1, spoil: spoil}
				_, err := b.client.Send(t.Context(), p)
				if e, ok := errors.AsType[*pix.Error](err); !ok || e.Status/100 != 4 || !strings.HasPrefix(name, strconv.Itoa(e.Status)+" "+e.Code) ||
					errors.Is(err, pix.ErrOutcomeUnknown) {
					t.Errorf("Send() with every attempt spoilt = %v, want a plain %s", err, name)
				}
				b.client.Dialect = &spoiled{Dialect: b.d, from: 2, spoil: spoil}
				b.core.Inject(psp.Drop())
				_, err = b.client.Send(t.Context(), p)
				if !errors.Is(err, pix.ErrOutcomeUnknown) || !strings.Contains(err.Error(), name) {
					t.Errorf("Send() with a retry spoilt = %v, want an unknown outcome ending with %s", err, name)
				}
				b.client.Dialect, b.client.Policy.AttemptsMax = b.d, 1
				b.core.Inject(psp.Drop())
				resumed := b.consent(t, payment)
				_, err = b.client.Send(t.Context(), resumed)
				unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
				if !ok {
					t.Fatalf("Send() with its answer dropped = %v, want an unknown outcome", err)
				}
				b.client.Dialect = &spoiled{Dialect: b.d, from: 1, spoil: spoil}
				_, err = b.client.Resume(t.Context(), unknown, resumed)
				if !errors.Is(err, pix.ErrOutcomeUnknown) || !strings.Contains(err.Error(), name) {
					t.Errorf("Resume() spoilt = %v, want an unknown outcome ending with %s", err, name)
				}
				if got := b.settled(); !slices.Equal(got, []int64{p.AmountCents, p.AmountCents}) {
					t.Errorf("settlements = %v, want the two the lost answers hid", got)
				}
			})
		})
	}
}

// Within the key's day, Resume resends rather than looks up. Once the consent has expired,
// the resend gets 422 CONSENTIMENTO_INVALIDO, which proves nothing after an attempt that may
// have paid: the outcome stays unknown. LookupRef then asks the consent, whose REJECTED proves
// that nothing was paid.
func TestResumeAfterTheConsentExpiredNeedsTheConsent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBank(t, psp.DefaultConfig())
		p := b.consent(t, payment)
		b.client.Policy.AttemptsMax = 1
		b.core.Inject(psp.Status(503))
		_, err := b.client.Send(t.Context(), p)
		unknown, ok := errors.AsType[*pix.OutcomeUnknownError](err)
		if !ok {
			t.Fatalf("Send() error = %v, want an unknown outcome", err)
		}
		time.Sleep(time.Hour)
		_, err = b.client.Resume(t.Context(), unknown, p)
		e, isErr := errors.AsType[*pix.Error](err)
		if !isErr || e.Code != "CONSENTIMENTO_INVALIDO" || !errors.Is(err, pix.ErrOutcomeUnknown) {
			t.Fatalf("Resume() error = %v, want an unknown outcome of 422 CONSENTIMENTO_INVALIDO", err)
		}
		_, err = b.client.LookupRef(t.Context(), unknown.Key, unknown.Ref)
		if !errors.Is(err, pix.ErrNoSettlement) || errors.Is(err, pix.ErrOutcomeUnknown) {
			t.Errorf("LookupRef() error = %v, want ErrNoSettlement", err)
		}
		want := []string{"POST /consents", "POST /pix/payments", "POST /pix/payments", "GET /consents/" + p.ConsentID}
		if got := paths(b.wire.requests()); !slices.Equal(got, want) {
			t.Errorf("requests = %q, want %q", got, want)
		}
	})
}
