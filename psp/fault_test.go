package psp_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
)

// invalidFaults cannot be injected.
var invalidFaults = map[string]psp.Fault{
	"zero":                           {},
	"unknown kind":                   {Kind: "boom"},
	"status 399":                     psp.Status(399),
	"status 600":                     psp.Status(600),
	"status 0":                       {Kind: "status"},
	"negative retry after":           psp.Fault{Kind: "status", Status: 503, RetryAfter: -time.Second},
	"negative delay":                 psp.Slow(-time.Nanosecond),
	"negative down":                  psp.Down(-time.Second),
	"negative duplicate":             psp.Duplicate(-time.Nanosecond),
	"duplicate with a status":        {Kind: "duplicate", Status: 409},
	"duplicate with retry after":     {Kind: "duplicate", RetryAfter: time.Second},
	"duplicate with a breach":        {Kind: "duplicate", Breach: "cut"},
	"status with a duration":         {Kind: "status", Status: 503, Duration: time.Second},
	"slow with a status":             {Kind: "slow", Status: 503},
	"late with retry after":          {Kind: "late", RetryAfter: time.Second},
	"drop with a duration":           {Kind: "drop", Duration: time.Second},
	"reset with a status":            {Kind: "reset", Status: 503},
	"commit_status 199":              psp.CommitStatus(199),
	"commit_status 201":              psp.CommitStatus(201),
	"commit_status 204":              psp.CommitStatus(204),
	"commit_status 205":              psp.CommitStatus(205),
	"commit_status 300":              psp.CommitStatus(300),
	"commit_status 422":              psp.CommitStatus(422),
	"commit_status 499":              psp.CommitStatus(499),
	"commit_status 600":              psp.CommitStatus(600),
	"commit_status with a duration":  {Kind: "commit_status", Status: 503, Duration: time.Second},
	"redirect 299":                   psp.Redirect(299),
	"redirect 400":                   psp.Redirect(400),
	"redirect with retry after":      {Kind: "redirect", Status: 307, RetryAfter: time.Second},
	"bad_body without a breach":      {Kind: "bad_body"},
	"bad_body unknown breach":        psp.BadBody("gzip"),
	"bad_body missing, no member":    psp.BadBody("missing"),
	"bad_body missing infoPagador":   psp.Fault{Kind: "bad_body", Breach: "missing", Member: "infoPagador"},
	"bad_body valor with a member":   {Kind: "bad_body", Breach: "valor", Member: "valor"},
	"bad_body with a status":         {Kind: "bad_body", Breach: "cut", Status: 503},
	"status with a breach":           {Kind: "status", Status: 503, Breach: "cut"},
	"drop with a member":             {Kind: "drop", Member: "valor"},
	"status 302 (that is redirect)":  psp.Status(302),
	"commit_status negative retry":   psp.Fault{Kind: "commit_status", Status: 503, RetryAfter: -time.Second},
	"redirect without a status code": {Kind: "redirect"},
	"slow beyond the maximum":        psp.Slow(psp.MaxFaultDuration + time.Nanosecond),
	"late beyond the maximum":        psp.Late(psp.MaxFaultDuration + time.Nanosecond),
	"down beyond the maximum":        psp.Down(psp.MaxFaultDuration + time.Nanosecond),
	"duplicate beyond the maximum":   psp.Duplicate(psp.MaxFaultDuration + time.Nanosecond),
	"retry after beyond the maximum": psp.Fault{Kind: "status", Status: 503, RetryAfter: psp.MaxFaultDuration + time.Nanosecond},
	"commit_status retry too long":   psp.Fault{Kind: "commit_status", Status: 503, RetryAfter: psp.MaxFaultDuration + time.Second},
	"unknown target":                 {Kind: "drop", Target: "refund"},
	"target payment spelled out":     {Kind: "drop", Target: "payment"},
	"slow for lookups":               psp.Slow(time.Second).ForLookup(),
	"drop for lookups":               psp.Drop().ForLookup(),
	"duplicate for lookups":          psp.Duplicate(time.Second).ForLookup(),
	"commit_status for lookups":      psp.CommitStatus(502).ForLookup(),
	"zero for lookups":               psp.Fault{}.ForLookup(),
	"status 302 for lookups":         psp.Status(302).ForLookup(),
	"down for lookups too long":      psp.Down(psp.MaxFaultDuration + time.Nanosecond).ForLookup(),
	"late for lookups with a status": psp.Fault{Kind: "late", Status: 503, Target: "lookup"},
	"pending without then":           {Kind: "pending", Duration: time.Second},
	"pending then unknown":           psp.Pending(time.Second, "refunded"),
	"pending then capitalized":       psp.Pending(time.Second, "Settled"),
	"pending negative":               psp.Pending(-time.Nanosecond, "settled"),
	"pending beyond the maximum":     psp.Pending(psp.MaxFaultDuration+time.Nanosecond, "rejected"),
	"pending with a status":          {Kind: "pending", Duration: time.Second, Then: "settled", Status: 503},
	"pending for lookups":            psp.Pending(time.Second, "settled").ForLookup(),
	"then on another kind":           {Kind: "slow", Duration: time.Second, Then: "settled"},
}

func TestInvalidFaults(t *testing.T) {
	for name, f := range invalidFaults {
		t.Run(name, func(t *testing.T) {
			if err := f.Validate(); !errors.Is(err, psp.ErrInvalidFault) {
				t.Errorf("Validate(%+v) = %v, want %v", f, err, psp.ErrInvalidFault)
			}
			s := mustServer(t)
			func() {
				defer func() {
					err, _ := recover().(error)
					if !errors.Is(err, psp.ErrInvalidFault) {
						t.Errorf("Inject(%+v) panicked with %v, want %v", f, err, psp.ErrInvalidFault)
					}
				}()
				s.Inject(psp.Status(503), f) // all or nothing
			}()
			wantSettled(t, pay(s, "k", validBody))
		})
	}
}

// TestInvalidPendingFaultSaysWhatItTakes: a pending fault without a then says what the kind
// takes.
func TestInvalidPendingFaultSaysWhatItTakes(t *testing.T) {
	err := psp.Fault{Kind: "pending", Duration: time.Second}.Validate()
	want := `psp: invalid fault: kind "pending" takes a Duration and a Then, "settled" or "rejected"`
	if err == nil || err.Error() != want {
		t.Errorf("Validate() = %v, want %s", err, want)
	}
}

// TestValidFaults: each kind at the edges of what it takes.
func TestValidFaults(t *testing.T) {
	for _, f := range []psp.Fault{
		psp.Status(400), psp.Status(599), {Kind: "status", Status: 429, RetryAfter: psp.MaxFaultDuration},
		psp.Slow(0), psp.Slow(psp.MaxFaultDuration), psp.Late(psp.MaxFaultDuration), psp.Drop(), psp.ResetConn(),
		psp.Down(psp.MaxFaultDuration), psp.CommitStatus(200), psp.CommitStatus(202), psp.CommitStatus(299),
		psp.CommitStatus(500), psp.CommitStatus(599), {Kind: "commit_status", Status: 504, RetryAfter: time.Second},
		psp.BadBody("not_json"), psp.BadBody("short"), psp.BadBody("cut"),
		psp.BadBody("valor"), psp.BadBody("chave"), psp.BadBody("end_to_end_id"),
		{Kind: "bad_body", Breach: "missing", Member: "endToEndId"},
		{Kind: "bad_body", Breach: "missing", Member: "valor"},
		{Kind: "bad_body", Breach: "missing", Member: "chave"},
		{Kind: "bad_body", Breach: "missing", Member: "status"},
		{Kind: "bad_body", Breach: "missing", Member: "horario"},
		psp.Redirect(300), psp.Redirect(399), psp.Duplicate(0), psp.Duplicate(psp.MaxFaultDuration),
		psp.Status(400).ForLookup(), {Kind: "status", Status: 503, RetryAfter: time.Second, Target: "lookup"},
		psp.Redirect(307).ForLookup(), psp.ResetConn().ForLookup(), psp.Down(psp.MaxFaultDuration).ForLookup(),
		psp.Late(0).ForLookup(), psp.BadBody("cut").ForLookup(),
		{Kind: "bad_body", Breach: "missing", Member: "horario", Target: "lookup"},
		psp.Pending(0, "settled"), psp.Pending(psp.MaxFaultDuration, "rejected"),
	} {
		if err := f.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v, want nil", f, err)
		}
	}
}

func TestFaultConstructors(t *testing.T) {
	got := []psp.Fault{
		psp.Status(503), psp.Slow(time.Second), psp.Late(2 * time.Second), psp.Drop(), psp.ResetConn(),
		psp.Down(3 * time.Second), psp.CommitStatus(503), psp.BadBody("valor"), psp.Redirect(302),
		psp.Duplicate(4 * time.Second), psp.Down(time.Second).ForLookup(), psp.Status(503).ForLookup().ForLookup(),
		psp.Pending(5*time.Second, "rejected"),
	}
	want := []psp.Fault{
		{Kind: "status", Status: 503},
		{Kind: "slow", Duration: time.Second},
		{Kind: "late", Duration: 2 * time.Second},
		{Kind: "drop"},
		{Kind: "reset"},
		{Kind: "down", Duration: 3 * time.Second},
		{Kind: "commit_status", Status: 503},
		{Kind: "bad_body", Breach: "valor"},
		{Kind: "redirect", Status: 302},
		{Kind: "duplicate", Duration: 4 * time.Second},
		{Kind: "down", Duration: time.Second, Target: "lookup"},
		{Kind: "status", Status: 503, Target: "lookup"},
		{Kind: "pending", Duration: 5 * time.Second, Then: "rejected"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("constructors mismatch (-want +got):\n%s", diff)
	}
}

// Reset empties both fault queues: the next payment meets no fault.
func TestResetEmptiesTheFaultQueue(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.Status(503), psp.Status(503), psp.Status(503).ForLookup())
	s.Reset()
	if got := s.Stats().Faults; got != 0 {
		t.Errorf("Stats().Faults = %d after Reset, want 0", got)
	}
	wantSettled(t, pay(s, "k1", validBody))
}
