package openfinance

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"time"
	"unicode/utf8"

	"pixretry/pix"
)

// paymentType is the type of every consent's payment ([spec] schema EnumPaymentType).
const paymentType = "PIX"

// The person types of a creditor, by the length of its document ([spec] schema
// EnumPaymentPersonType).
const (
	personNatural = "PESSOA_NATURAL"
	personLegal   = "PESSOA_JURIDICA"
)

// maxNameLen is the longest creditor name, in characters ([spec] schema Identification).
const maxNameLen = 120

// maxAnswerLen is the longest answer CreateConsent reads, in bytes, as pix reads at most 64
// KiB: a longer one breaks the contract.
const maxAnswerLen = 64 << 10

// brasilia is how far Brasília's clocks are from UTC, which makes a consent's date: 3 hours
// behind, with no summer time since 2019.
const brasilia = -3 * time.Hour

var (
	cpfPattern      = regexp.MustCompile(`^[0-9]{11}$`)
	documentPattern = regexp.MustCompile(`^[0-9]{11}$|^[0-9]{14}$`)
	namePattern     = regexp.MustCompile(`^[A-Za-zÀ-ÖØ-öø-ÿ,.@:&*+_<>()!?/\\$%0-9' -]+$`)
)

// consentData is the data claim of POST /consents ([spec] schema CreatePaymentConsent).
type consentData struct {
	LoggedUser loggedUser     `json:"loggedUser"`
	Creditor   identification `json:"creditor"`
	Payment    consentPayment `json:"payment"`
}

// loggedUser is the payer, as the initiator knows them ([spec] schema LoggedUser).
type loggedUser struct {
	Document document `json:"document"`
}

type document struct {
	Identification string `json:"identification"`
	Rel            string `json:"rel"`
}

// identification is the creditor ([spec] schema Identification).
type identification struct {
	PersonType string `json:"personType"`
	CPFCNPJ    string `json:"cpfCnpj"`
	Name       string `json:"name"`
}

// consentPayment is the payment a consent allows ([spec] schema CreatePaymentConsent).
type consentPayment struct {
	Type     string  `json:"type"`
	Date     string  `json:"date"`
	Currency string  `json:"currency"`
	Amount   string  `json:"amount"`
	Details  details `json:"details"`
}

// details is how the payee is named ([spec] schema Details).
type details struct {
	LocalInstrument string  `json:"localInstrument"`
	Proxy           string  `json:"proxy"`
	CreditorAccount account `json:"creditorAccount"`
}

// CreateConsent asks the PSP that c pays through for a consent to pay p today, from the
// account of the payer whose CPF is payer, and returns its consentId for p.ConsentID.
//
// It makes one request, POST /open-banking/payments/v4/consents ([spec] path /consents),
// signed as [Dialect.Pay] signs, under a fresh key, with c's BaseURL, Token and HTTPClient
// (http.DefaultClient if nil): ctx bounds it. The consent holds p's amount, p.PixKey and the
// Creditor that Creditors gives for it. The PSP's payer then authorises it, and a payment
// consumes it within 60 minutes of that, or it is REJECTED ([spec] schema
// ResponsePaymentConsent, expirationDateTime). A consent created but lost does no harm: it
// expires.
//
// Nothing is sent when d is not valid, p is not ([pix.Payment.Validate]), payer is not 11
// digits, or the Creditor is not valid, with a Name and a Document. The last three errors wrap
// [pix.ErrInvalidPayment]. A request that fails, or an answer that cannot be read, is an
// error wrapping the HTTP client's. An answer other than a signed 201 is an [*pix.Error], or,
// if not signed by the PSP or over 64 KiB, an error wrapping [pix.ErrContract].
func (d *Dialect) CreateConsent(ctx context.Context, c *pix.Client, payer string, p pix.Payment) (string, error) {
	req, err := d.consentRequest(ctx, c, payer, p)
	if err != nil {
		return "", err
	}
	hc := c.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("openfinance: creating a consent: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerLen+1))
	if err != nil {
		return "", fmt.Errorf("openfinance: reading the consent's %d answer: %w", resp.StatusCode, err)
	}
	if len(body) > maxAnswerLen {
		return "", contractError("the consent's %d answer is over %d bytes", resp.StatusCode, maxAnswerLen)
	}
	return d.consentID(pix.Answer{Status: resp.StatusCode, Header: resp.Header, Body: body})
}

// consentRequest returns the request of CreateConsent, or an error when it cannot be written.
func (d *Dialect) consentRequest(ctx context.Context, c *pix.Client, payer string, p pix.Payment) (*http.Request, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if !cpfPattern.MatchString(payer) {
		return nil, fmt.Errorf("openfinance: %w: the payer's CPF %q is not 11 digits", pix.ErrInvalidPayment, payer)
	}
	cr, err := d.creditor(p.PixKey)
	if err == nil {
		err = cr.checkHolder(p.PixKey)
	}
	if err != nil {
		return nil, err
	}
	base, err := url.Parse(c.BaseURL)
	if err != nil || base.Scheme != "http" && base.Scheme != "https" || base.Host == "" {
		return nil, fmt.Errorf("openfinance: the Client's BaseURL %q is not an absolute http or https URL", c.BaseURL)
	}
	req, err := d.post(ctx, below(base, consentsPath), d.NewKey(), consentData{
		LoggedUser: loggedUser{Document: document{Identification: payer, Rel: "CPF"}},
		Creditor:   identification{PersonType: cr.personType(), CPFCNPJ: cr.Document, Name: cr.Name},
		Payment: consentPayment{Type: paymentType, Date: time.Now().UTC().Add(brasilia).Format(time.DateOnly),
			Currency: currency, Amount: amount(p.AmountCents),
			Details: details{LocalInstrument: localInstrument, Proxy: p.PixKey, CreditorAccount: cr.Account.wire()}},
	})
	if err == nil {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	return req, err
}

// checkHolder returns an error wrapping pix.ErrInvalidPayment unless c, the creditor of
// pixKey, has the Name and Document that a consent needs ([spec] schema Identification).
func (c Creditor) checkHolder(pixKey string) error {
	var err error
	switch {
	case !documentPattern.MatchString(c.Document):
		err = fmt.Errorf("its Document %q is not a CPF of 11 digits or a CNPJ of 14", c.Document)
	case utf8.RuneCountInString(c.Name) > maxNameLen || !namePattern.MatchString(c.Name):
		err = fmt.Errorf("its Name %q is not 1 to %d letters, digits, spaces and punctuation", c.Name, maxNameLen)
	}
	if err != nil {
		return fmt.Errorf("openfinance: %w: the creditor of Pix key %q: %w", pix.ErrInvalidPayment, pixKey, err)
	}
	return nil
}

// personType is PESSOA_NATURAL for a CPF, and PESSOA_JURIDICA for a CNPJ.
func (c Creditor) personType() string {
	if len(c.Document) == len("12345678901") {
		return personNatural
	}
	return personLegal
}

// consentID reads a, the answer to POST /consents: a signed 201 ([spec] schema
// ResponseCreatePaymentConsent) whose consentId it returns.
func (d *Dialect) consentID(a pix.Answer) (string, error) {
	switch a.Status {
	case http.StatusCreated:
	case http.StatusUnprocessableEntity:
		return "", d.refusal(a, nil)
	default:
		return "", failure(a)
	}
	payload, err := d.verified(a)
	if err != nil {
		return "", err
	}
	var body struct {
		Data *consentAnswer `json:"data"`
	}
	if err := json.Unmarshal(payload, &body); err != nil || body.Data == nil {
		return "", contractError("the consent's 201 has no data")
	}
	if err := checkConsentID(body.Data.ConsentID); err != nil {
		return "", contractError("the consent's 201 has consentId %q, not a URN", body.Data.ConsentID)
	}
	return body.Data.ConsentID, nil
}
