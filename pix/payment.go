package pix

import (
	"encoding/json"
	"fmt"
	"regexp"
	"unicode/utf8"
)

// Limits of a Payment, the PSP's as well.
const (
	maxAmountCents    = 999_999_999_999 // 9,999,999,999.99
	maxDescriptionLen = 140             // characters (Unicode code points)
	maxEmailKeyLen    = 77              // bytes
)

// Payment is one Pix transfer from the payer to PixKey. Send checks every field before it
// sends anything.
type Payment struct {
	// AmountCents is the amount in centavos, so 15000 is R$ 150.00. It is between 1 and
	// 999,999,999,999.
	AmountCents int64
	// PixKey is the payee's key. It is a CPF (11 digits), a CNPJ (14 digits), a phone number
	// in E.164 ("+5511987654321"), an e-mail address (lower case, at most 77 characters) or an
	// EVP (a lower-case UUID).
	PixKey string
	// Description is the optional message to the payee (infoPagador). It is valid UTF-8 of at
	// most 140 characters.
	Description string
	// ConsentID is the payer's consent that the payment consumes, for a [Dialect] that pays
	// under one, such as Open Finance's. Other dialects ignore it.
	ConsentID string
}

// The five Pix key formats of the Central Bank's DICT. Digits are ASCII digits. Check digits
// of CPF and CNPJ are the PSP's business, not checked here.
var (
	cpfPattern   = regexp.MustCompile(`^[0-9]{11}$`)
	cnpjPattern  = regexp.MustCompile(`^[0-9]{14}$`)
	phonePattern = regexp.MustCompile(`^\+[1-9][0-9]{1,14}$`)
	evpPattern   = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	emailPattern = regexp.MustCompile(`^[a-z0-9.!#$%&'*+/=?^_\x60{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$`)
)

// idempotencyKeyPattern is the PSP's key, 1 to 255 visible ASCII characters.
var idempotencyKeyPattern = regexp.MustCompile(`^[!-~]{1,255}$`)

// validPixKey reports whether k is a Pix key in one of the five formats.
func validPixKey(k string) bool {
	return cpfPattern.MatchString(k) || cnpjPattern.MatchString(k) || phonePattern.MatchString(k) ||
		evpPattern.MatchString(k) || len(k) <= maxEmailKeyLen && emailPattern.MatchString(k)
}

// Validate checks p as Send and SendWithKey do before they send anything, and sends nothing. It
// returns nil for a valid payment, or an error wrapping [ErrInvalidPayment] that names the first
// broken rule: the same error that Send returns for p.
func (p Payment) Validate() error {
	if p.AmountCents < 1 || p.AmountCents > maxAmountCents {
		return fmt.Errorf("%w: AmountCents %d is not between 1 and %d", ErrInvalidPayment, p.AmountCents, maxAmountCents)
	}
	if !validPixKey(p.PixKey) {
		return fmt.Errorf("%w: PixKey %q is not a CPF, CNPJ, phone, e-mail or EVP key", ErrInvalidPayment, p.PixKey)
	}
	if !utf8.ValidString(p.Description) {
		return fmt.Errorf("%w: Description is not valid UTF-8", ErrInvalidPayment)
	}
	if n := utf8.RuneCountInString(p.Description); n > maxDescriptionLen {
		return fmt.Errorf("%w: Description has %d characters, more than %d", ErrInvalidPayment, n, maxDescriptionLen)
	}
	return nil
}

// validateKey returns an error wrapping ErrInvalidPayment unless key is 1 to 255 visible ASCII
// characters (0x21 to 0x7E).
func validateKey(key string) error {
	if !idempotencyKeyPattern.MatchString(key) {
		return fmt.Errorf("%w: Idempotency-Key %q is not 1 to 255 visible ASCII characters", ErrInvalidPayment, key)
	}
	return nil
}

// valor writes cents in the PSP's format, so 15000 is "150.00". cents must be positive.
func valor(cents int64) string {
	return fmt.Sprintf("%d.%02d", cents/100, cents%100)
}

// wirePayment is the request body of POST /v1/pix/payments.
type wirePayment struct {
	Valor       string `json:"valor"`
	Chave       string `json:"chave"`
	InfoPagador string `json:"infoPagador,omitempty"`
}

// body is p's request body.
func (p Payment) body() []byte {
	b, err := json.Marshal(wirePayment{Valor: valor(p.AmountCents), Chave: p.PixKey, InfoPagador: p.Description})
	if err != nil {
		panic(err) // unreachable, since a struct of three strings always encodes
	}
	return b
}
