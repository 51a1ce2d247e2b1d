package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"pixretry/internal/pipenet"
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

// TestIDsAreUnique: every delivery has an id of its own, drawn from all 36 digits.
func TestIDsAreUnique(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustSender(t, answering(), nil)
		for range 500 {
			s.Send(ended("k", 100, "NAO_REALIZADO"))
		}
		synctest.Wait()
		seen := map[string]bool{}
		digits := map[rune]bool{}
		for _, d := range s.Deliveries() {
			if seen[d.ID] {
				t.Fatalf("id %s given twice", d.ID)
			}
			seen[d.ID] = true
			for _, r := range d.ID[len("wh_"):] {
				digits[r] = true
			}
		}
		if len(digits) != 36 { // 10,000 uniform draws miss one of 36 with a chance below 1e-120
			t.Errorf("the ids use %d digits, want all 36", len(digits))
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

// TestQueueDropsTheOldestWaitingOfMany: with several deliveries waiting, their order in the
// due heap not their order queued, Send drops the oldest queued and the others are tried when
// due.
func TestQueueDropsTheOldestWaitingOfMany(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rc := answering()
		s := mustSender(t, rc, func(c *webhook.Config) { c.Queue = 3 })
		start := time.Now()
		s.Inject(webhook.Delay(3*time.Minute), webhook.Delay(2*time.Minute), webhook.Delay(time.Minute))
		for _, key := range []string{"a", "b", "c", "d"} {
			s.Send(ended(key, 100, "REALIZADO"))
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		var got []string
		for _, r := range rc.received() {
			got = append(got, fmt.Sprint(keyOf(r.body), " ", r.at.Sub(start)))
		}
		if diff := cmp.Diff([]string{"d 0s", "c 1m0s", "b 2m0s"}, got); diff != "" {
			t.Errorf("tries mismatch (-want +got):\n%s", diff)
		}
		if d := s.Deliveries()[0]; d.State != webhook.Dropped || len(d.Attempts) != 0 {
			t.Errorf("a = %+v, want dropped untried", d)
		}
	})
}

// keyOf is the idempotency key of a delivery's body.
func keyOf(body string) string {
	var b struct{ IdempotencyKey string }
	json.Unmarshal([]byte(body), &b)
	return b.IdempotencyKey
}

// TestADroppedHeldDeliveryStaysDropped: a delivery held by a reorder fault and dropped from a
// full queue is not tried when the delivery that held it is.
func TestADroppedHeldDeliveryStaysDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rc := answering()
		s := mustSender(t, rc, func(c *webhook.Config) { c.Queue = 2 })
		s.Inject(webhook.Reorder(), webhook.Delay(time.Second))
		for _, key := range []string{"held", "holder", "new"} {
			s.Send(ended(key, 100, "REALIZADO"))
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		var got []string
		for _, r := range rc.received() {
			got = append(got, keyOf(r.body))
		}
		if diff := cmp.Diff([]string{"new", "holder"}, got); diff != "" {
			t.Errorf("received mismatch (-want +got):\n%s", diff)
		}
		if st, want := s.Stats(), (webhook.Stats{Sent: 2, Dropped: 1}); st != want {
			t.Errorf("Stats() = %+v, want %+v", st, want)
		}
	})
}

// TestReorderReleasesTheHeldOnce: the held delivery is released by the first try of the one
// that held it, not again by its retries.
func TestReorderReleasesTheHeldOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		tries := map[string]int{}
		fails := map[string]int{"held": 2, "holder": 1}
		rc := &receiver{answer: func(_ int, body string) int {
			mu.Lock()
			defer mu.Unlock()
			key := keyOf(body)
			tries[key]++
			if tries[key] <= fails[key] {
				return http.StatusServiceUnavailable
			}
			return http.StatusOK
		}}
		s := mustSender(t, rc, nil)
		start := time.Now()
		s.Inject(webhook.Reorder())
		s.Send(ended("held", 100, "REALIZADO"))
		s.Send(ended("holder", 100, "REALIZADO"))
		time.Sleep(time.Minute)
		synctest.Wait()
		var got []string
		for _, r := range rc.received() {
			got = append(got, fmt.Sprint(keyOf(r.body), " ", r.at.Sub(start)))
		}
		// draws of 0.5: 0.5s after a first try, 1s after a second
		want := []string{"holder 0s", "held 0s", "held 500ms", "holder 500ms", "held 1.5s"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("tries mismatch (-want +got):\n%s", diff)
		}
	})
}

// roundTripFunc is a transport made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestATransportErrorIsRetried: a try the transport fails is recorded with the transport's
// error, without the URL, and retried.
func TestATransportErrorIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustSender(t, answering(), func(c *webhook.Config) {
			c.Attempts = 2
			c.Transport = roundTripFunc(func(*http.Request) (*http.Response, error) {
				return nil, errors.New("connection reset by peer")
			})
		})
		s.Send(ended("k", 100, "REALIZADO"))
		time.Sleep(time.Minute)
		synctest.Wait()
		d := s.Deliveries()[0]
		for _, a := range d.Attempts {
			if a.Status != 0 || a.Error != "connection reset by peer" {
				t.Errorf("try = %+v, want status 0 and error %q", a, "connection reset by peer")
			}
		}
		if d.State != webhook.GivenUp || len(d.Attempts) != 2 {
			t.Errorf("delivery %s after %d tries, want given_up after 2", d.State, len(d.Attempts))
		}
	})
}

// TestCloseWaitsForATryInFlight: Close returns only once a try in flight has ended, here one
// whose transport takes a second to give up after the cancel.
func TestCloseWaitsForATryInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var done atomic.Bool
		s := mustSender(t, answering(), func(c *webhook.Config) {
			c.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
				<-r.Context().Done()
				time.Sleep(time.Second)
				done.Store(true)
				return nil, r.Context().Err()
			})
		})
		s.Send(ended("k", 100, "REALIZADO"))
		synctest.Wait()
		s.Close()
		if !done.Load() {
			t.Error("Close returned before the try in flight ended")
		}
	})
}

// TestResetForgetsATryInFlight: a try in flight at Reset reaches the receiver but is neither
// recorded, counted nor logged; the next delivery is counted alone.
func TestResetForgetsATryInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		rc := &receiver{answer: func(n int, _ string) int {
			if n == 1 {
				<-release
			}
			return http.StatusOK
		}}
		var logged bytes.Buffer
		s := mustSender(t, rc, func(c *webhook.Config) { c.Logger = slog.New(slog.NewTextHandler(&logged, nil)) })
		s.Send(ended("forgotten", 100, "REALIZADO"))
		synctest.Wait()
		s.Reset()
		close(release)
		synctest.Wait()
		if got, st := s.Deliveries(), s.Stats(); len(got) != 0 || st != (webhook.Stats{}) || logged.Len() != 0 {
			t.Errorf("after Reset: %d recorded, Stats() = %+v, logged %q; want none, zero, nothing", len(got), st, &logged)
		}
		s.Send(ended("next", 100, "REALIZADO"))
		synctest.Wait()
		if st := s.Stats(); st != (webhook.Stats{Sent: 1}) || len(rc.received()) != 2 {
			t.Errorf("Stats() = %+v, %d received, want one sent of 2 received", st, len(rc.received()))
		}
	})
}

// TestEachTryAndEndIsLogged: each try is logged at Info with its state, a delivery given up
// or dropped at Warn, with the delivery's ids and the try's outcome.
func TestEachTryAndEndIsLogged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logged bytes.Buffer
		noTime := func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}
		answers := map[string]int{"given-up": 503, "refused": 404}
		rc := &receiver{answer: func(_ int, body string) int {
			if status, ok := answers[keyOf(body)]; ok {
				return status
			}
			return http.StatusOK
		}}
		s := mustSender(t, rc, func(c *webhook.Config) {
			c.Attempts, c.Queue = 2, 1
			c.Logger = slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{ReplaceAttr: noTime}))
		})
		for _, key := range []string{"given-up", "refused"} {
			s.Send(ended(key, 100, "REALIZADO"))
			time.Sleep(time.Minute)
			synctest.Wait()
		}
		s.Inject(webhook.Delay(time.Hour))
		s.Send(ended("dropped", 100, "REALIZADO"))
		s.Send(ended("delivered", 100, "REALIZADO"))
		synctest.Wait()

		var want strings.Builder
		line := func(level, msg string, d webhook.Delivery, rest string) {
			fmt.Fprintf(&want, "level=%s msg=%q id=%s end_to_end_id=%s %s\n", level, msg, d.ID, d.EndToEndID, rest)
		}
		ds := s.Deliveries()
		line("INFO", "psp: webhook try", ds[0], `try=1 status=503 error="" elapsed=0s state=queued`)
		line("WARN", "psp: webhook given up", ds[0], `try=2 status=503 error="" elapsed=0s state=given_up`)
		line("INFO", "psp: webhook try", ds[1], `try=1 status=404 error="" elapsed=0s state=refused`)
		line("WARN", "psp: webhook dropped: the queue is full", ds[2], "queue=1")
		line("INFO", "psp: webhook try", ds[3], `try=1 status=200 error="" elapsed=0s state=delivered`)
		if diff := cmp.Diff(want.String(), logged.String()); diff != "" {
			t.Errorf("log mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestFaultsListsTheQueue: Faults returns the faults queued, in order, as a copy.
func TestFaultsListsTheQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustSender(t, answering(), nil)
		s.Inject(webhook.Duplicate(), webhook.Fail(2))
		got := s.Faults()
		got[0] = webhook.Reorder()
		if diff := cmp.Diff([]webhook.Fault{webhook.Duplicate(), webhook.Fail(2)}, s.Faults()); diff != "" {
			t.Errorf("Faults() mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestAnAnswerIsReadSoItsConnectionServesTheNext: the body of an answer is read, so that the
// next try reuses the connection.
func TestAnAnswerIsReadSoItsConnectionServesTheNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := 0
		srv := pipenet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.ReadAll(r.Body)
			n++ // the tries come one at a time
			if n == 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
			}
			io.WriteString(w, "an answer with a body")
		}))
		defer srv.Close()
		var dials atomic.Int32
		transport := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return srv.Transport().DialContext(ctx, network, addr)
		}}
		defer transport.CloseIdleConnections()
		s, err := webhook.New(webhook.Config{URL: srv.URL, Secret: webhook.Secret(secret), Transport: transport})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		s.Send(ended("k", 100, "REALIZADO"))
		time.Sleep(time.Minute)
		synctest.Wait()
		if d := s.Deliveries()[0]; d.State != webhook.Delivered || len(d.Attempts) != 2 || dials.Load() != 1 {
			t.Errorf("delivery %s after %d tries over %d connections, want delivered after 2 over 1",
				d.State, len(d.Attempts), dials.Load())
		}
	})
}

// TestCloseClosesItsOwnConnections: a Sender without a Transport closes the idle connections
// of its own on Close: no goroutine of it is left, while the receiver still serves.
func TestCloseClosesItsOwnConnections(t *testing.T) {
	srv := httptest.NewServer(answering())
	defer srv.Close()
	before := goleak.IgnoreCurrent()
	logged := make(chan string, 1)
	s, err := webhook.New(webhook.Config{URL: srv.URL, Secret: webhook.Secret(secret),
		Logger: slog.New(slog.NewTextHandler(chanWriter(logged), nil))})
	if err != nil {
		t.Fatal(err)
	}
	s.Send(ended("k", 100, "REALIZADO"))
	if line := <-logged; !strings.Contains(line, "state=delivered") {
		t.Fatalf("logged %s, want a try delivered", line)
	}
	s.Close()
	goleak.VerifyNone(t, before)
}

// chanWriter sends each write, a log record, to its channel.
type chanWriter chan string

func (w chanWriter) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}
