package pix_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/pix"
	"pixretry/psp"
)

// ordered is an observed that also keeps, in order, the attempts and calls that ended.
type ordered struct {
	observed
	ended []any // pix.Attempt and pix.Call
}

func (o *ordered) AttemptEnded(ctx context.Context, a pix.Attempt) {
	o.ended = append(o.ended, a)
	o.observed.AttemptEnded(ctx, a)
}

func (o *ordered) CallEnded(ctx context.Context, c pix.Call) {
	if c.Kind != pix.CallResume { // a Resume's resend and lookup log its end
		o.ended = append(o.ended, c)
	}
	o.observed.CallEnded(ctx, c)
}

// The Logger's records say what the Observer's events say: one record per attempt and per
// payment or lookup, in the order of the events, with the same key, numbers, wait and error.
func TestLogRecordsSayWhatTheEventsSay(t *testing.T) {
	for _, tc := range []struct {
		name   string
		faults []psp.Fault
		call   func(context.Context, *pix.Client) error
	}{
		{"a 503, then settled", []psp.Fault{psp.Status(503)}, sendWithKey(payment)},
		{"an invalid payment", nil, sendWithKey(pix.Payment{})},
		{"a lookup that finds nothing", nil, func(ctx context.Context, c *pix.Client) error {
			_, err := c.Lookup(ctx, "order-1")
			return err
		}},
		{"a resend stopped by the key deadline, then a lookup", []psp.Fault{psp.Late(time.Hour)},
			func(ctx context.Context, c *pix.Client) error {
				c.KeyTTL, c.AttemptTimeout = time.Second, 500*time.Millisecond
				return resume(&pix.OutcomeUnknownError{Key: "order-1", FirstSent: time.Now()}, payment)(ctx, c)
			}},
		{"a pending payment, awaited until it settles", []psp.Fault{psp.Pending(time.Second, "settled")},
			sendThenAwait(time.Minute)},
		{"a pending payment, awaited until it is rejected", []psp.Fault{psp.Pending(time.Second, "rejected")},
			sendThenAwait(time.Minute)},
		{"a pending payment, awaited past the context", []psp.Fault{psp.Pending(time.Hour, "settled")},
			sendThenAwait(time.Second)},
		{"an await of a key that paid nothing", nil, func(ctx context.Context, c *pix.Client) error {
			_, err := c.Await(ctx, "order-1")
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t, psp.Config{})
				f.psp.Inject(tc.faults...)
				o := &ordered{}
				tc.call(t.Context(), f.client(func(c *pix.Client) { c.Observer = o }))
				records := f.log.all()
				if len(records) != len(o.ended) {
					t.Fatalf("%d records for %d events:\n%v\n%v", len(records), len(o.ended), records, o.ended)
				}
				for i, e := range o.ended {
					if got, want := records[i], recordOf(e); !saysTheSame(got, want) {
						t.Errorf("record %d = %v, want one that says %v", i, got, want)
					}
				}
			})
		})
	}
}

// recordOf is what the record of an attempt's or a call's end says, its level and its
// elapsed time left out.
func recordOf(e any) record {
	switch e := e.(type) {
	case pix.Attempt:
		msg := "pix attempt"
		if e.Method == http.MethodGet {
			msg = "pix lookup attempt"
		}
		attrs := map[string]any{"attempt": int64(e.Number), "key": e.Key,
			"transient": e.Outcome == pix.OutcomeTransient, "wait": e.Wait}
		if e.Err != nil && e.Outcome != pix.OutcomeLookupNone && e.Outcome != pix.OutcomePending {
			attrs["error"] = e.Err.Error()
		}
		return record{Message: msg, Attrs: attrs}
	case pix.Call:
		attrs := map[string]any{"key": e.Key, "attempts": int64(e.Attempts)}
		noun := "pix payment"
		if e.Kind == pix.CallLookup || e.Kind == pix.CallAwait {
			noun = "pix " + string(e.Kind)
		}
		switch {
		case e.Err == nil && e.Kind == pix.CallLookup:
			attrs["endToEndId"] = e.Receipt.EndToEndID
			return record{Message: "pix lookup found", Attrs: attrs}
		case e.Err == nil:
			attrs["endToEndId"], attrs["replayed"] = e.Receipt.EndToEndID, e.Receipt.Replayed
			return record{Message: noun + " settled", Attrs: attrs}
		case errors.Is(e.Err, pix.ErrNoSettlement):
			return record{Message: noun + " found nothing", Attrs: attrs}
		case errors.Is(e.Err, pix.ErrPending):
			attrs["error"] = e.Err.Error()
			return record{Message: noun + " pending", Attrs: attrs}
		}
		attrs["error"], attrs["outcome_unknown"] = e.Err.Error(), errors.Is(e.Err, pix.ErrOutcomeUnknown)
		return record{Message: noun + " failed", Attrs: attrs}
	}
	panic("recordOf: not an event")
}

// saysTheSame reports whether got has want's message and attributes, and no error attribute
// that want has not.
func saysTheSame(got, want record) bool {
	if got.Message != want.Message {
		return false
	}
	if _, ok := got.Attrs["error"]; ok != (want.Attrs["error"] != nil) {
		return false
	}
	for k, v := range want.Attrs {
		if got.Attrs[k] != v {
			return false
		}
	}
	return true
}

// sendThenAwait pays under order-1, then awaits its end for at most d.
func sendThenAwait(d time.Duration) func(context.Context, *pix.Client) error {
	return func(ctx context.Context, c *pix.Client) error {
		c.SendWithKey(ctx, "order-1", payment)
		ctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		_, err := c.Await(ctx, "order-1")
		return err
	}
}
