package psp_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
)

// lookupRequest is a valid GET /v1/pix/payments?idempotency_key=key; edit it before sending.
func lookupRequest(key string) *http.Request {
	return rawLookupRequest(url.Values{psp.LookupParam: {key}}.Encode())
}

// rawLookupRequest is a lookup with the query rawQuery as sent.
func rawLookupRequest(rawQuery string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, psp.PaymentsPath+"?"+rawQuery, nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}

// lookUp looks key up.
func lookUp(h http.Handler, key string) answer { return serve(h, lookupRequest(key)) }

// wantFound checks that a is a lookup's 200 whose body is paid's 201 body, byte for byte.
func wantFound(tb testing.TB, a, paid answer) {
	tb.Helper()
	if paid.status != http.StatusCreated {
		tb.Fatalf("the payment looked up answered %d %s, want 201", paid.status, paid.body)
	}
	if a.status != http.StatusOK || a.body != paid.body {
		tb.Errorf("lookup = %d %s, want 200 %s", a.status, a.body, paid.body)
	}
	if got := a.header.Get("Content-Type"); got != "application/json" {
		tb.Errorf("Content-Type = %q, want application/json", got)
	}
	if got, want := a.header.Get("Content-Length"), strconv.Itoa(len(a.body)); got != want {
		tb.Errorf("Content-Length = %q, want %s", got, want)
	}
	for _, field := range []string{"Idempotent-Replayed", psp.IdempotencyKeyHeader} {
		if got := a.header.Values(field); got != nil {
			tb.Errorf("%s = %q on a lookup, want none", field, got)
		}
	}
}

// wantLedger checks that s holds n settlements and a balance of balance cents.
func wantLedger(tb testing.TB, s *psp.Server, n int, balance int64) {
	tb.Helper()
	if got, b := len(s.Settlements()), s.Stats().BalanceCents; got != n || b != balance {
		tb.Errorf("%d settlements, balance %d; want %d, %d", got, b, n, balance)
	}
}

func TestLookupFindsTheSettlement(t *testing.T) {
	s := mustServer(t)
	paid := pay(s, "k1", validBody)
	for range 2 {
		wantFound(t, lookUp(s, "k1"), paid)
	}
	wantLedger(t, s, 1, 85000)
	if st := s.Stats(); st.Requests != 1 || st.Lookups != 2 || st.ClosedKeys != 0 {
		t.Errorf("Stats() = %+v, want 1 request, 2 lookups, no closed key", st)
	}
}

// TestLookupFindsASettlementAfterItsKeyExpired: the key store forgets the key, the ledger does
// not.
func TestLookupFindsASettlementAfterItsKeyExpired(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.KeyTTL = time.Minute })
		paid := pay(s, "k1", validBody)
		time.Sleep(time.Minute)
		wantFound(t, lookUp(s, "k1"), paid) // expired, still stored
		wantSettled(t, pay(s, "k2", validBody))
		if got := s.Stats().Keys; got != 1 {
			t.Fatalf("Stats().Keys = %d, want 1: k1 forgotten", got)
		}
		time.Sleep(24 * time.Hour)
		wantFound(t, lookUp(s, "k1"), paid)
	})
}

// TestLookupFindsTheLatestSettlementUnderAKey: a key paid again after its TTL has two
// settlements, and the lookup answers the later.
func TestLookupFindsTheLatestSettlementUnderAKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.KeyTTL = time.Minute })
		pay(s, "k1", validBody)
		time.Sleep(time.Minute)
		again := pay(s, "k1", `{"valor":"1.00","chave":"pix@example.com"}`)
		wantFound(t, lookUp(s, "k1"), again)
		time.Sleep(time.Minute)
		wantSettled(t, pay(s, "k2", validBody)) // forgets k1
		wantFound(t, lookUp(s, "k1"), again)
		wantLedger(t, s, 3, 100000-15000-100-15000)
	})
}

// TestLookupFindsTheLatestSettlementAfterTheFirstIsDropped: the ledger dropping a key's earlier
// settlement leaves its later one found, after the key is forgotten.
func TestLookupFindsTheLatestSettlementAfterTheFirstIsDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.MaxSettlements, c.KeyTTL = 2, time.Minute })
		pay(s, "k1", validBody)
		time.Sleep(time.Minute)
		again := pay(s, "k1", `{"valor":"1.00","chave":"pix@example.com"}`)
		wantSettled(t, pay(s, "k2", validBody)) // drops k1's first settlement
		time.Sleep(time.Minute)
		// A refusal stores a key and settles nothing; first it forgets k1 and k2.
		wantProblem(t, pay(s, "k3", `{"valor":"999.00","chave":"pix@example.com"}`), 422, "insufficient_funds")
		if st := s.Stats(); st.Keys != 1 || st.Settled != 2 || st.Dropped != 1 {
			t.Fatalf("Stats() = %+v, want 1 key, 2 settled and 1 dropped", st)
		}
		wantFound(t, lookUp(s, "k1"), again)
	})
}

func TestLookupWhileInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		s.Inject(psp.Slow(time.Minute))
		var paid answer
		var wg sync.WaitGroup
		wg.Go(func() { paid = pay(s, "k1", validBody) })
		synctest.Wait() // k1 in flight
		wantProblem(t, lookUp(s, "k1"), 409, "idempotency_key_in_use")
		wg.Wait()
		wantFound(t, lookUp(s, "k1"), paid) // the 409 closed nothing
	})
}

// TestLookupWhileADuplicateCopyIsInFlight: the copy of a duplicated request that holds the key
// makes a lookup answer 409, as the request itself would.
func TestLookupWhileADuplicateCopyIsInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t)
		s.Inject(psp.Duplicate(time.Minute))
		wantProblem(t, pay(s, "k1", validBody), 409, "idempotency_key_in_use")
		wantProblem(t, lookUp(s, "k1"), 409, "idempotency_key_in_use")
		s.Wait()
		wantFound(t, lookUp(s, "k1"), pay(s, "k1", validBody))
	})
}

// TestLookupOfAKeyPaidAgainAnswers409: a key in flight answers 409 even though an earlier
// settlement under it is held: the one in flight may be the latest.
func TestLookupOfAKeyPaidAgainAnswers409(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.KeyTTL = time.Minute })
		pay(s, "k1", validBody)
		time.Sleep(time.Minute)
		s.Inject(psp.Slow(time.Second))
		var again answer
		var wg sync.WaitGroup
		wg.Go(func() { again = pay(s, "k1", `{"valor":"1.00","chave":"pix@example.com"}`) })
		synctest.Wait()
		wantProblem(t, lookUp(s, "k1"), 409, "idempotency_key_in_use")
		wg.Wait()
		wantFound(t, lookUp(s, "k1"), again)
	})
}

func TestLookupNotFoundClosesTheKey(t *testing.T) {
	s := mustServer(t)
	p := wantProblem(t, lookUp(s, "k1"), 404, "payment_not_found")
	if want := "no payment was made under this Idempotency-Key, and none will be: the key is closed"; p.Detail != want {
		t.Errorf("detail = %q, want %q", p.Detail, want)
	}
	if got := s.Stats().ClosedKeys; got != 1 {
		t.Errorf("Stats().ClosedKeys = %d, want 1", got)
	}
	for _, body := range []string{validBody, validBody, `{"valor":"1.00","chave":"pix@example.com"}`} {
		a := pay(s, "k1", body)
		p := wantProblem(t, a, 422, "idempotency_key_closed")
		if want := "a status lookup found no payment under this Idempotency-Key and closed it; use a new key"; p.Detail != want {
			t.Errorf("detail = %q, want %q", p.Detail, want)
		}
		if got := a.header.Get("Idempotent-Replayed"); got != "" {
			t.Errorf("%s = %q on a refusal, want none", "Idempotent-Replayed", got)
		}
	}
	wantLedger(t, s, 0, 100000)
	if got := s.Stats().Keys; got != 0 {
		t.Errorf("Stats().Keys = %d, want 0: the refusal is not stored", got)
	}
	wantProblem(t, lookUp(s, "k1"), 404, "payment_not_found") // still nothing, still closed
	wantSettled(t, pay(s, "k2", validBody))
	if got := s.Stats().ClosedKeys; got != 1 {
		t.Errorf("Stats().ClosedKeys = %d, want 1", got)
	}
}

// TestClosedKeyStaysClosedPastTheTTL: a closed key is a record, not a stored answer: it does
// not expire with the key TTL.
func TestClosedKeyStaysClosedPastTheTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.KeyTTL = time.Minute })
		wantProblem(t, lookUp(s, "k1"), 404, "payment_not_found")
		time.Sleep(24 * time.Hour)
		wantProblem(t, pay(s, "k1", validBody), 422, "idempotency_key_closed")
		wantLedger(t, s, 0, 100000)
	})
}

// TestLookupLeavesAStoredRefusalReplayed: a refusal for insufficient funds is no settlement, so
// the lookup answers 404 and closes the key. The stored refusal is still replayed until it
// expires, and a request for another payment still gets 422 reused; then the key is closed.
func TestLookupLeavesAStoredRefusalReplayed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.BalanceCents, c.KeyTTL = 100, time.Minute })
		refused := pay(s, "k1", validBody)
		wantProblem(t, refused, 422, "insufficient_funds")
		wantProblem(t, lookUp(s, "k1"), 404, "payment_not_found")
		wantReplay(t, pay(s, "k1", validBody), refused)
		wantProblem(t, pay(s, "k1", `{"valor":"0.01","chave":"pix@example.com"}`), 422, "idempotency_key_reused")
		time.Sleep(time.Minute)
		wantProblem(t, pay(s, "k1", `{"valor":"0.01","chave":"pix@example.com"}`), 422, "idempotency_key_closed")
		wantLedger(t, s, 0, 100)
	})
}

// TestLookupCannotProveOnceTheLedgerDropped: once the ledger has dropped a settlement, a lookup
// that finds nothing answers 410 and closes nothing; a settlement still held is still found.
func TestLookupCannotProveOnceTheLedgerDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.MaxSettlements, c.KeyTTL = 1, time.Minute })
		first := pay(s, "k1", validBody)
		wantProblem(t, lookUp(s, "never-used"), 404, "payment_not_found") // nothing dropped yet
		second := pay(s, "k2", validBody)
		if st := s.Stats(); st.Settled != 1 || st.Dropped != 1 {
			t.Fatalf("Stats() = %+v, want 1 settled and 1 dropped", st)
		}
		wantFound(t, lookUp(s, "k1"), first) // dropped from the ledger, still in the key store
		wantFound(t, lookUp(s, "k2"), second)
		p := wantProblem(t, lookUp(s, "k3"), 410, "outcome_unprovable")
		if want := "the PSP has dropped settlements from its ledger and cannot tell whether one was made " +
			"under this Idempotency-Key"; p.Detail != want {
			t.Errorf("detail = %q, want %q", p.Detail, want)
		}
		wantProblem(t, lookUp(s, "k3"), 410, "outcome_unprovable")
		if got := s.Stats().ClosedKeys; got != 1 {
			t.Errorf("Stats().ClosedKeys = %d, want 1 (never-used): a 410 closes nothing", got)
		}
		wantSettled(t, pay(s, "k3", `{"valor":"1.00","chave":"pix@example.com"}`))

		time.Sleep(time.Minute)
		wantSettled(t, pay(s, "k4", `{"valor":"1.00","chave":"pix@example.com"}`)) // forgets k1 to k3
		wantProblem(t, lookUp(s, "k1"), 410, "outcome_unprovable")
		wantProblem(t, lookUp(s, "k2"), 410, "outcome_unprovable")
		wantFound(t, lookUp(s, "k4"), pay(s, "k4", `{"valor":"1.00","chave":"pix@example.com"}`))
		wantProblem(t, pay(s, "never-used", validBody), 422, "idempotency_key_closed")
	})
}

// TestClosedKeyStaysClosedAfterDrops: a key closed before the ledger dropped anything answers
// 404 again, not 410: it was proved, and nothing can have been paid under it since.
func TestClosedKeyStaysClosedAfterDrops(t *testing.T) {
	s := mustServer(t, func(c *psp.Config) { c.MaxSettlements = 1 })
	wantProblem(t, lookUp(s, "k0"), 404, "payment_not_found")
	pay(s, "k1", validBody)
	pay(s, "k2", validBody)
	if got := s.Stats().Dropped; got != 1 {
		t.Fatalf("Stats().Dropped = %d, want 1", got)
	}
	wantProblem(t, lookUp(s, "k0"), 404, "payment_not_found")
	wantProblem(t, pay(s, "k0", validBody), 422, "idempotency_key_closed")
}

// TestClosedKeysAreTheLatestMaxSettlements: the oldest closed key is dropped first, and a
// payment under it is a new payment again. A closed key looked up again is no newer.
func TestClosedKeysAreTheLatestMaxSettlements(t *testing.T) {
	s := mustServer(t, func(c *psp.Config) { c.MaxSettlements = 2 })
	for _, key := range []string{"a", "b", "b", "c"} {
		wantProblem(t, lookUp(s, key), 404, "payment_not_found")
	}
	if got := s.Stats().ClosedKeys; got != 2 {
		t.Errorf("Stats().ClosedKeys = %d, want 2", got)
	}
	wantSettled(t, pay(s, "a", validBody))
	wantProblem(t, pay(s, "b", validBody), 422, "idempotency_key_closed")
	wantProblem(t, pay(s, "c", validBody), 422, "idempotency_key_closed")
}

func TestLookupNeedsAKnownToken(t *testing.T) {
	s := mustServer(t)
	for name, authorization := range map[string]string{"none": "", "unknown": "Bearer other", "basic": "Basic " + token} {
		r := lookupRequest("k1")
		r.Header.Set("Authorization", authorization)
		a := serve(s, r)
		wantProblem(t, a, 401, "unauthorized")
		if got := a.header.Get("WWW-Authenticate"); got != `Bearer realm="psp"` {
			t.Errorf("%s: WWW-Authenticate = %q, want %q", name, got, `Bearer realm="psp"`)
		}
	}
	if got := s.Stats().ClosedKeys; got != 0 {
		t.Errorf("Stats().ClosedKeys = %d, want 0", got)
	}
	wantSettled(t, pay(s, "k1", validBody))
}

func TestLookupRejectsBadQueries(t *testing.T) {
	const (
		missing = "idempotency_key_missing"
		bad     = "idempotency_key_invalid"
		request = "invalid_request"
	)
	tests := []struct {
		name, query string
		code        string
		fields      []string // the violacoes' campo
	}{
		{"no query", "", missing, []string{"idempotency_key"}},
		{"only an ampersand", "&", missing, []string{"idempotency_key"}},
		{"empty key", "idempotency_key=", bad, []string{"idempotency_key"}},
		{"no value", "idempotency_key", bad, []string{"idempotency_key"}},
		{"repeated", "idempotency_key=k1&idempotency_key=k1", bad, []string{"idempotency_key"}},
		{"repeated empty", "idempotency_key=k1&idempotency_key=", bad, []string{"idempotency_key"}},
		{"a space", "idempotency_key=k%201", bad, []string{"idempotency_key"}},
		{"a plus, which means a space", "idempotency_key=k+1", bad, []string{"idempotency_key"}},
		{"a control character", "idempotency_key=k%011", bad, []string{"idempotency_key"}},
		{"DEL", "idempotency_key=k%7F", bad, []string{"idempotency_key"}},
		{"non-ASCII", "idempotency_key=caf%C3%A9", bad, []string{"idempotency_key"}},
		{"not UTF-8", "idempotency_key=k%FF", bad, []string{"idempotency_key"}},
		{"256 characters", "idempotency_key=" + strings.Repeat("k", 256), bad, []string{"idempotency_key"}},
		{"another case", "Idempotency_Key=k1", request, []string{"Idempotency_Key"}},
		{"an unknown parameter", "idempotency_key=k1&x=1", request, []string{"x"}},
		{"unknown parameters, no key", "b=1&a=2&a=3", request, []string{"a", "b"}},
		{"an empty name", "=1&idempotency_key=k1", request, []string{`""`}},
		{"a bad escape", "idempotency_key=%zz", request, []string{"query"}},
		{"a bad escape in a name", "idempotency_key=k1&%zz=1", request, []string{"query"}},
		{"a semicolon", "idempotency_key=k1;x=1", request, []string{"query"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustServer(t)
			a := serve(s, rawLookupRequest(tt.query))
			p := wantProblem(t, a, 400, tt.code)
			var fields []string
			for _, v := range p.Violations {
				fields = append(fields, v.Field)
				if v.Reason == "" {
					t.Errorf("violation of %s has no reason", v.Field)
				}
			}
			if diff := cmp.Diff(tt.fields, fields); diff != "" {
				t.Errorf("violacoes fields mismatch (-want +got):\n%s", diff)
			}
			if got := a.header.Values(psp.IdempotencyKeyHeader); got != nil {
				t.Errorf("%s = %q, want none", psp.IdempotencyKeyHeader, got)
			}
			if st := s.Stats(); st.ClosedKeys != 0 || st.Lookups != 1 {
				t.Errorf("Stats() = %+v, want 1 lookup and no closed key", st)
			}
		})
	}
}

// TestLookupTakesTheKeyPercentEncoded: every key a payment takes can be looked up, its
// characters percent-encoded as url.Values encodes them. A structured-field string in the
// header is looked up by the key it means.
func TestLookupTakesTheKeyPercentEncoded(t *testing.T) {
	tests := []struct{ header, key string }{
		{"!", "!"},
		{strings.Repeat("~", 255), strings.Repeat("~", 255)},
		{`a+b/c?d&e=f%g#h;i"j\k`, `a+b/c?d&e=f%g#h;i"j\k`},
		{`"abc"`, "abc"},
		{`"a\"b"`, `a"b`},
	}
	for _, tt := range tests {
		s := mustServer(t)
		paid := pay(s, tt.header, validBody)
		wantFound(t, lookUp(s, tt.key), paid)
	}
}

func TestLookupKeysArePerToken(t *testing.T) {
	s := mustServer(t, func(c *psp.Config) { c.Tokens = []string{"alice", "bob"} })
	as := func(tok string, r *http.Request) answer {
		r.Header.Set("Authorization", "Bearer "+tok)
		return serve(s, r)
	}
	alice := as("alice", paymentRequest("shared", validBody))
	wantProblem(t, as("bob", lookupRequest("shared")), 404, "payment_not_found")
	wantFound(t, as("alice", lookupRequest("shared")), alice)
	wantProblem(t, as("bob", paymentRequest("shared", validBody)), 422, "idempotency_key_closed")
	wantReplay(t, as("alice", paymentRequest("shared", validBody)), alice)
	wantLedger(t, s, 1, 85000)
}

func TestResetForgetsClosedKeys(t *testing.T) {
	s := mustServer(t)
	wantProblem(t, lookUp(s, "k1"), 404, "payment_not_found")
	s.Reset()
	if st := s.Stats(); st.ClosedKeys != 0 || st.Lookups != 0 {
		t.Errorf("Stats() after Reset = %+v, want no closed key and no lookup", st)
	}
	wantSettled(t, pay(s, "k1", validBody))
}

// TestLookupTakesNoSlotAndNoServiceTime: with every processing slot taken, a lookup is answered
// at once, and no payment is shed for it.
func TestLookupTakesNoSlotAndNoServiceTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustServer(t, func(c *psp.Config) { c.Capacity, c.ServiceTime = 1, time.Second })
		var wg sync.WaitGroup
		wg.Go(func() { wantSettled(t, pay(s, "k1", validBody)) })
		synctest.Wait() // k1 holds the one slot
		start := time.Now()
		wantProblem(t, lookUp(s, "k2"), 404, "payment_not_found")
		if got := time.Since(start); got != 0 {
			t.Errorf("the lookup took %v, want no time", got)
		}
		wg.Wait()
		if st := s.Stats(); st.Shed != 0 || st.MaxInFlight != 1 || st.Requests != 1 || st.Lookups != 1 {
			t.Errorf("Stats() = %+v, want nothing shed, 1 in flight at most, 1 request and 1 lookup", st)
		}
	})
}
