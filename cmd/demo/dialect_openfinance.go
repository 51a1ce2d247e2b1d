package main

import (
	"context"
	"crypto"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"pixretry/pix"
	"pixretry/pix/openfinance"
	"pixretry/psp"
	ofpsp "pixretry/psp/openfinance"
)

// The values the demo's Open Finance requests carry that the double's sandbox takes: those of
// the initiator, and of the payer who authorises every consent.
const (
	initiatorCNPJ = "50685362000135" // the cnpjInitiator of every payment
	initiatorISPB = "99999999"       // the ISPB that opens the endToEndIds the client makes
	payerCPF      = "11122233396"    // the payer, the consent's loggedUser
)

// sandboxCreditor is the payee the client names for every Pix key. A real initiator asks the
// DICT who holds a key. The double checks only that a payment names its consent's payee.
var sandboxCreditor = openfinance.Creditor{Name: "Maria da Silva", Document: "12345678909",
	Account: openfinance.Account{ISPB: "12345678", Issuer: "0001", Number: "1234567", Type: "CACC"}}

// maxKeySetLen bounds a JWK Set the demo reads from the PSP, in bytes.
const maxKeySetLen = 1 << 20

// openfinanceDialect is Open Finance Brasil payments v4 (packages pix/openfinance and
// psp/openfinance): POST ofpsp.PaymentsPath, a JWS signed anew for each attempt under an
// x-idempotency-key, and GET ofpsp.PaymentsPath/{paymentId}. Each payment consumes a consent,
// which the demo asks the PSP for first, and which the double authorises at once, as a sandbox
// does. The client signs with the key the double hands out at ofpsp.ClientKeyPath, and
// verifies the answers with the keys at ofpsp.JWKSPath. Times carry seconds.
var openfinanceDialect = &dialect{
	Name:          "openfinance",
	Want:          openfinanceExpectations,
	Precision:     time.Second,
	Short:         suffix,
	CoreCountsAll: false,
	ProbePath:     ofpsp.PaymentsPath,
	Serve:         serveOpenFinance,
	Speak:         speakOpenFinance,
	Sort: func(r *http.Request) (requestKind, string) {
		switch {
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, ofpsp.PaymentsPath):
			return paymentRequest, r.Header.Get("x-idempotency-key")
		case r.Method == http.MethodGet && (strings.HasSuffix(path.Dir(r.URL.Path), ofpsp.PaymentsPath) ||
			strings.HasSuffix(path.Dir(r.URL.Path), ofpsp.ConsentsPath)):
			return lookupRequest, "" // by the paymentId, or by the consentId when that is unknown
		}
		return otherRequest, ""
	},
}

// serveOpenFinance returns srv behind the v4 front end of package psp/openfinance, with its
// keys served at ofpsp.JWKSPath and ofpsp.ClientKeyPath. The front end generates its key pairs.
func serveOpenFinance(srv *psp.Server) (http.Handler, error) {
	v4, err := ofpsp.New(srv, ofpsp.Config{})
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle(ofpsp.JWKSPath, v4.Keys())
	mux.Handle(ofpsp.ClientKeyPath, v4.Keys())
	mux.Handle("/", v4)
	return mux, nil
}

// speakOpenFinance returns the Dialect of the client of t, whose keys it fetches through hc
// from the PSP, as a sandbox hands out credentials. The keys live beside the control API, so
// the fetch carries t's control token. It returns the step that asks the PSP for the consent
// of each payment, within controlTimeout.
func speakOpenFinance(ctx context.Context, t *target, hc *http.Client) (pix.Dialect, readyFunc, error) {
	client, err := fetchKeySet(ctx, hc, t.BaseURL+ofpsp.ClientKeyPath, t.ControlToken)
	if err != nil {
		return nil, nil, err
	}
	pspKeys, err := fetchKeySet(ctx, hc, t.BaseURL+ofpsp.JWKSPath, t.ControlToken)
	if err != nil {
		return nil, nil, err
	}
	signer, ok := client.Keys[0].Key.(crypto.Signer) // fetchKeySet returns at least one key
	if len(client.Keys) != 1 || !ok {
		return nil, nil, fmt.Errorf("demo: %s%s holds %d keys, want one private key", t.BaseURL, ofpsp.ClientKeyPath,
			len(client.Keys))
	}
	d := &openfinance.Dialect{Key: signer, KeyID: client.Keys[0].KeyID, Issuer: ofpsp.DefaultClientOrganisationID,
		PSPIssuer: ofpsp.DefaultOrganisationID, PSPKeys: pspKeys, CNPJInitiator: initiatorCNPJ, ISPB: initiatorISPB,
		Creditors: func(string) (openfinance.Creditor, error) { return sandboxCreditor, nil }}
	if err := d.Validate(); err != nil {
		return nil, nil, fmt.Errorf("demo: the keys of the PSP at %s: %w", t.BaseURL, err)
	}
	ready := func(ctx context.Context, c *pix.Client, p pix.Payment) (pix.Payment, error) {
		ctx, cancel := context.WithTimeout(ctx, controlTimeout)
		defer cancel()
		id, err := d.CreateConsent(ctx, c, payerCPF, p)
		p.ConsentID = id
		return p, err
	}
	return d, ready, nil
}

// fetchKeySet returns the JWK Set that a GET of url answers 200 with, through hc, with token as
// its bearer unless it is "". The set holds at least one key.
func fetchKeySet(ctx context.Context, hc *http.Client, url, token string) (jose.JSONWebKeySet, error) {
	var set jose.JSONWebKeySet
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, http.NoBody)
	if err != nil {
		return set, fmt.Errorf("demo: fetching keys: %w", err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return set, fmt.Errorf("demo: fetching keys: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxKeySetLen))
	switch {
	case err != nil:
		return set, fmt.Errorf("demo: fetching keys: GET %s: %w", url, err)
	case resp.StatusCode != http.StatusOK:
		return set, fmt.Errorf("demo: fetching keys: GET %s: status %d, want 200", url, resp.StatusCode)
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return set, fmt.Errorf("demo: fetching keys: GET %s: not a JWK Set: %w", url, err)
	}
	if len(set.Keys) == 0 {
		return set, fmt.Errorf("demo: fetching keys: GET %s: the JWK Set holds no key", url)
	}
	return set, nil
}
