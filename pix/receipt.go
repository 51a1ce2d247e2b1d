package pix

import (
	"encoding/json"
	"fmt"
	"regexp"
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
	Replayed       bool      // the PSP answered with its stored outcome (Idempotent-Replayed: true)
	Attempts       int       // the attempts made, the successful one included
}

// endToEndIDPattern is E, an 8-digit ISPB, a 12-digit yyyyMMddHHmm time and 11 alphanumerics.
var endToEndIDPattern = regexp.MustCompile(`^E[0-9]{20}[A-Za-z0-9]{11}$`)

// settledBody is the body of a 201. Unknown members are ignored, so that the PSP can add some.
type settledBody struct {
	EndToEndID string `json:"endToEndId"`
	Valor      string `json:"valor"`
	Chave      string `json:"chave"`
	Status     string `json:"status"`
	Horario    string `json:"horario"`
}

// settled checks a 201's body against the contract and the payment it answers, and returns
// the receipt's fields from it. Any breach is an error wrapping ErrContract.
func settled(body []byte, p Payment) (Receipt, error) {
	if len(body) > bodyLimit {
		return Receipt{}, fmt.Errorf("%w: the 201 body is over %d bytes", ErrContract, bodyLimit)
	}
	var b settledBody
	if err := json.Unmarshal(body, &b); err != nil {
		return Receipt{}, fmt.Errorf("%w: the 201 body is not the expected JSON: %v", ErrContract, err)
	}
	if err := b.check(p); err != nil {
		return Receipt{}, err
	}
	settledAt, err := time.Parse(time.RFC3339, b.Horario)
	if err != nil {
		return Receipt{}, fmt.Errorf("%w: horario %q is not an RFC 3339 time", ErrContract, b.Horario)
	}
	return Receipt{EndToEndID: b.EndToEndID, AmountCents: p.AmountCents, PixKey: p.PixKey,
		Status: b.Status, SettledAt: settledAt}, nil
}

// check reports the first member of b that breaks the contract for payment p.
func (b settledBody) check(p Payment) error {
	if !endToEndIDPattern.MatchString(b.EndToEndID) || !validIDTime(b.EndToEndID[9:21]) {
		return fmt.Errorf("%w: endToEndId %q is not E, an ISPB, yyyyMMddHHmm and 11 alphanumerics",
			ErrContract, b.EndToEndID)
	}
	if b.Valor != valor(p.AmountCents) || b.Chave != p.PixKey {
		return fmt.Errorf("%w: the 201 is for valor %q and chave %q, not the %q and %q requested",
			ErrContract, b.Valor, b.Chave, valor(p.AmountCents), p.PixKey)
	}
	if b.Status != statusSettled {
		return fmt.Errorf("%w: the 201 has status %q, want %q", ErrContract, b.Status, statusSettled)
	}
	return nil
}

// validIDTime reports whether s, the time inside an endToEndId, is a real yyyyMMddHHmm.
func validIDTime(s string) bool {
	_, err := time.Parse("200601021504", s)
	return err == nil
}
