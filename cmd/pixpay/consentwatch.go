package main

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"pixretry/durable"
	"pixretry/pix"
	"pixretry/pix/openfinance"
)

// The codes of an Open Finance 422 that say a payment's consent will never pay it: the consent
// is unknown, consumed or rejected (expired unconsumed, for one), or it is for another payment,
// which consumed it (payments v4, "Validações" items 2.2.2.5 and 2.2.2.6).
const (
	codeConsentInvalid   = "CONSENTIMENTO_INVALIDO"
	codeConsentDivergent = "PAGAMENTO_DIVERGENTE_CONSENTIMENTO"
)

// errConsentsSpent ends run -until-done once every pending intent waits on such a consent, or
// on one consumed by a payment whose paymentId is unknown.
var errConsentsSpent = errors.New("pixpay: every pending intent waits on a consent that the PSP no longer takes " +
	"(" + codeConsentInvalid + " or " + codeConsentDivergent + ", or consumed by a payment whose paymentId is " +
	"unknown), so run again would not pay them either; check each with the PSP before you add it again under a " +
	"new id, with a new consent")

// consentWatch is a pix.Observer that notes the keys whose latest Resume the PSP answered with
// a consent that will never pay the payment. durable refuses such an intent at its key's first
// attempt, which sends the key as one that never left, so only a key that may have left is
// noted. pix leaves its outcome unknown, since an earlier attempt under the key may have
// consumed the consent. durable keeps the intent pending and resends under the key until the
// key's lifetime ends, 24 hours in payments v4. It then looks the payment up by its consent.
// A consent REJECTED, expired unconsumed, proves that nothing was paid: the intent gets a new
// key, whose first attempt the PSP refuses, and durable refuses the intent. A consent CONSUMED
// proves nothing, since it does not name its payment: the lookup fails with
// openfinance.ErrConsentConsumed, which the watch notes too, and the intent would wait for
// ever. So run -until-done stops once every pending intent's key is noted (stuck). Consent
// renewal is left out: a new consent is a new intent.
//
// It passes every event on to next, if not nil. It is safe for concurrent use.
type consentWatch struct {
	next  pix.Observer
	ended chan struct{} // holds a signal once a Resume has ended since it was last read

	mu    sync.Mutex
	spent map[string]bool // the keys noted
}

// newConsentWatch returns a consentWatch that passes events on to next.
func newConsentWatch(next pix.Observer) *consentWatch {
	return &consentWatch{next: next, ended: make(chan struct{}, 1), spent: map[string]bool{}}
}

// spentCheck is how often waitUntilDone looks at the pending intents while a key is noted,
// besides after each Resume: the Resume that settles the last other intent ends before its
// settlement is stored.
const spentCheck = time.Second

// spentConsent reports whether err holds a PSP's answer that the payment's consent will never
// pay it, or a lookup that found it consumed by a payment whose paymentId is unknown.
func spentConsent(err error) bool {
	if errors.Is(err, openfinance.ErrConsentConsumed) {
		return true
	}
	e, ok := errors.AsType[*pix.Error](err)
	return ok && (e.Code == codeConsentInvalid || e.Code == codeConsentDivergent)
}

func (w *consentWatch) CallEnded(ctx context.Context, c pix.Call) {
	if w.next != nil {
		w.next.CallEnded(ctx, c)
	}
	if c.Kind != pix.CallResume {
		return
	}
	w.mu.Lock()
	if spentConsent(c.Err) {
		w.spent[c.Key] = true
	} else {
		delete(w.spent, c.Key)
	}
	w.mu.Unlock()
	select {
	case w.ended <- struct{}{}:
	default: // a signal is waiting already
	}
}

func (w *consentWatch) KeyRotated(ctx context.Context, from, to string) {
	if w.next != nil {
		w.next.KeyRotated(ctx, from, to)
	}
	w.mu.Lock()
	delete(w.spent, from)
	w.mu.Unlock()
}

func (w *consentWatch) CallStarted(ctx context.Context, c pix.Call) context.Context {
	if w.next != nil {
		return w.next.CallStarted(ctx, c)
	}
	return ctx
}

func (w *consentWatch) AttemptStarted(ctx context.Context, a pix.Attempt) context.Context {
	if w.next != nil {
		return w.next.AttemptStarted(ctx, a)
	}
	return ctx
}

func (w *consentWatch) Inject(ctx context.Context, h http.Header) {
	if w.next != nil {
		w.next.Inject(ctx, h)
	}
}

func (w *consentWatch) AttemptEnded(ctx context.Context, a pix.Attempt) {
	if w.next != nil {
		w.next.AttemptEnded(ctx, a)
	}
}

// isSpent reports whether key is noted.
func (w *consentWatch) isSpent(key string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.spent[key]
}

// noted counts the keys noted.
func (w *consentWatch) noted() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.spent)
}

// waitUntilDone waits, as p.Wait does, until no intent of p is pending. With w, it also ends
// with errConsentsSpent once every pending intent's key is noted by w, checked after each
// Resume and every spentCheck.
func waitUntilDone[TTx any](ctx context.Context, p *durable.Payer[TTx], w *consentWatch) error {
	if w == nil {
		return p.Wait(ctx)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		tick := time.NewTicker(spentCheck)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-w.ended:
			case <-tick.C:
			}
			if allSpent(ctx, p, w) {
				cancel(errConsentsSpent)
				return
			}
		}
	}()
	err := p.Wait(ctx)
	if cause := context.Cause(ctx); errors.Is(cause, errConsentsSpent) {
		err = cause
	}
	cancel(nil)
	<-watched
	return err
}

// allSpent reports whether p has pending intents, all under keys that w noted. It reads the
// intents only when w has noted as many keys as p has pending intents, and reports false if
// it cannot read them.
func allSpent[TTx any](ctx context.Context, p *durable.Payer[TTx], w *consentWatch) bool {
	if w.noted() == 0 {
		return false
	}
	s, err := p.Stats(ctx)
	pending := s.Intents[durable.StatusPending] + s.Intents[durable.StatusOverdue]
	if err != nil || pending == 0 || int64(w.noted()) < pending {
		return false
	}
	for in, err := range p.Intents(ctx) {
		pendingIn := in.Status == durable.StatusPending || in.Status == durable.StatusOverdue
		if err != nil || pendingIn && !w.isSpent(in.Key) {
			return false
		}
	}
	return true
}
