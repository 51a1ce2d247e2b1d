package openfinance_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-jose/go-jose/v4"

	"pixretry/psp"
	"pixretry/psp/openfinance"
)

// proxy is a handler in front of the core that answers some requests itself, without reading
// their body, as a gateway does, and passes the others on. The first held request it answers
// only once released; each answer is status, with header.
type proxy struct {
	next    http.Handler
	answers int // how many requests it answers itself, the first ones
	status  int
	header  http.Header
	hold    chan struct{} // if not nil, the first request waits until it is closed

	mu   sync.Mutex
	seen int
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.seen++
	n := p.seen
	p.mu.Unlock()
	if n > p.answers {
		p.next.ServeHTTP(w, r)
		return
	}
	if n == 1 && p.hold != nil {
		<-p.hold
	}
	for name, values := range p.header {
		w.Header()[name] = values
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(p.status)
	w.Write([]byte("proxy: " + http.StatusText(p.status) + "\n"))
}

// behind makes b's Server relay to p, in front of b's core, with ocfg's KeyTTL.
func (b *bank) behind(tb testing.TB, p *proxy, keyTTL time.Duration) {
	tb.Helper()
	p.next = b.core
	of, err := openfinance.New(p, openfinance.Config{SigningKey: signingKey, ClientKeys: []jose.JSONWebKey{clientJWK()},
		KeyTTL: keyTTL})
	if err != nil {
		tb.Fatal(err)
	}
	b.of = of
}

// TestAProxysAnswerKeepsItsStatusAndHeaders relays to a proxy that answers 502 itself, with
// Retry-After and WWW-Authenticate: the answer keeps its status and both fields, its detail
// says the status, and the consent, which nothing processed, expires unconsumed.
func TestAProxysAnswerKeepsItsStatusAndHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		b.behind(t, &proxy{answers: 1, status: http.StatusBadGateway,
			header: http.Header{"Retry-After": {"7"}, "Www-Authenticate": {`Bearer realm="proxy"`}}}, 0)
		consent := b.mustConsent(consentData())
		a := b.pay("k1", paymentData(consent))
		wantError(t, "POST payment", a, http.StatusBadGateway, "BAD_GATEWAY", "the PSP answered 502")
		if got, want := a.header.Get("Retry-After"), "7"; got != want {
			t.Errorf("Retry-After = %q, want %q", got, want)
		}
		if got, want := a.header.Get("Www-Authenticate"), `Bearer realm="proxy"`; got != want {
			t.Errorf("WWW-Authenticate = %q, want %q", got, want)
		}
		time.Sleep(61 * time.Minute)
		if got := b.consentStatus(consent); got != "REJECTED" {
			t.Errorf("consent after 61 minutes = %s, want REJECTED: no payment was relayed past the proxy", got)
		}
	})
}

// TestAnAnswerWithoutRetryAfterHasNone checks that an error relayed without Retry-After or
// WWW-Authenticate carries neither field, not even empty.
func TestAnAnswerWithoutRetryAfterHasNone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		b.core.Inject(psp.Status(503))
		a := b.pay("k1", paymentData(b.mustConsent(consentData())))
		for _, name := range []string{"Retry-After", "Www-Authenticate"} {
			if v, ok := a.header[name]; ok {
				t.Errorf("%s = %q, want no such field", name, v)
			}
		}
	})
}

// TestAnswersCarryTheirLength checks the Content-Length of a signed answer, a plain one and a
// redirect's, and the Content-Type of the redirect, which has no body.
func TestAnswersCarryTheirLength(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		consent := b.mustConsent(consentData())
		b.core.Inject(psp.Status(503), psp.Redirect(307))
		for _, a := range []answer{b.pay("k1", paymentData(consent)), b.pay("k1", paymentData(consent)),
			b.pay("k1", paymentData(consent))} {
			if got, want := a.header.Get("Content-Length"), strconv.Itoa(len(a.body)); got != want {
				t.Errorf("%d answer: Content-Length = %q, want %q", a.status, got, want)
			}
			if got, want := a.header.Get("Content-Type"), "text/plain; charset=utf-8"; a.status == 307 && got != want {
				t.Errorf("307 answer: Content-Type = %q, want %q", got, want)
			}
		}
	})
}

// TestAnAttemptFreedMeanwhileStartsOver holds a payment at a proxy, which then answers 503
// without passing it on, while a retry under its key waits for the consent's turn. The key is
// freed, as nothing processed it, and the retry starts over with an attempt of its own: it is
// paid, and a replay under the key answers the retry's paymentId.
func TestAnAttemptFreedMeanwhileStartsOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		p := &proxy{answers: 1, status: http.StatusServiceUnavailable, hold: make(chan struct{})}
		b.behind(t, p, 0)
		consent := b.mustConsent(consentData())
		first := make(chan answer)
		go func() { first <- b.pay("k1", paymentData(consent)) }()
		synctest.Wait() // the first holds the consent's turn, at the proxy
		retry := make(chan answer)
		go func() { retry <- b.pay("k1", paymentData(consent)) }()
		synctest.Wait() // the retry waits for the turn
		close(p.hold)
		wantError(t, "the first POST", <-first, 529, "SITE_IS_OVERLOADED", "the PSP answered 503")
		id := paymentID(t, <-retry)
		if got := paymentID(t, b.pay("k1", paymentData(consent))); got != id {
			t.Errorf("the replay's paymentId = %s, want the retry's %s", got, id)
		}
	})
}

// TestAnAttemptThatExpiredWhileHeldIsForgotten holds a payment at a proxy past the key's
// lifetime, while another key's payment expires it from the store; the proxy then answers 503.
// The held payment's key is forgotten as it was: nothing breaks, and it pays anew.
func TestAnAttemptThatExpiredWhileHeldIsForgotten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		p := &proxy{answers: 1, status: http.StatusServiceUnavailable, hold: make(chan struct{})}
		b.behind(t, p, time.Second)
		consent := b.mustConsent(consentData())
		held := make(chan answer)
		go func() { held <- b.pay("k1", paymentData(consent)) }()
		synctest.Wait()
		time.Sleep(2 * time.Second)
		paymentID(t, b.pay("k2", paymentData(b.mustConsent(consentData())))) // its lookup expires k1's attempt
		close(p.hold)
		wantError(t, "the held POST", <-held, 529, "SITE_IS_OVERLOADED", "the PSP answered 503")
		paymentID(t, b.pay("k1", paymentData(consent)))
	})
}

// TestAConsentExpiresAfterAHangUpBeforeProcessing: a payment that the core hangs up on before
// reading it, on a connection it cannot take over, leaves its consent to expire unconsumed.
func TestAConsentExpiresAfterAHangUpBeforeProcessing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		b.core.Inject(psp.ResetConn())
		consent := b.mustConsent(consentData())
		if a := b.pay("k1", paymentData(consent)); !a.aborted {
			t.Fatalf("POST payment = %d, want a hang-up", a.status)
		}
		time.Sleep(61 * time.Minute)
		if got := b.consentStatus(consent); got != "REJECTED" {
			t.Errorf("consent after 61 minutes = %s, want REJECTED", got)
		}
	})
}

// TestABrokenAnswerGoesWithItsContentType: a 2xx body the double cannot read goes to the
// client as the core sent it, its Content-Type included.
func TestABrokenAnswerGoesWithItsContentType(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		b.core.Inject(psp.BadBody("not_json"))
		a := b.pay("k1", paymentData(b.mustConsent(consentData())))
		if got, want := a.header.Get("Content-Type"), "application/json"; a.status != 201 || got != want {
			t.Errorf("POST payment = %d with Content-Type %q, want 201 and the core's %q", a.status, got, want)
		}
	})
}

// heldWriter is a ResponseWriter whose WriteHeader waits until release is closed: a client
// slow to take its answer, which holds the request's handler.
type heldWriter struct {
	*httptest.ResponseRecorder
	release chan struct{}
}

func (w heldWriter) WriteHeader(status int) {
	<-w.release
	w.ResponseRecorder.WriteHeader(status)
}

// TestAnAttemptReplacedMeanwhileStartsOver: a payment held at a proxy holds the consent's
// turn while a retry under its key waits for it. The proxy answers 503 without passing it on,
// which frees its key, and its handler holds the turn while its client is slow to take the
// answer. A third request under the key makes a new attempt meanwhile and waits too. The
// retry, which waited with the attempt freed, starts over with the new one: the consent pays
// once, and both answer one paymentId.
func TestAnAttemptReplacedMeanwhileStartsOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		p := &proxy{answers: 1, status: http.StatusServiceUnavailable, hold: make(chan struct{})}
		b.behind(t, p, 0)
		consent := b.mustConsent(consentData())
		w := heldWriter{httptest.NewRecorder(), make(chan struct{})}
		done := make(chan struct{})
		go func() {
			defer close(done)
			b.of.ServeHTTP(w, signedRequest(openfinance.PaymentsPath, "k1", claimsFor(openfinance.PaymentsPath,
				paymentData(consent))))
		}()
		synctest.Wait() // the first holds the turn, at the proxy
		retry, third := make(chan answer), make(chan answer)
		go func() { retry <- b.pay("k1", paymentData(consent)) }()
		synctest.Wait() // the retry waits for the turn, with the first's attempt
		close(p.hold)
		synctest.Wait() // the first was refused, its key freed, its answer held with its turn
		go func() { third <- b.pay("k1", paymentData(consent)) }()
		synctest.Wait() // the third made a new attempt and waits too
		close(w.release)
		<-done
		if w.Code != 529 {
			t.Errorf("the first POST = %d, want 529", w.Code)
		}
		if got, want := paymentID(t, <-retry), paymentID(t, <-third); got != want {
			t.Errorf("the retry's paymentId = %s, the third's %s, want one", got, want)
		}
	})
}

// TestAStatusTimeOutlivesAnAnswerWithoutOne: a lookup whose answer lacks its horario leaves the
// payment's last status time as it was: a later answer that shows the payment without the
// core's receipt, the replay of its rejection, gives that time.
func TestAStatusTimeOutlivesAnAnswerWithoutOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		b.core.Inject(psp.Pending(time.Second, "rejected"))
		consent := b.mustConsent(consentData())
		id := paymentID(t, b.pay("k1", paymentData(consent)))
		time.Sleep(2 * time.Second)
		b.core.Inject(psp.Fault{Kind: "bad_body", Breach: "missing", Member: "horario"}.ForLookup())
		if a := b.get(openfinance.PaymentsPath + "/" + id); a.status != http.StatusOK {
			t.Fatalf("GET payment = %d %s, want 200", a.status, a.body)
		}
		view := b.pay("k1", paymentData(consent)).claims["data"].([]any)[0].(map[string]any)
		if got, want := view["status"], "RJCT"; got != want {
			t.Errorf("the replay's status = %v, want %s", got, want)
		}
		if got, want := view["statusUpdateDateTime"], start; got != want {
			t.Errorf("the replay's statusUpdateDateTime = %v, want %s, the last the core gave", got, want)
		}
	})
}
