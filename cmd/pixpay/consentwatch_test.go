package main

// An intent whose consent will never pay it: refused at its key's first attempt, or, once the
// key may have left, named by run -until-done, which stops rather than resend it.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"pixretry/pix"
	"pixretry/pix/openfinance"
	"pixretry/psp"
	ofpsp "pixretry/psp/openfinance"
)

// An intent under a consent that another intent consumed before the intent's key left is
// refused at its key's first attempt with the PSP's 422 CONSENTIMENTO_INVALIDO: run
// -until-done pays the other intents, and ends with exit 0.
func TestOpenFinanceSpentConsentIsRefused(t *testing.T) {
	t.Parallel()
	s := ofScenario(t, time.Hour, nil)
	a := s.add("a", 100)
	s.finish()
	run := slices.Concat(ofArgs, []string{"-db", s.db, "-psp", s.url})
	out, stderr, code := pixpay(t, slices.Concat(run, []string{"add", "-id", "b", "-valor", "2.00", "-chave",
		"pix@example.com", "-consent", a.ConsentID})...)
	if code != 0 {
		t.Fatalf("add b -consent: exit %d, %s", code, stderr)
	}
	b := lines(t, out)[0]
	s.add("c", 300)
	stderr, code = runToEnd(t, 30*time.Second, slices.Concat(run, untilDone)...)
	refusal := fmt.Sprintf("pix: PSP answered 422 CONSENTIMENTO_INVALIDO: Unprocessable Entity the consent %s is "+
		"CONSUMED", a.ConsentID)
	logged := fmt.Sprintf(`level=WARN msg="durable: refused" id=b key=%s resumptions=1 error=%q`, b.Key, refusal)
	want := "pixpay: run ended; the database holds 2 settled, 1 refused and 0 pending intents\n"
	if code != 0 || !strings.Contains(stderr, logged) || !strings.HasSuffix(stderr, want) {
		t.Errorf("run -until-done: exit %d, stderr:\n%s\nwant exit 0, the record\n%s\nand the end:\n%s", code, stderr,
			logged, want)
	}
	in := s.list()
	if in["a"].Status != "settled" || in["c"].Status != "settled" || in["b"].Status != "refused" ||
		in["b"].Error != refusal || in["b"].Resumptions != 1 {
		t.Errorf("list = %+v, want a and c settled, b refused at its first attempt with %q", in, refusal)
	}
	if got := len(s.srv.Settlements()); got != 2 {
		t.Errorf("the ledger holds %d settlements, want 2: a's and c's", got)
	}
}

// The answers to an intent's first attempt were lost, then another payment consumed its
// consent. The PSP's CONSENTIMENTO_INVALIDO to the resumed key may be the work of that first
// attempt, so pix leaves it unknown and durable keeps the intent pending until the key's
// lifetime ends. run -until-done names the intent and ends with exit 1 at once.
func TestOpenFinanceSpentConsentEndsTheRun(t *testing.T) {
	t.Parallel()
	s := ofScenario(t, time.Hour, nil)
	run := slices.Concat(ofArgs, []string{"-db", s.db, "-psp", s.url})
	a, b := consumedByAnother(t, s, run)
	stderr, code := runToEnd(t, 30*time.Second, slices.Concat(run, untilDone)...)
	want := "pixpay: run ended; the database holds 0 settled, 0 refused and 1 pending intents\n" +
		fmt.Sprintf("pixpay: pending b waits: pix: outcome unknown for key %q after 1 attempt(s): pix: PSP answered 422 "+
			"CONSENTIMENTO_INVALIDO: Unprocessable Entity the consent %s is CONSUMED\n", b.Key, a.ConsentID) +
		"pixpay: pending intents keep their keys: run again resumes them, and pays each at most once\n" +
		errConsentsSpent.Error() + "\n"
	if code != 1 || !strings.HasSuffix(stderr, want) {
		t.Errorf("run -until-done: exit %d, stderr:\n%s\nwant exit 1 and the end:\n%s", code, stderr, want)
	}
	if got := s.list()["b"]; got.Status != "pending" || got.Resumptions != 2 {
		t.Errorf("b = %+v, want pending after 2 attempts", got)
	}
	if got := s.srv.Settlements(); len(got) != 1 || got[0].IdempotencyKey == b.Key {
		t.Errorf("the ledger holds %+v, want a's settlement alone", got)
	}
}

// As above, but run -until-done meets b past its key's lifetime, when pix no longer resends
// under the key and looks the payment up by its consent: CONSUMED, by a payment whose paymentId
// it never learned. That may be b's own payment, so b stays pending for ever, and run
// -until-done names it and ends with exit 1 at once. The lifetime is 2 s, waited in real time.
func TestOpenFinanceConsumedConsentEndsTheRunPastTheKey(t *testing.T) {
	t.Parallel()
	const ttl = 2 * time.Second
	s := ofScenario(t, ttl, nil)
	run := slices.Concat(ofArgs, []string{"-db", s.db, "-psp", s.url, "-key-ttl", ttl.String()})
	a, b := consumedByAnother(t, s, run)
	time.Sleep(ttl) // b's key was sent before: its lifetime is over
	stderr, code := runToEnd(t, 30*time.Second, slices.Concat(run, untilDone)...)
	waits := fmt.Sprintf("pixpay: pending b waits: pix: outcome unknown for key %q after 1 attempt(s): %v: consent %s, "+
		"consumed at ", b.Key, openfinance.ErrConsentConsumed, a.ConsentID)
	end := "pixpay: pending intents keep their keys: run again resumes them, and pays each at most once\n" +
		errConsentsSpent.Error() + "\n"
	if code != 1 || !strings.Contains(stderr, waits) || !strings.HasSuffix(stderr, end) {
		t.Errorf("run -until-done: exit %d, stderr:\n%s\nwant exit 1, the line\n%s...\nand the end:\n%s", code, stderr,
			waits, end)
	}
	if got := s.list()["b"]; got.Status != "pending" {
		t.Errorf("b = %+v, want pending", got)
	}
	if got := s.srv.Settlements(); len(got) != 1 || got[0].IdempotencyKey == b.Key {
		t.Errorf("the ledger holds %+v, want a's settlement alone", got)
	}
}

// An intent's first attempt got no answer, and its consent expired unconsumed: past its key's
// lifetime, the lookup by consent reads REJECTED, which proves nothing was paid, so durable
// rotates the key, the new key's first attempt meets the PSP's 422 CONSENTIMENTO_INVALIDO, and
// the intent is refused. run -until-done ends with exit 0. The key's lifetime and the
// consent's are 2 s, waited in real time.
func TestOpenFinanceExpiredConsentRefusesPastTheKey(t *testing.T) {
	t.Parallel()
	const ttl = 2 * time.Second
	f := openFinanceFront(ofpsp.Config{KeyTTL: ttl, ConsentTTL: ttl, SigningKey: testKeys().psp}, nil)
	s := newScenarioSpeaking(t, sqliteDB(t), ttl, speaking{args: ofArgs, front: f})
	b := s.add("b", 100)
	for range 3 { // pix's 3 attempts of b's first: the PSP answers before it reads the payment
		s.srv.Inject(psp.Status(http.StatusServiceUnavailable))
	}
	run := slices.Concat(ofArgs, []string{"-db", s.db, "-psp", s.url, "-key-ttl", ttl.String()})
	runKilledAt(t, "recorded", slices.Concat(run, untilDone)...)
	time.Sleep(ttl) // b's key was sent, and its consent authorised, before: both lifetimes are over
	stderr, code := runToEnd(t, 30*time.Second, slices.Concat(run, untilDone)...)
	want := "pixpay: run ended; the database holds 0 settled, 1 refused and 0 pending intents\n"
	if code != 0 || !strings.HasSuffix(stderr, want) {
		t.Errorf("run -until-done: exit %d, stderr:\n%s\nwant exit 0 and the end:\n%s", code, stderr, want)
	}
	got := s.list()["b"]
	refusal := fmt.Sprintf("pix: PSP answered 422 CONSENTIMENTO_INVALIDO: Unprocessable Entity the consent %s is "+
		"REJECTED", b.ConsentID)
	if got.Status != "refused" || got.Key == b.Key || got.Error != refusal {
		t.Errorf("b = %+v, want refused under a new key with %q", got, refusal)
	}
	if got := s.srv.Settlements(); len(got) != 0 {
		t.Errorf("the ledger holds %+v, want nothing", got)
	}
}

// consumedByAnother adds b to s's database, under the consent of a, added to another database.
// b's first attempt gets no answer (the PSP answers 503 before it reads the payment; the run
// that sends it, with the options run, is killed once it recorded that), then a is paid,
// which consumes the consent. It returns add's lines of a and b.
func consumedByAnother(t *testing.T, s *scenario, run []string) (a, b line) {
	t.Helper()
	elsewhere := sqliteDB(t) // a's database
	payment := []string{"-valor", "1.00", "-chave", "pix@example.com"}
	out, stderr, code := pixpay(t, slices.Concat(ofArgs, []string{"-db", elsewhere, "-psp", s.url, "add", "-id", "a"},
		payment)...)
	if code != 0 {
		t.Fatalf("add a: exit %d, %s", code, stderr)
	}
	a = lines(t, out)[0]
	out, stderr, code = pixpay(t, slices.Concat(run, []string{"add", "-id", "b"}, payment,
		[]string{"-consent", a.ConsentID})...)
	if code != 0 {
		t.Fatalf("add b -consent: exit %d, %s", code, stderr)
	}
	b = lines(t, out)[0]
	for range 3 { // pix's 3 attempts of b's first: the PSP answers before it reads the payment
		s.srv.Inject(psp.Status(http.StatusServiceUnavailable))
	}
	runKilledAt(t, "recorded", slices.Concat(run, untilDone)...)
	if stderr, code := runToEnd(t, 30*time.Second, slices.Concat(ofArgs, []string{"-db", elsewhere, "-psp", s.url},
		untilDone)...); code != 0 {
		t.Fatalf("run -until-done of a: exit %d, stderr:\n%s", code, stderr)
	}
	return a, b
}

// untilDone are the options of a run -until-done whose waits are short.
var untilDone = []string{"-delay-base", "50ms", "-delay-max", "200ms", "-poll", "50ms", "run", "-until-done"}

// runKilledAt runs pixpay with args in a child process that kills itself with SIGKILL at the
// crash point named point, and fails the test unless it did so within 30 s.
func runKilledAt(t *testing.T, point string, args ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1", crashEnv+"="+point)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	err := cmd.Wait()
	if !timer.Stop() {
		t.Fatalf("pixpay %v still ran after 30 s; its stderr:\n%s", args, &stderr)
	}
	if exit, ok := errors.AsType[*exec.ExitError](err); !ok || exit.Exited() {
		t.Fatalf("pixpay %v: %v, want killed at %s; its stderr:\n%s", args, err, point, &stderr)
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
		{&pix.OutcomeUnknownError{Key: "k", Err: fmt.Errorf("%w: consent c", openfinance.ErrConsentConsumed)}, true},
		{&pix.Error{Status: 422, Code: "CONSENTIMENTO_PENDENTE_AUTORIZACAO"}, false}, // it may be consumed later
		{&pix.OutcomeUnknownError{Key: "k", Err: pix.ErrPending}, false},             // an AUTHORISED consent
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
