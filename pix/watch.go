package pix

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"pixretry/retry"
)

// watch reports one call to an Observer. The zero watch, a Client's without one, reports
// nothing.
type watch struct {
	obs   Observer
	ctx   context.Context // the call's, from CallStarted
	call  Call
	start time.Time
}

// watch reports the start of a call to c's observer, if any, and returns the context the
// call runs under.
func (c *Client) watch(ctx context.Context, kind CallKind, key string) (context.Context, watch) {
	obs := c.observer()
	if obs == nil {
		return ctx, watch{}
	}
	call := Call{Kind: kind, Key: key}
	ctx = obs.CallStarted(ctx, call)
	return ctx, watch{obs: obs, ctx: ctx, call: call, start: time.Now()}
}

// ended reports the end of the call, with its receipt or its error and the attempts it sent.
// lookedUp says that the call ended with a lookup: a receipt is then lookup_found.
func (w *watch) ended(r Receipt, err error, lookedUp bool, attempts int) {
	if w.obs == nil {
		return
	}
	c := w.call
	c.Outcome, c.Err, c.Duration = callOutcome(r, err, lookedUp), err, time.Since(w.start)
	c.Attempts, c.Receipt = attempts, r
	w.obs.CallEnded(w.ctx, c)
}

// callOutcome is the outcome of a call that ended with r or err. The reason a call stopped
// comes before the unknown outcome it may leave.
func callOutcome(r Receipt, err error, lookedUp bool) Outcome {
	switch {
	case err == nil && lookedUp:
		return OutcomeLookupFound
	case err == nil:
		return settledOutcome(r.Replayed)
	case errors.Is(err, ErrNoSettlement):
		return OutcomeLookupNone
	case errors.Is(err, ErrCircuitOpen):
		return OutcomeCircuitOpen
	case errors.Is(err, retry.ErrQuotaExhausted):
		return OutcomeQuotaEmpty
	case errors.Is(err, ErrKeyExpired):
		return OutcomeKeyExpired
	case errors.Is(err, ErrPending):
		return OutcomePending
	case errors.Is(err, ErrOutcomeUnknown):
		return OutcomeUnknown
	case errors.Is(err, ErrInvalidPayment), errors.Is(err, errInvalidClient):
		return OutcomeInvalid
	case errors.Is(err, ErrRejected):
		return OutcomeRefused
	}
	if _, ok := errors.AsType[*Error](err); ok {
		return OutcomeRefused
	}
	return OutcomeFailed
}

// probe reports the attempts of one call to an Observer. The zero probe, a Client's without
// one, reports nothing.
type probe struct {
	obs    Observer
	base   Attempt // what every attempt of the call carries
	lookup bool    // the call is a lookup
	quota  bool    // the Client has a Quota

	actx     context.Context // the current attempt's, from AttemptStarted
	began    time.Time       // when the current attempt started
	status   int             // the current attempt's answer, 0 until one is read
	replayed bool            // the 201 that ended the call was a replay
}

// newProbe returns the probe that reports to obs the attempts of a call under key, a lookup or
// not. quota says that the Client has a Quota. A nil obs hears nothing.
func newProbe(obs Observer, key string, lookup, quota bool) probe {
	return probe{obs: obs, lookup: lookup, quota: quota, base: Attempt{Key: key}}
}

// aim takes the method and the URL of the next attempt from its request.
func (p *probe) aim(req *http.Request) {
	u := req.URL
	p.base.Method, p.base.URL, p.base.ServerAddress, p.base.ServerPort = req.Method, u.String(), u.Hostname(), port(u)
}

// port is u's port, or its scheme's (https or http). url.Parse takes only digits for a port.
func port(u *url.URL) int {
	if p := u.Port(); p != "" {
		n, _ := strconv.Atoi(p)
		return n
	}
	if u.Scheme == "https" {
		return 443
	}
	return 80
}

// started reports the start of attempt n and returns its context.
func (p *probe) started(ctx context.Context, n int) context.Context {
	if p.obs == nil {
		return ctx
	}
	a := p.base
	a.Number = n
	p.actx, p.began, p.status = p.obs.AttemptStarted(ctx, a), time.Now(), 0
	return p.actx
}

// ended reports the end of the attempt that retry.Do judged as a.
func (p *probe) ended(a retry.Attempt) {
	if p.obs == nil {
		return
	}
	at := p.base
	at.Number, at.Status, at.Err, at.Stop = a.Number, p.status, a.Err, a.Stop
	at.Outcome, at.Duration = p.outcome(a), time.Since(p.began)
	if a.Stop == retry.StopNone {
		at.Wait, at.QuotaGranted = a.Wait, p.quota
	}
	p.obs.AttemptEnded(p.actx, at)
}

// outcome is the outcome of the attempt a.
func (p *probe) outcome(a retry.Attempt) Outcome {
	switch {
	case a.Err == nil && p.lookup:
		return OutcomeLookupFound
	case a.Err == nil:
		return settledOutcome(p.replayed)
	case errors.Is(a.Err, ErrNoSettlement):
		return OutcomeLookupNone
	case errors.Is(a.Err, ErrPending): // a 202, which Await polls again
		return OutcomePending
	case errors.Is(a.Err, ErrRejected):
		return OutcomeRefused
	case a.Transient:
		return OutcomeTransient
	}
	if e, ok := errors.AsType[*Error](a.Err); ok && e.Status/100 == 4 {
		return OutcomeRefused
	}
	return OutcomeUnknown
}
