package openapitest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"pixretry/psp"
)

// TestHandlerSkipsWhatAFaultBreaks: an answer that the journal says met a fault that breaks
// answers is skipped, and counted as skipped for that fault. Drop and reset leave no answer.
// Without the double, the same broken answer fails.
func TestHandlerSkipsWhatAFaultBreaks(t *testing.T) {
	lookup := psp.PaymentsPath + "?" + psp.LookupParam + "=k1"
	tests := []struct {
		fault  psp.Fault
		r      *http.Request
		status int // 0: aborted
	}{
		{psp.BadBody("valor"), request("POST", psp.PaymentsPath, "k1", payment), 201},
		{psp.BadBody("not_json"), request("POST", psp.PaymentsPath, "k1", payment), 201},
		{psp.Redirect(307), request("POST", psp.PaymentsPath, "k1", payment), 307},
		{psp.CommitStatus(200), request("POST", psp.PaymentsPath, "k1", payment), 200},
		{psp.BadBody("chave").ForLookup(), request("GET", lookup, "", ""), 200},
		{psp.Redirect(302).ForLookup(), request("GET", lookup, "", ""), 302},
		{psp.Drop(), request("POST", psp.PaymentsPath, "k1", payment), 0},
		{psp.ResetConn(), request("POST", psp.PaymentsPath, "k1", payment), 0},
	}
	for _, tt := range tests {
		t.Run(string(tt.fault.Kind)+"/"+string(tt.fault.Target), func(t *testing.T) {
			s, h := mustDouble(t)
			if tt.r.Method == http.MethodGet {
				serve(h, request("POST", psp.PaymentsPath, "k1", payment))
			}
			var f failures
			checked := Handler(&f, h, s)
			s.Inject(tt.fault)
			skipped := row{Operation: tt.r.Method + " " + psp.PaymentsPath, Status: tt.status, Skipped: "fault " + string(tt.fault.Kind)}
			before := countOf(skipped)
			status, aborted := serveAborted(checked, tt.r)
			if status != tt.status && !(aborted && tt.status == 0) {
				t.Fatalf("%s %s = %d (aborted %v), want %d", tt.r.Method, tt.r.URL, status, aborted, tt.status)
			}
			want := 1
			if aborted {
				want = 0
			}
			if got := countOf(skipped) - before; len(f.msgs) > 0 || got != want {
				t.Errorf("Handler failed %q and skipped %d answers, want no failure and %d skipped", f.msgs, got, want)
			}
		})
	}
	t.Run("without the double", func(t *testing.T) {
		s, h := mustDouble(t)
		s.Inject(psp.BadBody("not_json"))
		var f failures
		serve(Handler(&f, h, nil), request("POST", psp.PaymentsPath, "k1", payment))
		if len(f.msgs) != 1 || !strings.Contains(f.msgs[0], "the body is not JSON") {
			t.Errorf("Handler failed %q, want the body that is not JSON", f.msgs)
		}
	})
}

// TestHandlerChecksWhatAFaultDoesNotBreak: the answers to requests that met other faults are
// checked, and described.
func TestHandlerChecksWhatAFaultDoesNotBreak(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, h := mustDouble(t)
		var f failures
		checked := Handler(&f, h, s)
		lookup := request("GET", psp.PaymentsPath+"?"+psp.LookupParam+"=k1", "", "")
		s.Inject(psp.Status(429), psp.Status(599).ForLookup(), psp.CommitStatus(502), psp.Late(time.Second),
			psp.Slow(time.Second), psp.Duplicate(time.Second))
		steps := []struct {
			r    *http.Request
			want int
		}{
			{request("POST", psp.PaymentsPath, "k1", payment), 429},
			{lookup, 599},
			{request("POST", psp.PaymentsPath, "k1", payment), 502},
			{request("POST", psp.PaymentsPath, "k1", payment), 201},
			{request("POST", psp.PaymentsPath, "k2", payment), 201},
			{request("POST", psp.PaymentsPath, "k3", payment), 409},
		}
		for _, step := range steps {
			checkedBefore := countOf(row{Operation: step.r.Method + " " + psp.PaymentsPath, Response: responseKey(step.want), Status: step.want})
			if got := serve(checked, step.r); got != step.want {
				t.Errorf("%s %s = %d, want %d", step.r.Method, step.r.URL, got, step.want)
			}
			if got := countOf(row{Operation: step.r.Method + " " + psp.PaymentsPath, Response: responseKey(step.want),
				Status: step.want}) - checkedBefore; got != 1 {
				t.Errorf("%s %s: %d answers checked, want 1", step.r.Method, step.r.URL, got)
			}
		}
		s.Wait()
		if len(f.msgs) > 0 {
			t.Errorf("Handler failed the answers:\n%s", strings.Join(f.msgs, "\n"))
		}
	})
}

// responseKey is the key of status in the responses of a payment or a lookup.
func responseKey(status int) string {
	switch status {
	case 429:
		return "4XX"
	case 502, 599:
		return "5XX"
	}
	return fmt.Sprint(status)
}

// TestHandlerSkipsWhenTheJournalCannotTell: a slow payment's answer is skipped if a payment
// served meanwhile met a fault that breaks answers, since either answer may be the broken one,
// and if the journal forgot it, for a Reset or for a later request. The payment served meanwhile
// is alone to have been answered when it was: its answer is skipped for its own fault.
func TestHandlerSkipsWhenTheJournalCannotTell(t *testing.T) {
	brokenAlongside := row{Operation: "POST " + psp.PaymentsPath, Status: 201, Skipped: "fault bad_body"}
	tests := []struct {
		name   string
		edit   func(*psp.Config)
		during func(s *psp.Server, h http.Handler)
		want   string
	}{
		{"a broken answer alongside", func(*psp.Config) {}, func(s *psp.Server, h http.Handler) {
			s.Inject(psp.BadBody("valor"))
			before := countOf(brokenAlongside)
			serve(h, request("POST", psp.PaymentsPath, "k2", payment))
			if got := countOf(brokenAlongside) - before; got != 1 {
				t.Errorf("the broken answer alongside: %d skipped for its fault, want 1", got)
			}
		}, "a request served alongside met fault bad_body"},
		{"a reset", func(*psp.Config) {}, func(s *psp.Server, _ http.Handler) { s.Reset() }, "not in the journal"},
		{"a journal of one request", func(c *psp.Config) { c.JournalMax = 1 }, func(_ *psp.Server, h http.Handler) {
			serve(h, request("POST", psp.PaymentsPath, "k2", payment))
		}, "not in the journal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, h := mustDouble(t, tt.edit)
				var f failures
				checked := Handler(&f, h, s)
				skipped := row{Operation: "POST " + psp.PaymentsPath, Status: 201, Skipped: tt.want}
				before := countOf(skipped)
				s.Inject(psp.Slow(time.Second))
				done := make(chan int)
				go func() { done <- serve(checked, request("POST", psp.PaymentsPath, "k1", payment)) }()
				synctest.Wait() // the slow payment waits to commit
				tt.during(s, checked)
				if got := <-done; got != 201 {
					t.Fatalf("the slow payment = %d, want 201", got)
				}
				if got := countOf(skipped) - before; got != 1 || len(f.msgs) > 0 {
					t.Errorf("%d answers skipped because %s, failures %q; want 1 and none", got, tt.want, f.msgs)
				}
			})
		})
	}
}

// TestHandlerKeepsUpWithTheJournal: a request whose connection a fault closed counts as read
// from the journal, so that a Reset after it leaves the next answer checked.
func TestHandlerKeepsUpWithTheJournal(t *testing.T) {
	s, h := mustDouble(t)
	var f failures
	checked := Handler(&f, h, s)
	s.Inject(psp.Drop())
	if _, aborted := serveAborted(checked, request("POST", psp.PaymentsPath, "k1", payment)); !aborted {
		t.Fatal("the dropped payment was answered")
	}
	s.Reset()
	settled := row{Operation: "POST " + psp.PaymentsPath, Response: "201", Status: 201}
	before := countOf(settled)
	if got := serve(checked, request("POST", psp.PaymentsPath, "k2", payment)); got != 201 {
		t.Fatalf("the payment after the reset = %d, want 201", got)
	}
	if got := countOf(settled) - before; got != 1 || len(f.msgs) > 0 {
		t.Errorf("%d answers checked, failures %q; want 1 and none", got, f.msgs)
	}
}

// TestHandlerPairsAnAnswerWithItsOwnFault: a payment that met a fault that breaks answers,
// answered while a later payment is still in flight, is skipped for its own fault: the later
// one cannot be the one answered.
func TestHandlerPairsAnAnswerWithItsOwnFault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, h := mustDouble(t, func(c *psp.Config) { c.ServiceTime = time.Second })
		var f failures
		checked := Handler(&f, h, s)
		own := row{Operation: "POST " + psp.PaymentsPath, Status: 201, Skipped: "fault bad_body"}
		before := countOf(own)
		s.Inject(psp.BadBody("valor"))
		broken := make(chan int)
		go func() { broken <- serve(checked, request("POST", psp.PaymentsPath, "k1", payment)) }()
		time.Sleep(time.Second / 2)
		later := make(chan int)
		go func() { later <- serve(checked, request("POST", psp.PaymentsPath, "k2", payment)) }()
		if got := <-broken; got != 201 || countOf(own)-before != 1 {
			t.Errorf("the broken payment = %d, %d answers skipped for its fault; want 201 and 1", got, countOf(own)-before)
		}
		if got := <-later; got != 201 || len(f.msgs) > 0 {
			t.Errorf("the later payment = %d, failures %q; want 201 and none", got, f.msgs)
		}
	})
}

// TestHandlerChecksAnAnswerBesideABrokenOneOfAnotherStatus: a slow payment's 201 is checked
// though a payment served meanwhile met a redirect fault: that one was answered 307, and the
// slow one was not.
func TestHandlerChecksAnAnswerBesideABrokenOneOfAnotherStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, h := mustDouble(t)
		var f failures
		checked := Handler(&f, h, s)
		settled := row{Operation: "POST " + psp.PaymentsPath, Response: "201", Status: 201}
		before := countOf(settled)
		s.Inject(psp.Slow(time.Second))
		done := make(chan int)
		go func() { done <- serve(checked, request("POST", psp.PaymentsPath, "k1", payment)) }()
		synctest.Wait() // the slow payment waits to commit
		s.Inject(psp.Redirect(307))
		if got := serve(checked, request("POST", psp.PaymentsPath, "k2", payment)); got != 307 {
			t.Errorf("the redirected payment = %d, want 307", got)
		}
		if got := <-done; got != 201 || countOf(settled)-before != 1 || len(f.msgs) > 0 {
			t.Errorf("the slow payment = %d, %d checked, failures %q; want 201, 1 and none", got,
				countOf(settled)-before, f.msgs)
		}
	})
}
