package openfinance

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"

	"pixretry/pix"
)

// localInstrument is how every payment names its payee: DICT, a Pix key typed in ([spec]
// schema EnumLocalInstrument). The key goes in proxy, and the account it leads to in
// creditorAccount.
const localInstrument = "DICT"

// currency is the currency of every amount ([spec] schema PaymentPix).
const currency = "BRL"

// consentIDPattern is a consentId: a URN of at most 256 characters ([spec] parameter
// consentId).
var consentIDPattern = regexp.MustCompile(`^urn:[a-zA-Z0-9][a-zA-Z0-9\-]{0,31}:[a-zA-Z0-9()+,\-.:=@;$_!*'%/?#]+$`)

// maxConsentIDLen is the longest consentId, in bytes ([spec] parameter consentId).
const maxConsentIDLen = 256

// paymentData is one payment of the data claim of POST /pix/payments ([spec] schema
// CreatePixPayment). Every field is a function of the key and the payment, so that every
// attempt under a key carries the same data.
type paymentData struct {
	EndToEndID            string  `json:"endToEndId"`
	LocalInstrument       string  `json:"localInstrument"`
	Payment               money   `json:"payment"`
	CreditorAccount       account `json:"creditorAccount"`
	RemittanceInformation string  `json:"remittanceInformation,omitempty"`
	Proxy                 string  `json:"proxy"`
	CNPJInitiator         string  `json:"cnpjInitiator"`
	ConsentID             string  `json:"consentId"`
}

// money is an amount in reais ([spec] schema PaymentPix).
type money struct {
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

// account is an Account as the API writes it ([spec] schema CreditorAccount).
type account struct {
	ISPB        string `json:"ispb"`
	Issuer      string `json:"issuer,omitempty"`
	Number      string `json:"number"`
	AccountType string `json:"accountType"`
}

// Pay returns the request of one attempt to pay p under key: POST
// /open-banking/payments/v4/pix/payments ([spec] path /pix/payments), with key in the
// x-idempotency-key header, and a body signed now (see [Dialect.signed]).
//
// The body's data holds one payment, the same on every attempt under key: its endToEndId,
// made from key (see [Dialect.CheckKey]), p's amount in BRL, p.PixKey as the proxy with the
// account Creditors gives for it, p.Description as the remittanceInformation, CNPJInitiator,
// and p.ConsentID.
//
// Pay sends nothing and returns an error when d is not valid, when p has no ConsentID or one
// that is not a URN of at most 256 characters, and when Creditors fails or gives a Creditor
// whose Account is not valid. The last three errors wrap [pix.ErrInvalidPayment]: every
// payment consumes a consent ([spec] "Validações" item 2.2.2.5), and the payee's account is
// required ([spec] schema CreatePixPayment).
func (d *Dialect) Pay(ctx context.Context, base *url.URL, key string, p pix.Payment) (*http.Request, error) {
	data, err := d.paymentData(key, p)
	if err != nil {
		return nil, err
	}
	return d.post(ctx, below(base, paymentsPath), key, []paymentData{data})
}

// paymentData returns the data of p under key.
func (d *Dialect) paymentData(key string, p pix.Payment) (paymentData, error) {
	if err := d.Validate(); err != nil {
		return paymentData{}, err
	}
	if err := checkConsentID(p.ConsentID); err != nil {
		return paymentData{}, err
	}
	c, err := d.creditor(p.PixKey)
	if err != nil {
		return paymentData{}, err
	}
	return paymentData{
		EndToEndID:            endToEndID(d.ISPB, key),
		LocalInstrument:       localInstrument,
		Payment:               money{Amount: amount(p.AmountCents), Currency: currency},
		CreditorAccount:       c.Account.wire(),
		RemittanceInformation: p.Description,
		Proxy:                 p.PixKey,
		CNPJInitiator:         d.CNPJInitiator,
		ConsentID:             p.ConsentID,
	}, nil
}

// checkConsentID returns an error wrapping pix.ErrInvalidPayment unless id is a consentId.
func checkConsentID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("openfinance: %w: the payment has no ConsentID, and every payment consumes a consent",
			pix.ErrInvalidPayment)
	case len(id) > maxConsentIDLen || !consentIDPattern.MatchString(id):
		return fmt.Errorf("openfinance: %w: ConsentID %q is not a URN of at most %d characters", pix.ErrInvalidPayment,
			id, maxConsentIDLen)
	}
	return nil
}

// creditor returns the valid Creditor that d.Creditors gives for pixKey, or an error wrapping
// pix.ErrInvalidPayment.
func (d *Dialect) creditor(pixKey string) (Creditor, error) {
	c, err := d.Creditors(pixKey)
	if err == nil {
		err = c.Account.check()
	}
	if err != nil {
		return Creditor{}, fmt.Errorf("openfinance: %w: the creditor of Pix key %q: %w", pix.ErrInvalidPayment, pixKey,
			err)
	}
	return c, nil
}

// The account types ([spec] schema EnumAccountPaymentsType).
const (
	accountCurrent = "CACC"
	accountSavings = "SVGS"
	accountPrepaid = "TRAN"
)

// check returns an error that names the first field of a that breaks [spec] schema
// CreditorAccount, or nil.
func (a Account) check() error {
	switch {
	case !ispbPattern.MatchString(a.ISPB):
		return fmt.Errorf("its Account.ISPB %q is not 8 digits", a.ISPB)
	case a.Type != accountCurrent && a.Type != accountSavings && a.Type != accountPrepaid:
		return fmt.Errorf("its Account.Type %q is not CACC, SVGS or TRAN", a.Type)
	case a.Issuer == "" && a.Type != accountPrepaid:
		return fmt.Errorf("its Account.Issuer is empty, and a %s account needs one", a.Type)
	case a.Issuer != "" && !issuerPattern.MatchString(a.Issuer):
		return fmt.Errorf("its Account.Issuer %q is not 1 to 4 digits", a.Issuer)
	case !numberPattern.MatchString(a.Number):
		return fmt.Errorf("its Account.Number %q is not 1 to 20 digits", a.Number)
	}
	return nil
}

// wire is a as the API writes it.
func (a Account) wire() account {
	return account{ISPB: a.ISPB, Issuer: a.Issuer, Number: a.Number, AccountType: a.Type}
}

// amount writes cents as the API does, so 15000 is "150.00" ([spec] schema PaymentPix).
// cents is positive.
func amount(cents int64) string {
	return fmt.Sprintf("%d.%02d", cents/100, cents%100)
}
