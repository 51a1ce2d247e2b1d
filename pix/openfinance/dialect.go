package openfinance

import (
	"crypto"
	"crypto/rsa"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Dialect is Open Finance Brasil payments v4, for [pix.Client.Dialect]. Set its fields before
// the first payment and leave them alone afterwards: it is then safe for concurrent use.
// [Dialect.Validate] says which field is wrong. A Dialect with a wrong field writes no request,
// so a payment or a lookup through it sends nothing.
//
// Its rules, each documented with its source where it applies:
//
//   - A key is 1 to 40 characters in x-idempotency-key, and here a UUIDv7, whose time makes
//     the endToEndId ([Dialect.CheckKey]). The PSP keeps it 24 hours ([Dialect.KeyTTL]).
//   - Each attempt is POST /pix/payments, signed anew with a new jti and iat, with the same
//     data, which names the payment's consent ([Dialect.Pay]).
//   - A 201 or 422 that the PSP's keys do not verify is an unknown outcome. A 201's status
//     is settled, pending or rejected, and a 422's code a refusal ([Dialect.Paid]).
//   - A payment is looked up by its paymentId, else by its consent, never by key. Only a
//     consent REJECTED proves that nothing was paid ([Dialect.Look], [Dialect.Seen]).
type Dialect struct {
	// Key signs every request, with PS256 ([signing], Passo 2): an RSA key of 2048 bits or
	// more. It may live in an HSM: only its Public method, and its Sign method with a SHA-256
	// digest and *rsa.PSSOptions, are called.
	Key crypto.Signer
	// KeyID is the kid of Key in the caller's JWKS, which the PSP verifies requests with.
	KeyID string
	// Issuer is the caller's organisationId in the Open Finance directory: the iss of every
	// request, and the aud the PSP's answers must carry ([security] item 3). The aud of a
	// request is the URL of the endpoint it calls, as the same item says.
	Issuer string
	// PSPIssuer is the PSP's organisationId: the iss its answers must carry ([security] item
	// 3).
	PSPIssuer string
	// PSPKeys are the PSP's public keys, as its JWKS in the directory publishes them. An
	// answer verifies only with the key its kid names ([security] item 6).
	PSPKeys jose.JSONWebKeySet
	// CNPJInitiator is the caller's CNPJ, 14 digits: the cnpjInitiator of every payment
	// ([spec] schema CreatePixPayment).
	CNPJInitiator string
	// ISPB is the 8 digits that open the endToEndIds the caller makes: its own ISPB, or its
	// settlement agent's ([spec] schema EndToEndIdWithoutRestriction).
	ISPB string
	// Creditors returns the payee a Pix key leads to, as the DICT names it: the holder and
	// the account, which the consent and the payment carry ([spec] schemas Identification
	// and CreditorAccount). It must return the same Creditor for a key on every call: the PSP
	// compares the data of every attempt under a key with the first's ([idempotency]).
	Creditors func(pixKey string) (Creditor, error)
}

// Creditor is the payee of a payment: who holds the account a Pix key leads to.
type Creditor struct {
	Name     string  // the holder's full name, or the company's, at most 120 characters
	Document string  // the holder's CPF (11 digits) or CNPJ (14 digits)
	Account  Account // the account paid
}

// Account is a Brazilian transactional account, as the spec's CreditorAccount.
type Account struct {
	ISPB   string // the 8-digit ISPB of the account's institution
	Issuer string // the branch, 1 to 4 digits without check digit; required for CACC and SVGS
	Number string // the account number with its check digit, 1 to 20 digits
	Type   string // CACC (current), SVGS (savings) or TRAN (prepaid payment account)
}

// keyTTL is how long the PSP keeps a key after its first use ([idempotency]).
const keyTTL = 24 * time.Hour

// The paths of the API under the PSP's base URL ([spec] servers and paths).
const (
	apiPath      = "open-banking/payments/v4"
	paymentsPath = apiPath + "/pix/payments"
	consentsPath = apiPath + "/consents"
)

// minKeyBits is the smallest RSA key that signs: the Open Finance signing certificates are
// RSA 2048.
const minKeyBits = 2048

var (
	cnpjPattern   = regexp.MustCompile(`^[0-9]{14}$`)
	ispbPattern   = regexp.MustCompile(`^[0-9]{8}$`)
	issuerPattern = regexp.MustCompile(`^[0-9]{1,4}$`)
	numberPattern = regexp.MustCompile(`^[0-9]{1,20}$`)
)

// errInvalidDialect is wrapped by the error of a Dialect with a wrong field.
var errInvalidDialect = errors.New("openfinance: invalid Dialect")

// KeyTTL returns 24 hours, how long the PSP keeps a key after its first use ([idempotency]).
func (*Dialect) KeyTTL() time.Duration { return keyTTL }

// Validate returns nil if every field of d is set as its documentation says, and otherwise an
// error that names the first field that is not. It sends nothing, calls only the Public method
// of Key, and does not call Creditors.
func (d *Dialect) Validate() error {
	if d.Key == nil {
		return fmt.Errorf("%w: Key is nil", errInvalidDialect)
	}
	pub, ok := d.Key.Public().(*rsa.PublicKey)
	switch {
	case !ok:
		return fmt.Errorf("%w: Key is not an RSA key", errInvalidDialect)
	case pub.N.BitLen() < minKeyBits:
		return fmt.Errorf("%w: Key has %d bits, want %d or more", errInvalidDialect, pub.N.BitLen(), minKeyBits)
	case d.KeyID == "":
		return fmt.Errorf("%w: KeyID is empty", errInvalidDialect)
	case d.Issuer == "":
		return fmt.Errorf("%w: Issuer is empty", errInvalidDialect)
	case d.PSPIssuer == "":
		return fmt.Errorf("%w: PSPIssuer is empty", errInvalidDialect)
	case len(d.PSPKeys.Keys) == 0:
		return fmt.Errorf("%w: PSPKeys has no key", errInvalidDialect)
	case !cnpjPattern.MatchString(d.CNPJInitiator):
		return fmt.Errorf("%w: CNPJInitiator %q is not 14 digits", errInvalidDialect, d.CNPJInitiator)
	case !ispbPattern.MatchString(d.ISPB):
		return fmt.Errorf("%w: ISPB %q is not 8 digits", errInvalidDialect, d.ISPB)
	case d.Creditors == nil:
		return fmt.Errorf("%w: Creditors is nil", errInvalidDialect)
	}
	return nil
}
