package openfinance_test

import (
	"context"
	"crypto/rsa"
	"fmt"
	"net/http"
	"time"

	"pixretry/pix"
	"pixretry/pix/openfinance"
	"pixretry/psp"
	ofpsp "pixretry/psp/openfinance"
	"pixretry/psp/psptest"
	"pixretry/retry"
)

// A payment through the double's sandbox: the double makes both key pairs and hands out the
// client's, as a sandbox hands out credentials; the Dialect signs with it and verifies the
// double's answers with its JWKS. Each payment consumes a consent of its own.
func Example() {
	var sandbox *ofpsp.Server
	srv, err := psptest.NewServerBehind(psp.DefaultConfig(), func(core *psp.Server) http.Handler {
		sandbox, _ = ofpsp.New(core, ofpsp.Config{}) // a zero Config is valid
		return sandbox
	})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	credentials, _ := sandbox.ClientKey()

	d := &openfinance.Dialect{
		Key:           credentials.Key.(*rsa.PrivateKey), // an HSM's crypto.Signer does as well
		KeyID:         credentials.KeyID,
		Issuer:        ofpsp.DefaultClientOrganisationID,
		PSPIssuer:     ofpsp.DefaultOrganisationID,
		PSPKeys:       sandbox.PublicKeys(),
		CNPJInitiator: "50685362000135",
		ISPB:          "99999999",
		Creditors: func(pixKey string) (openfinance.Creditor, error) {
			return openfinance.Creditor{Name: "Maria da Silva", Document: "12345678909",
				Account: openfinance.Account{ISPB: "12345678", Issuer: "0001", Number: "1234567", Type: "CACC"}}, nil
		},
	}
	c := srv.Client(retry.Policy{AttemptsMax: 3, DelayBase: 100 * time.Millisecond, DelayMax: time.Second})
	c.Dialect = d

	ctx := context.Background()
	p := pix.Payment{AmountCents: 15000, PixKey: "pix@example.com", Description: "aluguel"}
	if p.ConsentID, err = d.CreateConsent(ctx, c, "11122233396", p); err != nil {
		panic(err)
	}
	r, err := c.Send(ctx, p)
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Status, r.AmountCents, r.PixKey, r.Attempts)
	fmt.Println("paymentId known:", r.Ref.PaymentID != "", "consent:", r.Ref.ConsentID == p.ConsentID)
	// Output:
	// REALIZADO 15000 pix@example.com 1
	// paymentId known: true consent: true
}
