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
	"status 0":                       {Kind: psp.FaultStatus},
	"negative retry after":           psp.Fault{Kind: psp.FaultStatus, Status: 503, RetryAfter: -time.Second},
	"negative delay":                 psp.Slow(-time.Nanosecond),
	"negative down":                  psp.Down(-time.Second),
	"negative duplicate":             psp.Duplicate(-time.Nanosecond),
	"duplicate with a status":        {Kind: psp.FaultDuplicate, Status: 409},
	"duplicate with retry after":     {Kind: psp.FaultDuplicate, RetryAfter: time.Second},
	"duplicate with a breach":        {Kind: psp.FaultDuplicate, Breach: psp.BreachCut},
	"status with a duration":         {Kind: psp.FaultStatus, Status: 503, Duration: time.Second},
	"slow with a status":             {Kind: psp.FaultSlow, Status: 503},
	"late with retry after":          {Kind: psp.FaultLate, RetryAfter: time.Second},
	"drop with a duration":           {Kind: psp.FaultDrop, Duration: time.Second},
	"reset with a status":            {Kind: psp.FaultReset, Status: 503},
	"commit_status 199":              psp.CommitStatus(199),
	"commit_status 201":              psp.CommitStatus(201),
	"commit_status 204":              psp.CommitStatus(204),
	"commit_status 205":              psp.CommitStatus(205),
	"commit_status 300":              psp.CommitStatus(300),
	"commit_status 422":              psp.CommitStatus(422),
	"commit_status 499":              psp.CommitStatus(499),
	"commit_status 600":              psp.CommitStatus(600),
	"commit_status with a duration":  {Kind: psp.FaultCommitStatus, Status: 503, Duration: time.Second},
	"redirect 299":                   psp.Redirect(299),
	"redirect 400":                   psp.Redirect(400),
	"redirect with retry after":      {Kind: psp.FaultRedirect, Status: 307, RetryAfter: time.Second},
	"bad_body without a breach":      {Kind: psp.FaultBadBody},
	"bad_body unknown breach":        psp.BadBody("gzip"),
	"bad_body missing, no member":    psp.BadBody(psp.BreachMissing),
	"bad_body missing infoPagador":   psp.Fault{Kind: psp.FaultBadBody, Breach: psp.BreachMissing, Member: "infoPagador"},
	"bad_body valor with a member":   {Kind: psp.FaultBadBody, Breach: psp.BreachAmount, Member: "valor"},
	"bad_body with a status":         {Kind: psp.FaultBadBody, Breach: psp.BreachCut, Status: 503},
	"status with a breach":           {Kind: psp.FaultStatus, Status: 503, Breach: psp.BreachCut},
	"drop with a member":             {Kind: psp.FaultDrop, Member: "valor"},
	"status 302 (that is redirect)":  psp.Status(302),
	"commit_status negative retry":   psp.Fault{Kind: psp.FaultCommitStatus, Status: 503, RetryAfter: -time.Second},
	"redirect without a status code": {Kind: psp.FaultRedirect},
	"slow beyond the maximum":        psp.Slow(psp.MaxFaultDuration + time.Nanosecond),
	"late beyond the maximum":        psp.Late(psp.MaxFaultDuration + time.Nanosecond),
	"down beyond the maximum":        psp.Down(psp.MaxFaultDuration + time.Nanosecond),
	"duplicate beyond the maximum":   psp.Duplicate(psp.MaxFaultDuration + time.Nanosecond),
	"retry after beyond the maximum": psp.Fault{Kind: psp.FaultStatus, Status: 503, RetryAfter: psp.MaxFaultDuration + time.Nanosecond},
	"commit_status retry too long":   psp.Fault{Kind: psp.FaultCommitStatus, Status: 503, RetryAfter: psp.MaxFaultDuration + time.Second},
	"unknown target":                 {Kind: psp.FaultDrop, Target: "refund"},
	"target payment spelled out":     {Kind: psp.FaultDrop, Target: "payment"},
	"slow for lookups":               psp.Slow(time.Second).ForLookup(),
	"drop for lookups":               psp.Drop().ForLookup(),
	"duplicate for lookups":          psp.Duplicate(time.Second).ForLookup(),
	"commit_status for lookups":      psp.CommitStatus(502).ForLookup(),
	"zero for lookups":               psp.Fault{}.ForLookup(),
	"status 302 for lookups":         psp.Status(302).ForLookup(),
	"down for lookups too long":      psp.Down(psp.MaxFaultDuration + time.Nanosecond).ForLookup(),
	"late for lookups with a status": psp.Fault{Kind: psp.FaultLate, Status: 503, Target: psp.TargetLookup},
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

// TestValidFaults: each kind at the edges of what it takes.
func TestValidFaults(t *testing.T) {
	for _, f := range []psp.Fault{
		psp.Status(400), psp.Status(599), {Kind: psp.FaultStatus, Status: 429, RetryAfter: psp.MaxFaultDuration},
		psp.Slow(0), psp.Slow(psp.MaxFaultDuration), psp.Late(psp.MaxFaultDuration), psp.Drop(), psp.ResetConn(),
		psp.Down(psp.MaxFaultDuration), psp.CommitStatus(200), psp.CommitStatus(202), psp.CommitStatus(299),
		psp.CommitStatus(500), psp.CommitStatus(599), {Kind: psp.FaultCommitStatus, Status: 504, RetryAfter: time.Second},
		psp.BadBody(psp.BreachNotJSON), psp.BadBody(psp.BreachShort), psp.BadBody(psp.BreachCut),
		psp.BadBody(psp.BreachAmount), psp.BadBody(psp.BreachPixKey), psp.BadBody(psp.BreachEndToEndID),
		{Kind: psp.FaultBadBody, Breach: psp.BreachMissing, Member: "endToEndId"},
		{Kind: psp.FaultBadBody, Breach: psp.BreachMissing, Member: "valor"},
		{Kind: psp.FaultBadBody, Breach: psp.BreachMissing, Member: "chave"},
		{Kind: psp.FaultBadBody, Breach: psp.BreachMissing, Member: "status"},
		{Kind: psp.FaultBadBody, Breach: psp.BreachMissing, Member: "horario"},
		psp.Redirect(300), psp.Redirect(399), psp.Duplicate(0), psp.Duplicate(psp.MaxFaultDuration),
		psp.Status(400).ForLookup(), {Kind: psp.FaultStatus, Status: 503, RetryAfter: time.Second, Target: psp.TargetLookup},
		psp.Redirect(307).ForLookup(), psp.ResetConn().ForLookup(), psp.Down(psp.MaxFaultDuration).ForLookup(),
		psp.Late(0).ForLookup(), psp.BadBody(psp.BreachCut).ForLookup(),
		{Kind: psp.FaultBadBody, Breach: psp.BreachMissing, Member: "horario", Target: psp.TargetLookup},
	} {
		if err := f.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v, want nil", f, err)
		}
	}
}

func TestFaultConstructors(t *testing.T) {
	got := []psp.Fault{
		psp.Status(503), psp.Slow(time.Second), psp.Late(2 * time.Second), psp.Drop(), psp.ResetConn(),
		psp.Down(3 * time.Second), psp.CommitStatus(503), psp.BadBody(psp.BreachAmount), psp.Redirect(302),
		psp.Duplicate(4 * time.Second), psp.Down(time.Second).ForLookup(), psp.Status(503).ForLookup().ForLookup(),
	}
	want := []psp.Fault{
		{Kind: psp.FaultStatus, Status: 503},
		{Kind: psp.FaultSlow, Duration: time.Second},
		{Kind: psp.FaultLate, Duration: 2 * time.Second},
		{Kind: psp.FaultDrop},
		{Kind: psp.FaultReset},
		{Kind: psp.FaultDown, Duration: 3 * time.Second},
		{Kind: psp.FaultCommitStatus, Status: 503},
		{Kind: psp.FaultBadBody, Breach: psp.BreachAmount},
		{Kind: psp.FaultRedirect, Status: 302},
		{Kind: psp.FaultDuplicate, Duration: 4 * time.Second},
		{Kind: psp.FaultDown, Duration: time.Second, Target: psp.TargetLookup},
		{Kind: psp.FaultStatus, Status: 503, Target: psp.TargetLookup},
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
