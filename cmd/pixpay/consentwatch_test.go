package main

// An intent whose consent will never pay it: run -until-done names it and stops, rather than
// resend it for ever.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"pixretry/pix"
)

// An intent under a consent that another intent consumed is answered 422
// CONSENTIMENTO_INVALIDO, which pix leaves unknown. run -until-done pays the other intents,
// then ends with exit 1, the intent named in the summary with why it waits.
func TestOpenFinanceSpentConsentEndsTheRun(t *testing.T) {
	t.Parallel()
	s := ofScenario(t, time.Hour, nil)
	a := s.add("a", 100)
	s.finish()
	run := append(ofArgs, "-db", s.db, "-psp", s.url)
	out, stderr, code := pixpay(t, append(run, "add", "-id", "b", "-valor", "2.00", "-chave", "pix@example.com",
		"-consent", a.ConsentID)...)
	if code != 0 {
		t.Fatalf("add b -consent: exit %d, %s", code, stderr)
	}
	b := lines(t, out)[0]
	s.add("c", 300)
	stderr, code = runToEnd(t, 30*time.Second, append(run, "-delay-base", "50ms", "-delay-max", "200ms",
		"-poll", "50ms", "run", "-until-done")...)
	want := "pixpay: run ended; the database holds 2 settled, 0 refused and 1 pending intents\n" +
		fmt.Sprintf("pixpay: pending b waits: pix: outcome unknown for key %q after 1 attempt(s): pix: PSP answered 422 "+
			"CONSENTIMENTO_INVALIDO: Unprocessable Entity the consent %s is CONSUMED\n", b.Key, a.ConsentID) +
		"pixpay: pending intents keep their keys: run again resumes them, and pays each at most once\n" +
		errConsentsSpent.Error() + "\n"
	if code != 1 || !strings.HasSuffix(stderr, want) {
		t.Errorf("run -until-done: exit %d, stderr:\n%s\nwant exit 1 and the end:\n%s", code, stderr, want)
	}
	in := s.list()
	if in["a"].Status != "settled" || in["b"].Status != "pending" || in["c"].Status != "settled" {
		t.Errorf("list = %+v, want a and c settled, b pending", in)
	}
	if got := len(s.srv.Settlements()); got != 2 {
		t.Errorf("the ledger holds %d settlements, want 2: a's and c's", got)
	}
}

func TestSpentConsent(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{&pix.Error{Status: 422, Code: "CONSENTIMENTO_INVALIDO"}, true},
		{&pix.Error{Status: 422, Code: "PAGAMENTO_DIVERGENTE_CONSENTIMENTO"}, true},
		{&pix.OutcomeUnknownError{Key: "k", Err: &pix.Error{Status: 422, Code: "CONSENTIMENTO_INVALIDO"}}, true},
		{&pix.Error{Status: 422, Code: "CONSENTIMENTO_PENDENTE_AUTORIZACAO"}, false}, // it may be consumed later
		{&pix.Error{Status: 422, Code: "SALDO_INSUFICIENTE"}, false},
		{errors.New("CONSENTIMENTO_INVALIDO"), false},
		{nil, false},
	} {
		if got := spentConsent(tt.err); got != tt.want {
			t.Errorf("spentConsent(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// A key is noted by the Resume that met a spent consent, and forgotten by a later Resume that
// did not, or by its rotation. Other calls change nothing, and every event goes on to next.
func TestConsentWatchNotesKeys(t *testing.T) {
	next := &eventCount{}
	w := newConsentWatch(next)
	spent := &pix.Error{Status: 422, Code: "CONSENTIMENTO_INVALIDO"}
	ctx := context.Background()
	for _, tt := range []struct {
		call pix.Call
		want int
	}{
		{pix.Call{Kind: pix.CallResume, Key: "k1", Err: spent}, 1},
		{pix.Call{Kind: pix.CallResume, Key: "k2", Err: spent}, 2},
		{pix.Call{Kind: pix.CallResend, Key: "k3", Err: spent}, 2},
		{pix.Call{Kind: pix.CallResume, Key: "k2", Err: errors.New("pix: no answer")}, 1},
	} {
		w.CallStarted(ctx, tt.call)
		w.CallEnded(ctx, tt.call)
		if got := w.noted(); got != tt.want {
			t.Errorf("after %s %s: %d keys noted, want %d", tt.call.Kind, tt.call.Key, got, tt.want)
		}
	}
	if !w.isSpent("k1") || w.isSpent("k2") || w.isSpent("k3") {
		t.Errorf("keys k1, k2, k3 noted %v, %v, %v; want only k1", w.isSpent("k1"), w.isSpent("k2"), w.isSpent("k3"))
	}
	w.KeyRotated(ctx, "k1", "k4")
	w.AttemptEnded(w.AttemptStarted(ctx, pix.Attempt{}), pix.Attempt{})
	w.Inject(ctx, nil)
	if w.noted() != 0 {
		t.Errorf("after k1's rotation: %d keys noted, want 0", w.noted())
	}
	if want := (eventCount{calls: 4, ends: 4, attempts: 1, attemptEnds: 1, injects: 1, rotations: 1}); *next != want {
		t.Errorf("next got %+v, want %+v", *next, want)
	}
	select {
	case <-w.ended:
	default:
		t.Error("no signal after the Resumes ended")
	}
}

// eventCount is a pix.Observer that counts its events.
type eventCount struct{ calls, ends, attempts, attemptEnds, injects, rotations int }

func (e *eventCount) CallStarted(ctx context.Context, _ pix.Call) context.Context {
	e.calls++
	return ctx
}
func (e *eventCount) CallEnded(context.Context, pix.Call) { e.ends++ }
func (e *eventCount) AttemptStarted(ctx context.Context, _ pix.Attempt) context.Context {
	e.attempts++
	return ctx
}
func (e *eventCount) Inject(context.Context, http.Header)        { e.injects++ }
func (e *eventCount) AttemptEnded(context.Context, pix.Attempt)  { e.attemptEnds++ }
func (e *eventCount) KeyRotated(context.Context, string, string) { e.rotations++ }
