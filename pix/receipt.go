package pix

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// statusSettled is the status of a settled Pix payment, the only one a 201 may carry.
const statusSettled = "REALIZADO"

// Receipt is the PSP's proof that a payment settled.
type Receipt struct {
	EndToEndID     string    // the payment's unique Pix id, E + ISPB + yyyyMMddHHmm + 11 characters
	AmountCents    int64     // the amount settled, in centavos
	PixKey         string    // the payee's key
	Status         string    // "REALIZADO", which means settled
	SettledAt      time.Time // when the PSP settled the payment (its horario)
	IdempotencyKey string    // the key that every attempt carried
	Replayed       bool      // the PSP answered with its stored outcome (Idempotent-Replayed: true), or a lookup found it
	Attempts       int       // the attempts made, the successful one included: a lookup's, if a lookup found it
}

// endToEndIDPattern is E, an 8-digit ISPB, a 12-digit yyyyMMddHHmm time and 11 alphanumerics.
var endToEndIDPattern = regexp.MustCompile(`^E[0-9]{20}[A-Za-z0-9]{11}$`)

// settledBody is the body of a 201, and of a lookup's 200. Unknown members are ignored, so
// that the PSP can add some.
type settledBody struct {
	EndToEndID  string `json:"endToEndId"`
	Valor       string `json:"valor"`
	Chave       string `json:"chave"`
	InfoPagador string `json:"infoPagador"`
	Status      string `json:"status"`
	Horario     string `json:"horario"`
}

// settled checks a 201's body against the contract and the payment it answers, and returns
// the receipt's fields from it. Any breach is an error wrapping ErrContract.
func settled(body []byte, p Payment) (Receipt, error) {
	r, _, err := parseReceipt(http.StatusCreated, body)
	if err != nil {
		return Receipt{}, err
	}
	if r.AmountCents != p.AmountCents || r.PixKey != p.PixKey {
		return Receipt{}, fmt.Errorf("%w: the 201 is for valor %q and chave %q, not the %q and %q requested",
			ErrContract, valor(r.AmountCents), r.PixKey, valor(p.AmountCents), p.PixKey)
	}
	return r, nil
}

// parseReceipt checks the body of a settlement, a 201 or a lookup's 200 as status says,
// against the contract. It returns the receipt's fields from it and its infoPagador. Any
// breach is an error wrapping ErrContract.
func parseReceipt(status int, body []byte) (Receipt, string, error) {
	if len(body) > bodyLimit {
		return Receipt{}, "", fmt.Errorf("%w: the %d body is over %d bytes", ErrContract, status, bodyLimit)
	}
	var b settledBody
	if err := json.Unmarshal(body, &b); err != nil {
		return Receipt{}, "", fmt.Errorf("%w: the %d body is not the expected JSON: %v", ErrContract, status, err)
	}
	cents, err := b.check(status)
	if err != nil {
		return Receipt{}, "", err
	}
	settledAt, err := time.Parse(time.RFC3339, b.Horario)
	if err != nil {
		return Receipt{}, "", fmt.Errorf("%w: horario %q is not an RFC 3339 time", ErrContract, b.Horario)
	}
	return Receipt{EndToEndID: b.EndToEndID, AmountCents: cents, PixKey: b.Chave,
		Status: b.Status, SettledAt: settledAt}, b.InfoPagador, nil
}

// check reports the first member of b, the body of a status answer, that breaks the contract,
// and returns valor in cents.
func (b settledBody) check(status int) (int64, error) {
	if !endToEndIDPattern.MatchString(b.EndToEndID) || !validIDTime(b.EndToEndID[9:21]) {
		return 0, fmt.Errorf("%w: endToEndId %q is not E, an ISPB, yyyyMMddHHmm and 11 alphanumerics",
			ErrContract, b.EndToEndID)
	}
	cents, ok := parseValor(b.Valor)
	if !ok || !validPixKey(b.Chave) {
		return 0, fmt.Errorf("%w: the %d has valor %q and chave %q, not an amount and a Pix key",
			ErrContract, status, b.Valor, b.Chave)
	}
	if b.Status != statusSettled {
		return 0, fmt.Errorf("%w: the %d has status %q, want %q", ErrContract, status, b.Status, statusSettled)
	}
	return cents, nil
}

// parseValor reads an amount as valor writes it, such as "150.00", into cents. It reports
// false for anything else, and for an amount outside 1 to 999,999,999,999 cents. Writing the
// cents back rejects whatever ParseInt could not read, or read in another form ("+1.5").
func parseValor(s string) (int64, bool) {
	units, hundredths, _ := strings.Cut(s, ".")
	u, _ := strconv.ParseInt(units, 10, 64)
	h, _ := strconv.ParseInt(hundredths, 10, 64)
	cents := u*100 + h
	return cents, cents >= 1 && cents <= maxAmountCents && valor(cents) == s
}

// validIDTime reports whether s, the time inside an endToEndId, is a real yyyyMMddHHmm.
func validIDTime(s string) bool {
	_, err := time.Parse("200601021504", s)
	return err == nil
}
