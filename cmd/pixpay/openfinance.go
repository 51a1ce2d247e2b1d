package main

// Open Finance Brasil payments v4, as pixpay speaks it with -dialect openfinance: the values its
// requests carry, and the consent that each payment consumes.

import (
	"context"
	"errors"
	"fmt"

	"pixretry/durable"
	"pixretry/pix"
	"pixretry/pix/openfinance"
	ofpsp "pixretry/psp/openfinance"
)

// The values of pixpay's Open Finance requests that it takes no option for: those the
// double's sandbox takes. Against another PSP they would be the initiator's own, and the
// payer's.
const (
	initiatorCNPJ = "50685362000135" // the initiator's CNPJ, the cnpjInitiator of every payment
	initiatorISPB = "99999999"       // the ISPB that opens the endToEndIds pixpay makes
	payerCPF      = "11122233396"    // the payer who authorises every consent, its loggedUser
)

// sandboxCreditor is the payee that pixpay names for every Pix key. A real initiator asks the
// DICT who holds a key. pixpay has no DICT to ask, and the double checks only that a payment
// names its consent's payee.
var sandboxCreditor = openfinance.Creditor{Name: "Maria da Silva", Document: "12345678909",
	Account: openfinance.Account{ISPB: "12345678", Issuer: "0001", Number: "1234567", Type: "CACC"}}

// newOpenFinance returns the Dialect of -dialect openfinance, which signs with the key of the
// file signingKey and verifies answers with the keys of the file pspKeys. A file "" leaves its
// keys for ready to fetch from the double.
func newOpenFinance(signingKey, pspKeys string) (*openfinance.Dialect, error) {
	d := &openfinance.Dialect{Issuer: ofpsp.DefaultClientOrganisationID, PSPIssuer: ofpsp.DefaultOrganisationID,
		CNPJInitiator: initiatorCNPJ, ISPB: initiatorISPB,
		Creditors: func(string) (openfinance.Creditor, error) { return sandboxCreditor, nil }}
	var err error
	if signingKey != "" {
		d.Key, d.KeyID, err = readSigningKey(signingKey)
	}
	if err == nil && pspKeys != "" {
		d.PSPKeys, err = readPSPKeys(pspKeys)
	}
	return d, err
}

// ready fetches from the double at base the keys that d lacks: the client key it hands out,
// as a sandbox hands out credentials, and its JWKS. It then checks d. ready must return
// before d writes its first request: d is not safe to change while in use.
func ready(ctx context.Context, d *openfinance.Dialect, base string) error {
	if d.Key == nil {
		set, err := fetchKeys(ctx, base, ofpsp.ClientKeyPath)
		if err == nil {
			d.Key, d.KeyID, err = signingJWK(set)
		}
		if err != nil {
			return fmt.Errorf("pixpay: no -signing-key, and the PSP at %s hands out no client key at %s: %w", base,
				ofpsp.ClientKeyPath, err)
		}
	}
	if len(d.PSPKeys.Keys) == 0 {
		set, err := fetchKeys(ctx, base, ofpsp.JWKSPath)
		if err == nil {
			set, err = publicRSA(set)
		}
		if err != nil {
			return fmt.Errorf("pixpay: no -psp-keys, and the PSP at %s publishes no keys at %s: %w", base, ofpsp.JWKSPath, err)
		}
		d.PSPKeys = set
	}
	if err := d.Validate(); err != nil {
		return fmt.Errorf("pixpay: the Open Finance keys: %w", err)
	}
	return nil
}

// newConsent returns what makes the consent of a payment added without -consent: ready, then
// a consent that the PSP of c creates through d for payerCPF, within c's AttemptTimeout. The
// double authorises it at once, as a sandbox does.
func newConsent(d *openfinance.Dialect, c *pix.Client) func(context.Context, pix.Payment) (string, error) {
	return func(ctx context.Context, p pix.Payment) (string, error) {
		if err := ready(ctx, d, c.BaseURL); err != nil {
			return "", err
		}
		ctx, cancel := context.WithTimeout(ctx, c.AttemptTimeout)
		defer cancel()
		return d.CreateConsent(ctx, c, payerCPF, p)
	}
}

// add stores cmd's payment as an intent under cmd.id. A payment that needs a consent from the
// PSP (cmd.newConsent) takes the one stored under cmd.id, so that add again returns the
// intent, or a new one. A consent made for an add that then fails does no harm: it expires
// unconsumed. Without a consent, nothing is stored.
func add[TTx any](ctx context.Context, p *durable.Payer[TTx], cmd command) (durable.Intent, error) {
	payment := cmd.payment
	if cmd.newConsent != nil {
		in, err := p.Intent(ctx, cmd.id)
		switch {
		case err == nil:
			payment.ConsentID = in.Payment.ConsentID // Pay compares the rest
		case errors.Is(err, durable.ErrNotFound):
			if payment.ConsentID, err = cmd.newConsent(ctx, payment); err != nil {
				return durable.Intent{}, fmt.Errorf("pixpay add: no consent for intent %q, so nothing is stored: %w", cmd.id, err)
			}
		default:
			return durable.Intent{}, err
		}
	}
	return p.Pay(ctx, cmd.id, payment)
}
