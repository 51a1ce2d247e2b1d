package durable

// Every use of package psp by these tests is in this file, so that a change to psp's API is
// a change here only.

import (
	"context"
	"crypto/rsa"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"pixretry/internal/testkeys"
	"pixretry/pix"
	"pixretry/pix/efi"
	"pixretry/pix/openfinance"
	"pixretry/psp"
	efipsp "pixretry/psp/efi"
	ofpsp "pixretry/psp/openfinance"
	"pixretry/psp/psptest"
)

// pspBalanceCents is the payer's balance at the PSP: any test payment up to it settles, and
// refusedCents is refused for insufficient funds.
const (
	pspBalanceCents = 1_000_000_000_00
	refusedCents    = pspBalanceCents + 1
	pspToken        = psp.DefaultToken
)

// ledger is what the tests read of a PSP and do to it, and how their clients reach it.
type ledger struct {
	srv  *psp.Server
	url  string
	http *http.Client // reaches url; nil for a PSP on a loopback address (pix's shared client)
}

// mustPSP serves a psp.Server over in-memory pipes (psptest) for the test's duration. It
// remembers a completed key for DefaultConfig's KeyTTL. Clients reach it through client and
// config.
func mustPSP(tb testing.TB) ledger {
	tb.Helper()
	return mustPSPTTL(tb, psp.DefaultConfig().KeyTTL)
}

// mustPSPTTL is mustPSP with a PSP that remembers a completed key for ttl.
func mustPSPTTL(tb testing.TB, ttl time.Duration) ledger {
	tb.Helper()
	srv, err := psptest.NewServer(pspConfig(ttl))
	if err != nil {
		tb.Fatalf("psptest.NewServer() error = %v", err)
	}
	tb.Cleanup(srv.Close)
	return ledger{srv: srv.Server, url: srv.URL, http: srv.HTTPClient()}
}

// mustLoopbackPSP is mustPSPTTL served on a loopback address, for a test that hands the URL to
// a child process. A ttl of 0 is DefaultConfig's KeyTTL.
func mustLoopbackPSP(tb testing.TB, ttl time.Duration) ledger {
	tb.Helper()
	return mustLoopbackPSPBehind(tb, ttl, func(srv *psp.Server) http.Handler { return srv })
}

// mustLoopbackPSPBehind is mustLoopbackPSP with front(double) served in the double's place.
func mustLoopbackPSPBehind(tb testing.TB, ttl time.Duration, front func(*psp.Server) http.Handler) ledger {
	tb.Helper()
	srv, err := psp.NewServer(pspConfig(ttl))
	if err != nil {
		tb.Fatalf("psp.NewServer() error = %v", err)
	}
	hs := httptest.NewServer(front(srv))
	tb.Cleanup(hs.Close)
	return ledger{srv: srv, url: hs.URL}
}

// mustEfiPSP is mustPSP behind the double's Efí front end, and a patientConfig whose Client
// speaks Efí's dialect to it from payerKey. The double pays from efipsp.PayerKey only.
func mustEfiPSP(tb testing.TB, payerKey string) (ledger, Config) {
	tb.Helper()
	l := mustPSPBehind(tb, efiFront)
	cfg := patientConfig(l)
	cfg.Client.Dialect = efi.Dialect{PayerKey: payerKey}
	return l, cfg
}

// patientConfig is l's config with attempts that time out after 10 s, not 200 ms: the tests
// that use it hold pix's errors to their count of attempts, which an attempt slowed by the
// other tests' work would change.
func patientConfig(l ledger) Config {
	cfg := l.config()
	cfg.Client.AttemptTimeout = 10 * time.Second
	return cfg
}

// efiFront serves srv in Efí's dialect.
func efiFront(srv *psp.Server) http.Handler { return efipsp.NewHandler(srv) }

// efiWrongPayer is a payer key that the Efí double does not hold: it refuses every payout
// from it with 400 chave_invalida, before its core sees the payout.
const efiWrongPayer = "outro@example.com"

// chaveInvalida is that refusal, as pix reads it.
const chaveInvalida = "pix: PSP answered 400 chave_invalida: pagador.chave is not a key of the authenticated " +
	"account, whose key is " + efipsp.PayerKey

// consentConsumed is the payments v4 double's refusal of a payment under consent, which
// another payment consumed, as pix reads it.
func consentConsumed(consent string) string {
	return "pix: PSP answered 422 CONSENTIMENTO_INVALIDO: Unprocessable Entity the consent " + consent + " is CONSUMED"
}

// mustOpenFinancePSP is mustPSP behind the double's payments v4 front end, and a
// patientConfig whose Client speaks payments v4 to it with openFinanceKeys. Every payment
// needs a consent (see mustConsent).
func mustOpenFinancePSP(tb testing.TB) (ledger, Config) {
	tb.Helper()
	var sandbox *ofpsp.Server
	keys := openFinanceKeys()
	l := mustPSPBehind(tb, func(srv *psp.Server) http.Handler {
		var err error
		sandbox, err = ofpsp.New(srv, ofpsp.Config{SigningKey: keys.psp,
			ClientKeys: []jose.JSONWebKey{{Key: &keys.client.PublicKey, KeyID: clientKeyID}}})
		if err != nil {
			tb.Fatalf("openfinance.New() error = %v", err)
		}
		return sandbox
	})
	cfg := patientConfig(l)
	cfg.Client.Dialect = &openfinance.Dialect{Key: keys.client, KeyID: clientKeyID,
		Issuer: ofpsp.DefaultClientOrganisationID, PSPIssuer: ofpsp.DefaultOrganisationID, PSPKeys: sandbox.PublicKeys(),
		CNPJInitiator: "50685362000135", ISPB: "99999999",
		Creditors: func(string) (openfinance.Creditor, error) {
			return openfinance.Creditor{Name: "Maria da Silva", Document: "12345678909",
				Account: openfinance.Account{ISPB: "12345678", Issuer: "0001", Number: "1234567", Type: "CACC"}}, nil
		}}
	return l, cfg
}

// openFinanceKeys are the RSA keys of the payments v4 tests (package testkeys): the client's,
// which signs requests, and the PSP's, which signs answers.
func openFinanceKeys() struct{ client, psp *rsa.PrivateKey } {
	return struct{ client, psp *rsa.PrivateKey }{testkeys.Client(), testkeys.PSP()}
}

// clientKeyID is the kid of openFinanceKeys' client key.
const clientKeyID = "client-1"

// mustConsent returns p under a consent for it that the payments v4 PSP of cfg creates, and
// its payer authorises at once.
func mustConsent(tb testing.TB, cfg Config, p pix.Payment) pix.Payment {
	tb.Helper()
	var err error
	p.ConsentID, err = cfg.Client.Dialect.(*openfinance.Dialect).CreateConsent(context.Background(), cfg.Client,
		"11122233396", p)
	if err != nil {
		tb.Fatalf("CreateConsent() error = %v", err)
	}
	return p
}

// mustPSPBehind is mustPSP with front(double) served in the double's place.
func mustPSPBehind(tb testing.TB, front func(*psp.Server) http.Handler) ledger {
	tb.Helper()
	srv, err := psptest.NewServerBehind(pspConfig(psp.DefaultConfig().KeyTTL), front)
	if err != nil {
		tb.Fatalf("psptest.NewServerBehind() error = %v", err)
	}
	tb.Cleanup(srv.Close)
	return ledger{srv: srv.Server, url: srv.URL, http: srv.HTTPClient()}
}

// pspConfig is the configuration of the tests' PSPs: a balance of pspBalanceCents, and keys
// remembered for ttl.
func pspConfig(ttl time.Duration) psp.Config {
	cfg := psp.DefaultConfig()
	cfg.BalanceCents, cfg.KeyTTL = pspBalanceCents, ttl
	return cfg
}

// client is testClient of l's PSP.
func (l ledger) client() *pix.Client {
	c := testClient(l.url)
	c.HTTPClient = l.http
	return c
}

// config is testConfig of l's PSP.
func (l ledger) config() Config {
	cfg := testConfig(l.url)
	cfg.Client = l.client()
	return cfg
}

// settlement is the part of a ledger entry a receipt can be checked against.
type settlement struct {
	Key         string // the Idempotency-Key it was made under
	EndToEndID  string
	AmountCents int64
	SettledAt   time.Time
}

// settlements returns the ledger's settlements, oldest first.
func (l ledger) settlements() []settlement {
	var all []settlement
	for _, s := range l.srv.Settlements() {
		all = append(all, settlement{s.IdempotencyKey, s.EndToEndID, s.AmountCents, s.SettledAt})
	}
	return all
}

// lookups returns how many status lookups the PSP answered.
func (l ledger) lookups() int64 { return l.srv.Stats().Lookups }

// payments returns how many payment requests the PSP answered.
func (l ledger) payments() int64 { return l.srv.Stats().Requests }

// The double's API, as refDialect speaks it: where payments and lookups go, and the lookup's
// query parameter.
const (
	paymentsPath = psp.PaymentsPath
	lookupParam  = psp.LookupParam
)

// fault names the PSP faults that leave an outcome unknown.
type fault int

const (
	faultCommit503 fault = iota // settles, then answers 503
	faultDrop                   // closes the connection without an answer
	faultLate                   // answers after pix's attempt timeout
	faultDown                   // answers 503 to everything for a while
	faultSlow                   // settles after 300 ms, whether the client waits or not
	fault503                    // answers 503 before any processing: nothing is paid
	faultPending                // answers 202 pending, and settles 100 ms later
)

// inject queues faults for the next payment requests.
func (l ledger) inject(faults ...fault) {
	for _, f := range faults {
		switch f {
		case faultCommit503:
			l.srv.Inject(psp.CommitStatus(503))
		case faultDrop:
			l.srv.Inject(psp.Drop())
		case faultLate:
			l.srv.Inject(psp.Late(300 * time.Millisecond))
		case faultSlow:
			l.srv.Inject(psp.Slow(300 * time.Millisecond))
		case faultDown:
			l.srv.Inject(psp.Down(50 * time.Millisecond))
		case fault503:
			l.srv.Inject(psp.Status(503))
		case faultPending:
			l.srv.Inject(psp.Pending(100*time.Millisecond, "settled"))
		}
	}
}
