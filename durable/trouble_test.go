package durable

// A PSP that cannot be used at all: how its troubles are told apart, logged at a bounded rate,
// and end Wait after PSPOutageMax with the intents still pending.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/pix"
)

func TestTroubleOfTellsTheCausesApart(t *testing.T) {
	t.Parallel()
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	for _, tt := range []struct {
		name string
		err  error
		want Trouble
	}{
		{"a 401", &pix.Error{Status: 401, Code: "unauthorized"}, TroubleCredentials},
		{"a 403 in an unknown outcome", &pix.OutcomeUnknownError{Key: "k", Err: &pix.Error{Status: 403}}, TroubleCredentials},
		{"a refused connection", fmt.Errorf("post: %w", dial), TroubleUnreachable},
		{"a name that does not resolve", &net.DNSError{Err: "no such host", Name: "psp.invalid"}, TroubleUnreachable},
		{"a 500", &pix.Error{Status: 500}, 0},
		{"a 500 joined to a dial error", errors.Join(&pix.Error{Status: 500}, dial), 0},
		{"a connection broken after it was made", &net.OpError{Op: "read", Net: "tcp", Err: errors.New("reset")}, 0},
		{"a timeout", context.DeadlineExceeded, 0},
		{"no error", nil, 0},
	} {
		if got := troubleOf(tt.err); got != tt.want {
			t.Errorf("troubleOf(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A trouble is logged at its first attempt, then once per troubleEvery with the count of the
// attempts since; another answer ends it, and the next trouble is logged at once.
func TestTroubleWatchLogsAtABoundedRate(t *testing.T) {
	t.Parallel()
	var w troubleWatch
	at := func(s int) time.Time { return time.Unix(int64(s), 0) }
	unauthorized := &pix.Error{Status: 401}
	type noted struct {
		t        Trouble
		attempts int
		log      bool
	}
	for i, step := range []struct {
		s    int
		err  error
		want noted
	}{
		{0, unauthorized, noted{TroubleCredentials, 1, true}},
		{10, unauthorized, noted{TroubleCredentials, 1, false}},
		{29, unauthorized, noted{TroubleCredentials, 2, false}},
		{30, unauthorized, noted{TroubleCredentials, 3, true}},
		{31, errors.New("a 500"), noted{}},
		{32, unauthorized, noted{TroubleCredentials, 1, true}},
		{33, &net.DNSError{Err: "no such host"}, noted{TroubleUnreachable, 1, true}},
	} {
		tr, attempts, log := w.note(at(step.s), step.err)
		if got := (noted{tr, attempts, log}); got != step.want {
			t.Errorf("step %d, at %ds: note() = %+v, want %+v", i, step.s, got, step.want)
		}
	}
	if err := w.unusable(func() time.Time { return at(92) }, time.Minute, Config{}.advice); err != nil {
		t.Errorf("unusable() 59 s into the trouble = %v, want nil", err)
	}
	err := w.unusable(func() time.Time { return at(93) }, time.Minute, func(Trouble) string { return "check -psp" })
	var unusable *PSPUnusableError
	if !errors.As(err, &unusable) || unusable.Trouble != TroubleUnreachable || unusable.For != time.Minute {
		t.Fatalf("unusable() a minute into the trouble = %#v, want a PSPUnusableError of a minute unreachable", err)
	}
	want := "durable: the PSP cannot be reached on every attempt for 1m0s; check -psp; pending intents keep their keys; last error: "
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("the error = %q, want it to start %q", err, want)
	}
}

// A PSP that refuses the client's token leaves the intents pending under their keys: Wait
// returns a PSPUnusableError once every attempt met it for PSPOutageMax, on the Payer's clock.
// The trouble is logged at Error with its advice; the attempts that met it only at Debug.
func TestWaitEndsOnAPSPThatRefusesTheToken(t *testing.T) {
	t.Parallel()
	l := mustPSP(t)
	db, _ := mustSQLite(t)
	logs := &keptRecords{}
	cfg := l.config()
	cfg.Client.Token = "not-the-psp-token"
	cfg.Logger = slog.New(logs)
	cfg.Advice = func(t Trouble) string { return "advice for " + t.String() }
	p := mustPayer(t, db, cfg)
	var mu sync.Mutex
	clock := time.Unix(0, 0)
	p.now = func() time.Time { // ten seconds a reading: a minute goes by in a few attempts
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(10 * time.Second)
		return clock
	}
	in := mustPay(t, p, "a", payment(100))
	mustStart(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), stallAfter())
	defer cancel()
	err := p.Wait(ctx)
	var unusable *PSPUnusableError
	if !errors.As(err, &unusable) || unusable.Trouble != TroubleCredentials {
		t.Fatalf("Wait() error = %v, want a PSPUnusableError for the credentials", err)
	}
	var answered *pix.Error
	if !errors.As(err, &answered) || answered.Status != 401 {
		t.Errorf("Wait() error = %v, want it to wrap the PSP's 401", err)
	}
	if !strings.Contains(err.Error(), "; advice for the PSP refuses the client's credentials;") {
		t.Errorf("Wait() error = %q, want Config.Advice's advice in it", err)
	}
	got, err := p.Intent(context.Background(), "a")
	if err != nil || got.Status != StatusPending || got.Key != in.Key || len(got.Keys) != 1 {
		t.Errorf("the intent after Wait = %+v, %v; want it pending under its first key %s", got, err, in.Key)
	}
	level, attrs, ok := logs.find("durable: the PSP refuses the client's credentials; payments wait")
	if !ok || level != slog.LevelError || attrs["fix"].String() != "advice for the PSP refuses the client's credentials" {
		t.Errorf("the trouble's record: level %v, attributes %v (found %t); want Error with the advice as fix", level, attrs, ok)
	}
	if level, _, ok := logs.find("durable: outcome unknown"); ok && level != slog.LevelDebug {
		t.Errorf("an attempt that met the trouble was logged at %v, want Debug", level)
	}
}

// logTrouble logs a trouble at Error when it is due, with the resumptions since the last
// record, the error and the advice; and says an attempt met one even when no record is due.
func TestLogTroubleRecordsWhatIsDue(t *testing.T) {
	t.Parallel()
	for _, advised := range []bool{true, false} {
		logs := &keptRecords{}
		clock := time.Unix(0, 0)
		p := &Payer[struct{}]{now: func() time.Time { return clock }, cfg: Config{Logger: slog.New(logs)}}
		if advised {
			p.cfg.Advice = func(Trouble) string { return "check -token" }
		}
		unauthorized := &pix.Error{Status: 401, Code: "unauthorized"}
		for i, s := range []int{0, 10, 29, 30} {
			clock = time.Unix(int64(s), 0)
			if !p.logTrouble(context.Background(), unauthorized) {
				t.Errorf("attempt %d met a 401, and logTrouble() = false", i)
			}
		}
		if p.logTrouble(context.Background(), errors.New("a 500")) {
			t.Errorf("an attempt without trouble: logTrouble() = true")
		}
		var got []string
		for _, r := range logs.records {
			line := fmt.Sprintf("%v %s", r.Level, r.Message)
			r.Attrs(func(a slog.Attr) bool { line += " " + a.String(); return true })
			got = append(got, line)
		}
		fix := " fix=check -token"
		if !advised {
			fix = ""
		}
		msg := "ERROR durable: the PSP refuses the client's credentials; payments wait"
		want := []string{msg + " resumptions=1 error=" + unauthorized.Error() + fix,
			msg + " resumptions=3 error=" + unauthorized.Error() + fix}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("advice %t: records mismatch (-want +got):\n%s", advised, diff)
		}
	}
}

func TestTroubleSaysWhatItIs(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		trouble Trouble
		want    string
	}{
		{TroubleCredentials, "the PSP refuses the client's credentials"},
		{TroubleUnreachable, "the PSP cannot be reached"},
		{0, "no trouble"},
	} {
		if got := tt.trouble.String(); got != tt.want {
			t.Errorf("Trouble(%d).String() = %q, want %q", tt.trouble, got, tt.want)
		}
	}
	var w troubleWatch
	w.note(time.Unix(0, 0), &net.DNSError{Err: "no such host", Name: "psp.invalid"})
	err := w.unusable(func() time.Time { return time.Unix(60, 0) }, time.Minute, Config{}.advice)
	want := "durable: the PSP cannot be reached on every attempt for 1m0s; pending intents keep their keys; " +
		"last error: lookup psp.invalid: no such host"
	if err == nil || err.Error() != want {
		t.Errorf("unusable() without advice = %v, want %s", err, want)
	}
}
