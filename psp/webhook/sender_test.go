package webhook_test

import (
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp/webhook"
)

// TestDeliveryIsSignedAndShaped: one payment that ends is one POST to the URL as given, of
// application/json, whose body has exactly the pinned members in order, signed at its try by
// Pix-Signature, which an HMAC computed apart verifies.
func TestDeliveryIsSignedAndShaped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rc := answering(http.StatusNoContent)
		s := mustSender(t, rc, nil)
		e := ended("key-1", 15000, "REALIZADO")
		e.At = time.Date(2026, 1, 2, 3, 4, 5, 600, time.FixedZone("BRT", -3*3600))
		s.Send(e)
		synctest.Wait()

		got := rc.received()
		if len(got) != 1 {
			t.Fatalf("the receiver got %d deliveries, want 1", len(got))
		}
		r := got[0]
		records := s.Deliveries()
		id := records[0].ID
		if !regexp.MustCompile(`^wh_[0-9a-z]{20}$`).MatchString(id) {
			t.Errorf("id = %q, want wh_ and 20 base-36 digits", id)
		}
		want := `{"id":"` + id + `","endToEndId":"` + e.EndToEndID + `","idempotencyKey":"key-1",` +
			`"status":"REALIZADO","valor":"150.00","horario":"2026-01-02T06:04:05.0000006Z"}`
		if r.method != "POST" || r.path != "/hooks/pix" || r.contentType != "application/json" || r.body != want {
			t.Errorf("got %s %s %s %s,\nwant POST /hooks/pix application/json %s", r.method, r.path, r.contentType, r.body, want)
		}
		if at, ok := verified(secret, r.signature, r.body); !ok || at != r.at.Unix() {
			t.Errorf("Pix-Signature %q: verified %t at t=%d, want true at %d", r.signature, ok, at, r.at.Unix())
		}
		wantRecords := []webhook.Delivery{{ID: id, EndToEndID: e.EndToEndID, IdempotencyKey: "key-1",
			Status: "REALIZADO", State: webhook.Delivered, Attempts: []webhook.Attempt{{At: r.at, Status: 204}}}}
		if diff := cmp.Diff(wantRecords, records); diff != "" {
			t.Errorf("Deliveries() mismatch (-want +got):\n%s", diff)
		}
		if st, want := s.Stats(), (webhook.Stats{Sent: 1}); st != want {
			t.Errorf("Stats() = %+v, want %+v", st, want)
		}
	})
}

// TestIDsAreUnique: every delivery has an id of its own.
func TestIDsAreUnique(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustSender(t, answering(), nil)
		for range 500 {
			s.Send(ended("k", 100, "NAO_REALIZADO"))
		}
		synctest.Wait()
		seen := map[string]bool{}
		for _, d := range s.Deliveries() {
			if seen[d.ID] {
				t.Fatalf("id %s given twice", d.ID)
			}
			seen[d.ID] = true
		}
	})
}

// TestAnswersThatEndADelivery: a 2xx delivers, a 4xx but 429 and a 3xx refuse at once (no
// redirect is followed), and no answer, a 5xx or a 429 is tried again.
func TestAnswersThatEndADelivery(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   string
		tries  int
	}{
		{200, webhook.Delivered, 1},
		{202, webhook.Delivered, 1},
		{204, webhook.Delivered, 1},
		{301, webhook.Refused, 1},
		{307, webhook.Refused, 1},
		{400, webhook.Refused, 1},
		{401, webhook.Refused, 1},
		{404, webhook.Refused, 1},
		{409, webhook.Refused, 1},
		{413, webhook.Refused, 1},
		{429, webhook.Delivered, 2},
		{500, webhook.Delivered, 2},
		{502, webhook.Delivered, 2},
		{503, webhook.Delivered, 2},
		{hang, webhook.Delivered, 2},
	} {
		name := strconv.Itoa(tc.status)
		if tc.status == hang {
			name = "no answer"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rc := answering(tc.status)
				s := mustSender(t, rc, func(c *webhook.Config) { c.Timeout = 3 * time.Second })
				s.Send(ended("k", 100, "REALIZADO"))
				synctest.Wait()
				time.Sleep(time.Hour)
				synctest.Wait()
				d := s.Deliveries()[0]
				if d.State != tc.want || len(d.Attempts) != tc.tries || len(rc.received()) != tc.tries {
					t.Errorf("a first answer of %d: %s after %d tries (%d received), want %s after %d",
						tc.status, d.State, len(d.Attempts), len(rc.received()), tc.want, tc.tries)
				}
				if first := d.Attempts[0]; tc.status == hang &&
					(first.Status != 0 || first.Error != "no answer within 3s" || first.Elapsed != 3*time.Second) {
					t.Errorf("a try without an answer = %+v, want status 0, no answer within 3s, after 3s", first)
				}
				wantEveryDeliveryEndsOnce(t, s, 1)
			})
		})
	}
}

// TestRetriesWaitFullJitterThenGiveUp: a delivery that keeps failing is tried Attempts times,
// try n+1 a draw of retry.FullJitter below min(WaitMax, DelayBase·2^(n−1)) after try n, then
// given up and counted.
func TestRetriesWaitFullJitterThenGiveUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		draws := []float64{0.5, 0.5, 1 - 0x1p-53, 0}
		rc := &receiver{answer: func(int, string) int { return http.StatusServiceUnavailable }}
		s := mustSender(t, rc, func(c *webhook.Config) {
			c.Attempts, c.DelayBase, c.WaitMax = 5, time.Second, 3*time.Second
			c.Rand = func() float64 {
				u := draws[0]
				draws = draws[1:]
				return u
			}
		})
		start := time.Now()
		s.Send(ended("k", 100, "REALIZADO"))
		synctest.Wait()
		time.Sleep(time.Hour)
		synctest.Wait()

		var got []time.Duration
		for _, r := range rc.received() {
			got = append(got, r.at.Sub(start))
		}
		// ceilings 1s, 2s, 3s (capped), 3s; draws 0.5, 0.5, just below 1, 0
		want := []time.Duration{0, 500 * time.Millisecond, 1500 * time.Millisecond, 4500 * time.Millisecond,
			4500 * time.Millisecond}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("tries' times mismatch (-want +got):\n%s", diff)
		}
		if d := s.Deliveries()[0]; d.State != webhook.GivenUp || len(d.Attempts) != 5 {
			t.Errorf("delivery %s after %d tries, want given_up after 5", d.State, len(d.Attempts))
		}
		if st, want := s.Stats(), (webhook.Stats{Retried: 4, GivenUp: 1}); st != want {
			t.Errorf("Stats() = %+v, want %+v", st, want)
		}
	})
}

// TestEachTryIsSignedAnew: a retry carries the same body, signed at its own time.
func TestEachTryIsSignedAnew(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rc := answering(500)
		s := mustSender(t, rc, func(c *webhook.Config) { c.DelayBase = 10 * time.Second })
		s.Send(ended("k", 100, "REALIZADO"))
		synctest.Wait()
		time.Sleep(time.Minute)
		synctest.Wait()
		got := rc.received()
		if len(got) != 2 || got[0].body != got[1].body || got[0].signature == got[1].signature {
			t.Fatalf("got %+v, want two tries of one body with two signatures", got)
		}
		for _, r := range got {
			if at, ok := verified(secret, r.signature, r.body); !ok || at != r.at.Unix() {
				t.Errorf("Pix-Signature %q at %v: verified %t at t=%d", r.signature, r.at, ok, at)
			}
		}
	})
}

// TestQueueDropsTheOldestWaiting: with Queue deliveries under way, Send drops the oldest
// waiting one, never one in a try; when all are in a try, the new one.
func TestQueueDropsTheOldestWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		rc := &receiver{answer: func(n int, _ string) int {
			if n == 1 {
				<-release // the first delivery stays in its try
			}
			return http.StatusOK
		}}
		s := mustSender(t, rc, func(c *webhook.Config) { c.Queue = 2 })
		for _, key := range []string{"a", "b", "c", "d"} {
			s.Send(ended(key, 100, "REALIZADO"))
			synctest.Wait()
		}
		close(release)
		synctest.Wait()
		var got []string
		for _, d := range s.Deliveries() {
			got = append(got, d.IdempotencyKey+" "+d.State)
		}
		want := []string{"a delivered", "b dropped", "c dropped", "d delivered"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("deliveries mismatch (-want +got):\n%s", diff)
		}
		if st := s.Stats(); st.Dropped != 2 || st.Sent != 2 {
			t.Errorf("Stats() = %+v, want 2 dropped and 2 sent", st)
		}
		wantEveryDeliveryEndsOnce(t, s, 4)
	})
}

// TestAFullQueueInATryDropsTheNewDelivery: when every delivery under way is in a try, there is
// none waiting to drop, and the new one is dropped.
func TestAFullQueueInATryDropsTheNewDelivery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		rc := &receiver{answer: func(int, string) int { <-release; return http.StatusOK }}
		s := mustSender(t, rc, func(c *webhook.Config) { c.Queue = 1 })
		s.Send(ended("a", 100, "REALIZADO"))
		synctest.Wait()
		s.Send(ended("b", 100, "REALIZADO"))
		close(release)
		synctest.Wait()
		got := s.Deliveries()
		if got[0].State != webhook.Delivered || got[1].State != webhook.Dropped || len(got[1].Attempts) != 0 {
			t.Errorf("deliveries %+v, want a delivered and b dropped untried", got)
		}
	})
}

// TestRecordKeepsTheLatest1000: the record keeps the latest 1000 deliveries, oldest first.
func TestRecordKeepsTheLatest1000(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustSender(t, answering(), func(c *webhook.Config) { c.Queue = 2000 })
		first := ""
		for i := range 1001 {
			s.Send(ended("k", int64(i), "REALIZADO"))
			if i == 1 {
				first = s.Deliveries()[1].ID
			}
		}
		synctest.Wait()
		got := s.Deliveries()
		if len(got) != 1000 || got[0].ID != first {
			t.Errorf("Deliveries() has %d, the first %s, want 1000 from the second sent, %s", len(got), got[0].ID, first)
		}
		if st := s.Stats(); st.Sent != 1001 {
			t.Errorf("Stats().Sent = %d, want 1001: the record's bound is not the counts'", st.Sent)
		}
	})
}

// TestCloseEndsEveryDelivery: Close returns once every goroutine has ended, deliveries waiting,
// held or in a try included, and Send does nothing after it.
func TestCloseEndsEveryDelivery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rc := &receiver{answer: func(n int, _ string) int {
			if n == 1 {
				return hang
			}
			return http.StatusInternalServerError
		}}
		s := mustSender(t, rc, func(c *webhook.Config) { c.Parallel = 2; c.Timeout = time.Hour })
		s.Inject(webhook.Reorder())
		for _, key := range []string{"held", "hangs", "retried"} {
			s.Send(ended(key, 100, "REALIZADO"))
		}
		synctest.Wait()
		s.Close()
		s.Send(ended("late", 100, "REALIZADO"))
		if st := s.Stats(); st.Queued != 3 || len(s.Deliveries()) != 3 {
			t.Errorf("after Close: Stats() = %+v, %d recorded, want the 3 under way left as they were",
				st, len(s.Deliveries()))
		}
	})
}

// TestResetForgetsEverything: Reset empties the record, the counts and the faults, and the
// deliveries under way end untried.
func TestResetForgetsEverything(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rc := answering(500, 500)
		s := mustSender(t, rc, nil)
		s.Send(ended("a", 100, "REALIZADO"))
		s.Send(ended("b", 100, "REALIZADO"))
		synctest.Wait()
		s.Inject(webhook.Duplicate())
		s.Reset()
		time.Sleep(time.Hour)
		synctest.Wait()
		if got, st := s.Deliveries(), s.Stats(); len(got) != 0 || st != (webhook.Stats{}) || len(rc.received()) != 2 {
			t.Errorf("after Reset: %d recorded, Stats() = %+v, %d received; want none, zero, the 2 tries before",
				len(got), st, len(rc.received()))
		}
		s.Send(ended("c", 100, "REALIZADO"))
		synctest.Wait()
		if st := s.Stats(); st != (webhook.Stats{Sent: 1}) {
			t.Errorf("Stats() = %+v, want one sent, not duplicated", st)
		}
	})
}
