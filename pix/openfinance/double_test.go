package openfinance_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"pixretry/pix"
	"pixretry/pix/openfinance"
	"pixretry/psp"
	ofpsp "pixretry/psp/openfinance"
	"pixretry/psp/psptest"
	"pixretry/retry"
)

// payer is the CPF of the payer who authorises the consents.
const payer = "11122233396"

// policy is the retry policy of the Clients of the tests.
var policy = retry.Policy{AttemptsMax: 4, DelayBase: 100 * time.Millisecond, DelayMax: time.Second}

// bank is the double speaking payments v4, served over in-memory pipes, with a Client of the
// Dialect that pays through it.
type bank struct {
	core   *psp.Server
	wire   *wire
	client *pix.Client
	d      *openfinance.Dialect
}

// newBank starts the double, a psp.Server of cfg behind its v4 front end, with the tests' keys
// and organisationIds, and closes it when the test ends: make it inside the bubble that uses
// it. Its Client has the policy, half draws and a 1 s attempt timeout, and trusts the keys
// the front end serves.
func newBank(t *testing.T, cfg psp.Config) *bank {
	t.Helper()
	k := testKeys()
	var v4 *ofpsp.Server
	var err error
	b := &bank{}
	srv, serr := psptest.NewServerBehind(cfg, func(core *psp.Server) http.Handler {
		v4, err = ofpsp.New(core, ofpsp.Config{OrganisationID: pspOrg, ClientOrganisationID: clientOrg,
			SigningKey: k.psp, ClientKeys: []jose.JSONWebKey{{Key: &k.client.PublicKey, KeyID: clientKID}}})
		b.wire = &wire{next: v4}
		return b.wire
	})
	if err = cmpOr(serr, err); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	b.core, b.d = srv.Server, newDialect()
	b.d.PSPKeys = v4.PublicKeys()
	b.client = srv.Client(policy)
	b.client.Dialect, b.client.AttemptTimeout, b.client.Jitter = b.d, time.Second, func() float64 { return 0.5 }
	return b
}

// cmpOr is the first of errs that is not nil.
func cmpOr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// consent returns p under a consent the double made for it.
func (b *bank) consent(t *testing.T, p pix.Payment) pix.Payment {
	t.Helper()
	id, err := b.d.CreateConsent(t.Context(), b.client, payer, p)
	if err != nil {
		t.Fatalf("CreateConsent() error = %v", err)
	}
	p.ConsentID = id
	return p
}

// settled returns the amounts of the ledger's settlements.
func (b *bank) settled() []int64 {
	var cents []int64
	for _, s := range b.core.Settlements() {
		cents = append(cents, s.AmountCents)
	}
	return cents
}

// wire is the double's handler, recording every request that reaches it.
type wire struct {
	next http.Handler
	mu   sync.Mutex
	reqs []request
}

// request is a request as the double received it.
type request struct {
	Method, Path, Key string
	Claims            map[string]any // of a signed body, read without verifying it; nil for none
	Data              string         // the data claim, as sent
}

func (w *wire) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	req := request{Method: r.Method, Path: r.URL.Path, Key: r.Header.Get("x-idempotency-key")}
	if jws, err := jose.ParseSignedCompact(string(body), []jose.SignatureAlgorithm{jose.PS256}); err == nil {
		payload := jws.UnsafePayloadWithoutVerification()
		var raw struct {
			Data json.RawMessage `json:"data"`
		}
		json.Unmarshal(payload, &req.Claims)
		json.Unmarshal(payload, &raw)
		req.Data = string(raw.Data)
	}
	w.mu.Lock()
	w.reqs = append(w.reqs, req)
	w.mu.Unlock()
	w.next.ServeHTTP(rw, r)
}

// requests returns the requests received so far, and forgets them.
func (w *wire) requests() []request {
	w.mu.Lock()
	defer w.mu.Unlock()
	reqs := w.reqs
	w.reqs = nil
	return reqs
}

// paths returns the method and path of each request.
func paths(reqs []request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Method+" "+strings.TrimPrefix(r.Path, ofpsp.BasePath))
	}
	return out
}
