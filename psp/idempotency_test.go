package psp_test

import (
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
)

// wantReplay checks that a replays first: same status, byte-identical body, the replay header.
func wantReplay(tb testing.TB, a, first answer) {
	tb.Helper()
	if a.status != first.status || a.body != first.body {
		tb.Errorf("replay = %d %s, want %d %s", a.status, a.body, first.status, first.body)
	}
	if got := a.header.Get("Idempotent-Replayed"); got != "true" {
		tb.Errorf("%s = %q, want \"true\"", "Idempotent-Replayed", got)
	}
	if got, want := a.header.Get("Content-Type"), first.header.Get("Content-Type"); got != want {
		tb.Errorf("Content-Type = %q, want %q", got, want)
	}
}

func TestCompletedKeyReplaysByteForByte(t *testing.T) {
	s := mustServer(t)
	first := pay(s, "k1", validBody)
	wantSettled(t, first)
	for range 3 {
		a := pay(s, "k1", validBody)
		wantReplay(t, a, first)
		if got := a.header.Get(psp.IdempotencyKeyHeader); got != "k1" {
			t.Errorf("echoed key = %q, want k1", got)
		}
	}
	if n, b := len(s.Settlements()), s.Stats().BalanceCents; n != 1 || b != 85000 {
		t.Errorf("after replays: %d settlements, balance %d; want 1, 85000", n, b)
	}
}

func TestQuotedAndBareKeysAreTheSameKey(t *testing.T) {
	for bare, quoted := range map[string]string{"abc": `"abc"`, `a"b`: `"a\"b"`, `a\b`: `"a\\b"`} {
		s := mustServer(t)
		first := pay(s, bare, validBody)
		wantSettled(t, first)
		a := pay(s, quoted, validBody)
		wantReplay(t, a, first)
		if got := a.header.Get(psp.IdempotencyKeyHeader); got != quoted {
			t.Errorf("echoed key = %q, want %q as sent", got, quoted)
		}
		if got := s.Settlements()[0].IdempotencyKey; got != bare {
			t.Errorf("Settlement.IdempotencyKey = %q, want %q", got, bare)
		}
	}
}

func TestSameAmountWrittenDifferentlyIsTheSamePayment(t *testing.T) {
	s := mustServer(t)
	first := pay(s, "k1", `{"valor":"150.00","chave":"pix@example.com"}`)
	wantSettled(t, first)
	wantReplay(t, pay(s, "k1", `{"chave":"pix@example.com","valor":"0150.00"}`), first)
}

func TestKeysAreScopedPerToken(t *testing.T) {
	s := mustServer(t, func(c *psp.Config) { c.Tokens = []string{"alice", "bob"} })
	send := func(tok, body string) answer {
		r := paymentRequest("shared-key", body)
		r.Header.Set("Authorization", "Bearer "+tok)
		return serve(s, r)
	}
	alice := wantSettled(t, send("alice", validBody))
	bob := wantSettled(t, send("bob", `{"valor":"10.00","chave":"12345678901"}`))
	if alice.EndToEndID == bob.EndToEndID {
		t.Errorf("both tokens got endToEndId %s", alice.EndToEndID)
	}
	replay := send("alice", validBody)
	if got := mustDecode[receipt](t, replay.body); got.EndToEndID != alice.EndToEndID {
		t.Errorf("alice's replay has endToEndId %s, want her own %s", got.EndToEndID, alice.EndToEndID)
	}
	ledger := s.Settlements()
	if len(ledger) != 2 || ledger[0].Token != "alice" || ledger[1].Token != "bob" {
		t.Errorf("Settlements() = %+v, want alice's then bob's", ledger)
	}
	if got, want := s.Stats().BalanceCents, int64(100000-15000-1000); got != want {
		t.Errorf("Stats().BalanceCents = %d, want %d", got, want)
	}
}

func TestReusedKeyWithAnotherPaymentIsRefused(t *testing.T) {
	others := map[string]string{
		"another valor":       `{"valor":"150.01","chave":"pix@example.com","infoPagador":"rent"}`,
		"another chave":       `{"valor":"150.00","chave":"pay@example.com","infoPagador":"rent"}`,
		"another infoPagador": `{"valor":"150.00","chave":"pix@example.com","infoPagador":"Rent"}`,
		"no infoPagador":      `{"valor":"150.00","chave":"pix@example.com"}`,
	}
	for name, other := range others {
		t.Run(name, func(t *testing.T) {
			s := mustServer(t)
			first := pay(s, "k1", validBody)
			wantSettled(t, first)
			a := pay(s, "k1", other)
			wantProblem(t, a, 422, "idempotency_key_reused")
			if got := a.header.Get("Idempotent-Replayed"); got != "" {
				t.Errorf("%s = %q on a refusal, want none", "Idempotent-Replayed", got)
			}
			// Not stored: the key still replays the first payment.
			wantReplay(t, pay(s, "k1", validBody), first)
			if n := len(s.Settlements()); n != 1 {
				t.Errorf("%d settlements, want 1", n)
			}
		})
	}
}

func TestInsufficientFundsIsStoredAndReplayed(t *testing.T) {
	s := mustServer(t, func(c *psp.Config) { c.BalanceCents = 15000 })
	refused := pay(s, "big", `{"valor":"150.01","chave":"pix@example.com"}`)
	wantProblem(t, refused, 422, "insufficient_funds")
	if s.Stats().BalanceCents != 15000 || len(s.Settlements()) != 0 {
		t.Fatalf("a refusal changed the balance (%d) or the ledger (%d)", s.Stats().BalanceCents, len(s.Settlements()))
	}
	wantReplay(t, pay(s, "big", `{"valor":"150.01","chave":"pix@example.com"}`), refused)
	wantProblem(t, pay(s, "big", validBody), 422, "idempotency_key_reused")

	// The whole balance may be spent, and not a cent more.
	wantSettled(t, pay(s, "all", validBody))
	if b := s.Stats().BalanceCents; b != 0 {
		t.Errorf("Stats().BalanceCents = %d, want 0", b)
	}
	wantProblem(t, pay(s, "cent", `{"valor":"0.01","chave":"pix@example.com"}`), 422, "insufficient_funds")
}

func TestKeyIsForgottenAfterTTL(t *testing.T) {
	tests := []struct {
		name string
		ttl  time.Duration // in Config
		want time.Duration // effective
	}{
		{"configured", time.Hour, time.Hour},
		{"default", 0, 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := mustServer(t, func(c *psp.Config) { c.KeyTTL = tt.ttl })
				first := pay(s, "k1", validBody)
				wantSettled(t, first)
				pay(s, "k2", validBody) // a later key, still remembered after k1 is gone
				time.Sleep(tt.want - time.Nanosecond)
				wantReplay(t, pay(s, "k1", validBody), first)
				time.Sleep(time.Nanosecond)
				// Now new again, even for another payment.
				again := wantSettled(t, pay(s, "k1", `{"valor":"1.00","chave":"pix@example.com"}`))
				if n := len(s.Settlements()); n != 3 {
					t.Errorf("%d settlements, want 3", n)
				}
				if again.EndToEndID == mustDecode[receipt](t, first.body).EndToEndID {
					t.Errorf("the new payment reuses endToEndId %s", again.EndToEndID)
				}
			})
		})
	}
}

func TestKeyTTLCountsFromCompletion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.KeyTTL = time.Hour })
		s.Inject(psp.Slow(10 * time.Minute))
		arrival := time.Now()
		first := pay(s, "k1", validBody)
		if got := time.Since(arrival); got != 10*time.Minute {
			t.Fatalf("the slow payment took %v, want 10m", got)
		}
		// An hour after completion, less a nanosecond: well past an hour after arrival.
		time.Sleep(time.Hour - time.Nanosecond)
		wantReplay(t, pay(s, "k1", validBody), first)
		time.Sleep(time.Nanosecond)
		wantSettled(t, pay(s, "k1", validBody))
	})
}

func TestKeyInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.Tokens = []string{token, "other"} })
		s.Inject(psp.Slow(time.Minute))
		var first answer
		var wg sync.WaitGroup
		wg.Go(func() { first = pay(s, "k1", validBody) })
		synctest.Wait() // the first request sleeps with k1 in flight

		wantProblem(t, pay(s, "k1", validBody), 409, "idempotency_key_in_use")
		wantProblem(t, pay(s, "k1", `{"valor":"1.00","chave":"pix@example.com"}`), 422, "idempotency_key_reused")
		r := paymentRequest("k1", validBody)
		r.Header.Set("Authorization", "Bearer other")
		wantSettled(t, serve(s, r)) // another token's k1 is another key
		if n := len(s.Settlements()); n != 1 {
			t.Fatalf("%d settlements while k1 is in flight, want 1 (the other token's)", n)
		}

		start := time.Now()
		wg.Wait()
		if got := time.Since(start); got != time.Minute {
			t.Errorf("the slow request ended after %v, want 1m", got)
		}
		wantSettled(t, first)
		wantReplay(t, pay(s, "k1", validBody), first) // neither the 409 nor the 422 was stored
	})
}

func TestExactlyOnceUnderConcurrency(t *testing.T) {
	const n = 64
	s := mustServer(t)
	answers := make([]answer, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			answers[i] = pay(s, "same-key", validBody)
		})
	}
	close(start)
	wg.Wait()

	var settled []answer
	for _, a := range answers {
		switch {
		case a.status == http.StatusCreated && a.header.Get("Idempotent-Replayed") == "":
			settled = append(settled, a)
		case a.status == http.StatusConflict:
			wantProblem(t, a, 409, "idempotency_key_in_use")
		case a.status != http.StatusCreated:
			t.Errorf("answer %d %s, want 201, a replayed 201 or 409", a.status, a.body)
		}
	}
	if len(settled) != 1 {
		t.Fatalf("%d fresh 201s, want exactly 1", len(settled))
	}
	for _, a := range answers {
		if a.header.Get("Idempotent-Replayed") == "true" {
			wantReplay(t, a, settled[0])
		}
	}
	if got, b := len(s.Settlements()), s.Stats().BalanceCents; got != 1 || b != 85000 {
		t.Errorf("%d settlements, balance %d; want 1, 85000", got, b)
	}
}

func TestOneInFlightAnswersEveryOther409(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 64
		s := mustServer(t)
		s.Inject(psp.Slow(time.Second))
		statuses := make(chan int, n)
		send := func() { statuses <- pay(s, "same-key", validBody).status }
		var wg sync.WaitGroup
		wg.Go(send)
		synctest.Wait() // the first holds the key for a second
		for range n - 1 {
			wg.Go(send)
		}
		wg.Wait()
		close(statuses)
		count := map[int]int{}
		for st := range statuses {
			count[st]++
		}
		if diff := cmp.Diff(map[int]int{201: 1, 409: n - 1}, count); diff != "" {
			t.Errorf("statuses mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestDistinctKeysSettleExactly(t *testing.T) {
	const n = 1000
	s := mustServer(t) // 1000.00: exactly n payments of 1.00
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Go(func() {
			a := pay(s, "key-"+itoa(i), `{"valor":"1.00","chave":"pix@example.com"}`)
			if a.status != http.StatusCreated {
				errs <- a.body
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("a payment was refused: %s", e)
	}
	ledger := s.Settlements()
	keys := map[string]bool{}
	for _, st := range ledger {
		keys[st.IdempotencyKey] = true
	}
	if len(ledger) != n || len(keys) != n || s.Stats().BalanceCents != 0 {
		t.Errorf("%d settlements of %d distinct keys, balance %d; want %d, %d, 0",
			len(ledger), len(keys), s.Stats().BalanceCents, n, n)
	}
	wantProblem(t, pay(s, "one-more", `{"valor":"0.01","chave":"pix@example.com"}`), 422, "insufficient_funds")
}

// infoIs is a valid payment body whose infoPagador is the JSON string content info.
func infoIs(info string) string {
	return `{"valor":"150.00","chave":"pix@example.com","infoPagador":"` + info + `"}`
}

func TestTextIsReadExactly(t *testing.T) {
	tests := map[string]string{ // the JSON string content: the text it means
		`caf\u00e9`:     "café",
		`\uD83D\uDE00`:  "😀",
		`\ud800\udc00`:  "\U00010000",
		`\udbff\udfff`:  "\U0010FFFF",
		`\ud7ff`:        "\ud7ff",
		`\ue000`:        "\ue000",
		`\\ud800`:       `\ud800`,
		`\ufffd`:        "\uFFFD",
		"\xef\xbf\xbd":  "\uFFFD",
		`a\"b\\c\/d\te`: "a\"b\\c/d\te",
		`}],:{[ \"}\\`:  `}],:{[ "}\`,
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			s := mustServer(t)
			wantSettled(t, pay(s, "k1", infoIs(in)))
			if got := s.Settlements()[0].Description; got != want {
				t.Errorf("Description = %q, want %q", got, want)
			}
		})
	}
}

// TestByteDifferentPayloadsNeverReplayEachOther: a payload is its text, read exactly. Bytes that
// encoding/json would read as U+FFFD are refused, so they cannot settle one payment and replay
// it for another; the same text written with an escape is the same payment.
func TestByteDifferentPayloadsNeverReplayEachOther(t *testing.T) {
	s := mustServer(t)
	for _, info := range []string{"rent\xff", "rent\xfe", "rent\x80", `rent\ud800`, `rent\udfff`} {
		wantProblem(t, pay(s, "k1", infoIs(info)), 400, "invalid_request")
	}
	first := pay(s, "k1", infoIs(`rent\ufffd`)) // a real U+FFFD is text like any other
	wantSettled(t, first)
	wantReplay(t, pay(s, "k1", infoIs("rent\xef\xbf\xbd")), first) // the same character, unescaped
	wantProblem(t, pay(s, "k1", infoIs("rent\xff")), 400, "invalid_request")
	wantProblem(t, pay(s, "k1", infoIs(`rent\u00e9`)), 422, "idempotency_key_reused")

	second := pay(s, "k2", infoIs("café"))
	wantSettled(t, second)
	wantReplay(t, pay(s, "k2", infoIs(`caf\u00e9`)), second)
	wantProblem(t, pay(s, "k2", infoIs("cafe\u0301")), 422, "idempotency_key_reused") // another text: decomposed
	if n := len(s.Settlements()); n != 2 {
		t.Errorf("%d settlements, want 2", n)
	}
}
