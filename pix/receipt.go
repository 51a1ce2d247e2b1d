package pix

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The statuses of a Pix payment that the PSP's answers carry. A 201 carries only
// statusSettled, a 202 only statusPending, and a lookup's 200 statusSettled or statusRejected.
const (
	statusSettled  = "REALIZADO"        // settled
	statusPending  = "EM_PROCESSAMENTO" // accepted, and neither settled nor rejected yet
	statusRejected = "NAO_REALIZADO"    // accepted, then rejected: nothing was paid
)

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
	Ref            Ref       // the PSP's ids of the payment, for a Dialect that gives them
}

// endToEndIDPattern is E, an 8-digit ISPB, a 12-digit yyyyMMddHHmm time and 11 alphanumerics.
var endToEndIDPattern = regexp.MustCompile(`^E[0-9]{20}[A-Za-z0-9]{11}$`)

// statusBody is the body of a 201, a 202 and a lookup's 200. Unknown members are ignored, so
// that the PSP can add some.
type statusBody struct {
	EndToEndID  string `json:"endToEndId"`
	Valor       string `json:"valor"`
	Chave       string `json:"chave"`
	InfoPagador string `json:"infoPagador"`
	Status      string `json:"status"`
	Horario     string `json:"horario"`
	Motivo      string `json:"motivo"`
}

// parseStatus checks the body of a status answer, a 201, a 202 or a lookup's 200 as code says,
// against the double's contract, and returns what it says of its payment. Any breach is an
// error wrapping ErrContract.
func parseStatus(code int, body []byte) (Found, error) {
	if len(body) > bodyLimit {
		return Found{}, fmt.Errorf("%w: the %d body is over %d bytes", ErrContract, code, bodyLimit)
	}
	var b statusBody
	if err := json.Unmarshal(body, &b); err != nil {
		return Found{}, fmt.Errorf("%w: the %d body is not the expected JSON: %v", ErrContract, code, err)
	}
	cents, err := b.check(code)
	if err != nil {
		return Found{}, err
	}
	at, err := time.Parse(time.RFC3339, b.Horario)
	if err != nil {
		return Found{}, fmt.Errorf("%w: horario %q is not an RFC 3339 time", ErrContract, b.Horario)
	}
	return Found{State: states[b.Status], EndToEndID: b.EndToEndID, AmountCents: cents, PixKey: b.Chave,
		Description: b.InfoPagador, At: at, Reason: b.Motivo}, nil
}

// states maps the double's statuses to the States they stand for.
var states = map[string]State{statusSettled: Settled, statusPending: Pending, statusRejected: Rejected}

// isFor checks that f, read from an answer with code to a payment, is for p: the same valor
// and chave. Any other payment breaks the contract, and the error wraps ErrContract.
func (f Found) isFor(code int, p Payment) error {
	if f.AmountCents != p.AmountCents || f.PixKey != p.PixKey {
		return fmt.Errorf("%w: the %d is for valor %q and chave %q, not the %q and %q requested",
			ErrContract, code, valor(f.AmountCents), f.PixKey, valor(p.AmountCents), p.PixKey)
	}
	return nil
}

// check reports the first member of b, the body of a status answer with code, that breaks the
// contract, and returns valor in cents.
func (b statusBody) check(code int) (int64, error) {
	if !endToEndIDPattern.MatchString(b.EndToEndID) || !validIDTime(b.EndToEndID[9:21]) {
		return 0, fmt.Errorf("%w: endToEndId %q is not E, an ISPB, yyyyMMddHHmm and 11 alphanumerics",
			ErrContract, b.EndToEndID)
	}
	cents, ok := parseValor(b.Valor)
	if !ok || !validPixKey(b.Chave) {
		return 0, fmt.Errorf("%w: the %d has valor %q and chave %q, not an amount and a Pix key",
			ErrContract, code, b.Valor, b.Chave)
	}
	if want := statusesOf(code); !slices.Contains(want, b.Status) {
		return 0, fmt.Errorf("%w: the %d has status %q, want %s", ErrContract, code, b.Status, orList(want))
	}
	return cents, nil
}

// statusesOf are the statuses that an answer with code may carry.
func statusesOf(code int) []string {
	switch code {
	case http.StatusCreated:
		return []string{statusSettled}
	case http.StatusAccepted:
		return []string{statusPending}
	}
	return []string{statusSettled, statusRejected} // a lookup's 200
}

// orList quotes each of words and joins them with "or".
func orList(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = strconv.Quote(w)
	}
	return strings.Join(quoted, " or ")
}

// receipt is the receipt of f, a settled payment, with the fields the answer gives.
func (f Found) receipt() Receipt {
	return Receipt{EndToEndID: f.EndToEndID, AmountCents: f.AmountCents, PixKey: f.PixKey, Status: statusSettled,
		SettledAt: f.At, Ref: f.Ref}
}

// notSettled is the error of a payment pending or rejected: an error wrapping ErrPending or
// ErrRejected that says the endToEndId, and when the PSP accepted or rejected the payment.
func (f Found) notSettled() error {
	at := f.At.UTC().Format(time.RFC3339Nano)
	if f.State == Rejected {
		return fmt.Errorf("%w: endToEndId %s, rejected at %s: %s", ErrRejected, f.EndToEndID, at,
			cmp.Or(f.Reason, "no motivo given"))
	}
	return fmt.Errorf("%w: endToEndId %s, accepted at %s", ErrPending, f.EndToEndID, at)
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
