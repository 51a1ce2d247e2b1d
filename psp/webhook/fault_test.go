package webhook_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
	"pixretry/psp/webhook"
)

// TestDuplicateKeepsTheID: a duplicate fault sends the next delivery twice, the same id and
// body, each signed and recorded on its own; the one after it is sent once.
func TestDuplicateKeepsTheID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rc := answering()
		s := mustSender(t, rc, nil)
		s.Inject(webhook.Duplicate())
		s.Send(ended("twice", 100, "REALIZADO"))
		s.Send(ended("once", 100, "REALIZADO"))
		synctest.Wait()
		got := rc.received()
		if len(got) != 3 || got[0].body != got[1].body || !strings.Contains(got[2].body, `"once"`) {
			t.Fatalf("received %+v, want the first delivery twice, then the second", got)
		}
		for _, r := range got[:2] {
			if _, ok := verified(secret, r.signature, r.body); !ok {
				t.Errorf("copy %s: Pix-Signature %q does not verify", r.body, r.signature)
			}
		}
		records := s.Deliveries()
		if len(records) != 3 || records[0].ID != records[1].ID || records[0].ID == records[2].ID {
			t.Errorf("Deliveries() = %+v, want two copies of one id, then another id", records)
		}
		if st, want := s.Stats(), (webhook.Stats{Sent: 3, Duplicated: 1}); st != want {
			t.Errorf("Stats() = %+v, want %+v", st, want)
		}
		wantEveryDeliveryEndsOnce(t, s, 2)
	})
}

// TestDelayHoldsTheFirstTry: a delay fault's delivery is first tried Duration after Send, and
// the deliveries after it go first.
func TestDelayHoldsTheFirstTry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rc := answering()
		s := mustSender(t, rc, nil)
		start := time.Now()
		s.Inject(webhook.Delay(1500 * time.Millisecond))
		s.Send(ended("late", 100, "REALIZADO"))
		s.Send(ended("on-time", 100, "REALIZADO"))
		time.Sleep(time.Minute)
		synctest.Wait()
		got := rc.received()
		if len(got) != 2 || !strings.Contains(got[0].body, `"on-time"`) || got[1].at.Sub(start) != 1500*time.Millisecond {
			t.Errorf("received %+v, want on-time at once, then late after 1.5s", got)
		}
	})
}

// TestReorderAcrossPayments: a reorder fault holds the next delivery until the one after it,
// another payment's, has been tried, so the receiver gets them out of order.
func TestReorderAcrossPayments(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rc := answering()
		s := mustSender(t, rc, nil)
		s.Send(ended("first", 100, "REALIZADO"))
		synctest.Wait()
		s.Inject(webhook.Reorder())
		s.Send(ended("second", 200, "NAO_REALIZADO"))
		synctest.Wait()
		if n := len(rc.received()); n != 1 {
			t.Fatalf("received %d before the third payment ended, want 1: the second is held", n)
		}
		s.Send(ended("third", 300, "REALIZADO"))
		synctest.Wait()
		var got []string
		for _, r := range rc.received() {
			got = append(got, r.body[strings.Index(r.body, `"idempotencyKey"`):strings.Index(r.body, `,"status"`)])
		}
		want := []string{`"idempotencyKey":"first"`, `"idempotencyKey":"third"`, `"idempotencyKey":"second"`}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("arrival order mismatch (-want +got):\n%s", diff)
		}
		wantEveryDeliveryEndsOnce(t, s, 3)
	})
}

// TestFailFailsTheFirstTriesUnsent: a fail fault's first Times tries fail without reaching the
// receiver, are recorded without a status and retried; Times as large as Attempts gives the
// delivery up unsent.
func TestFailFailsTheFirstTriesUnsent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rc := answering()
		s := mustSender(t, rc, func(c *webhook.Config) { c.Attempts = 3 })
		s.Inject(webhook.Fail(2), webhook.Fail(3))
		s.Send(ended("third-try", 100, "REALIZADO"))
		s.Send(ended("never", 100, "REALIZADO"))
		time.Sleep(time.Hour)
		synctest.Wait()
		got := rc.received()
		if len(got) != 1 || !strings.Contains(got[0].body, `"third-try"`) {
			t.Fatalf("received %+v, want only the first delivery's third try", got)
		}
		var states []string
		for _, d := range s.Deliveries() {
			states = append(states, d.State)
			for i, a := range d.Attempts[:2] {
				if a.Status != 0 || !strings.Contains(a.Error, "fail fault") {
					t.Errorf("%s's try %d = %+v, want no status and the fault's error", d.IdempotencyKey, i+1, a)
				}
			}
		}
		if diff := cmp.Diff([]string{webhook.Delivered, webhook.GivenUp}, states); diff != "" {
			t.Errorf("states mismatch (-want +got):\n%s", diff)
		}
		if st, want := s.Stats(), (webhook.Stats{Sent: 1, Retried: 4, GivenUp: 1}); st != want {
			t.Errorf("Stats() = %+v, want %+v", st, want)
		}
	})
}

// TestClearFaults: ClearFaults empties the queue of faults, and Stats counts those queued.
func TestClearFaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rc := answering()
		s := mustSender(t, rc, nil)
		s.Inject(webhook.Duplicate(), webhook.Fail(1))
		if st := s.Stats(); st.Faults != 2 {
			t.Errorf("Stats().Faults = %d, want 2", st.Faults)
		}
		s.ClearFaults()
		s.Send(ended("k", 100, "REALIZADO"))
		synctest.Wait()
		if st, want := s.Stats(), (webhook.Stats{Sent: 1}); st != want || len(rc.received()) != 1 {
			t.Errorf("Stats() = %+v, want %+v", st, want)
		}
	})
}

// TestFaultValidate: a fault takes exactly the fields its kind uses, in range, and the error
// says what its kind takes.
func TestFaultValidate(t *testing.T) {
	unknown := "unknown webhook kind %q: the kinds are duplicate, delay, reorder and fail"
	delay := fmt.Sprintf(`webhook kind "delay" takes a Duration of 0 to %v`, psp.MaxFaultDuration)
	for _, tc := range []struct {
		fault webhook.Fault
		want  string // the error after psp.ErrInvalidFault's text; "" for valid
	}{
		{webhook.Duplicate(), ""},
		{webhook.Reorder(), ""},
		{webhook.Delay(0), ""},
		{webhook.Delay(psp.MaxFaultDuration), ""},
		{webhook.Fail(1), ""},
		{webhook.Fail(webhook.MaxAttempts), ""},
		{webhook.Fault{}, fmt.Sprintf(unknown, "")},
		{webhook.Fault{Kind: "drop"}, fmt.Sprintf(unknown, "drop")},
		{webhook.Delay(-time.Millisecond), delay},
		{webhook.Delay(psp.MaxFaultDuration + 1), delay},
		{webhook.Fail(0), `webhook kind "fail" takes Times, 1 to 100`},
		{webhook.Fail(webhook.MaxAttempts + 1), `webhook kind "fail" takes Times, 1 to 100`},
		{webhook.Fault{Kind: "duplicate", Times: 2}, `webhook kind "duplicate" takes no other field`},
		{webhook.Fault{Kind: "reorder", Duration: time.Second}, `webhook kind "reorder" takes no other field`},
		{webhook.Fault{Kind: "fail", Times: 1, Duration: time.Second}, `webhook kind "fail" takes Times, 1 to 100`},
	} {
		err := tc.fault.Validate()
		if tc.want == "" && err != nil ||
			tc.want != "" && (!errors.Is(err, psp.ErrInvalidFault) || err.Error() != "psp: invalid fault: "+tc.want) {
			t.Errorf("%+v.Validate() = %v, want psp.ErrInvalidFault: %s (none if empty)", tc.fault, err, tc.want)
		}
	}
}

// TestInjectPanicsOnAnInvalidFault: Inject queues none of a list with an invalid fault.
func TestInjectPanicsOnAnInvalidFault(t *testing.T) {
	s, err := webhook.New(webhook.Config{URL: "http://127.0.0.1:1/", Secret: webhook.Secret(secret)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defer func() {
		if err, _ := recover().(error); !errors.Is(err, psp.ErrInvalidFault) || s.Stats().Faults != 0 {
			t.Errorf("Inject panicked with %v and queued %d, want psp.ErrInvalidFault and none", err, s.Stats().Faults)
		}
	}()
	s.Inject(webhook.Duplicate(), webhook.Fail(0))
}
