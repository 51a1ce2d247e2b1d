package efi

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	"pixretry/pix"
)

// The statuses of a payment (the attributes, status).
const (
	statusPending  = "EM_PROCESSAMENTO"
	statusSettled  = "REALIZADO"
	statusRejected = "NAO_REALIZADO"
)

// valorPattern is the format of valor (the attributes, valor).
var valorPattern = regexp.MustCompile(`^[0-9]{1,10}\.[0-9]{2}$`)

// endToEndIDPattern is the Central Bank's endToEndId: E, an 8-digit ISPB, a yyyyMMddHHmm time
// and 11 letters and digits, such as E09089356202011251226APIff82f2e5 on the page.
var endToEndIDPattern = regexp.MustCompile(`^E[0-9]{20}[A-Za-z0-9]{11}$`)

// valor writes cents as Efí reads an amount, so 15000 is "150.00". cents is positive.
func valor(cents int64) string {
	return fmt.Sprintf("%d.%02d", cents/100, cents%100)
}

// parseValor reads an amount of an answer into cents. An amount not in valor's format, or
// of 0.00, is an error wrapping pix.ErrContract.
func parseValor(s string) (int64, error) {
	if !valorPattern.MatchString(s) {
		return 0, fmt.Errorf("%w: efi: valor %q is not an amount such as \"150.00\"", pix.ErrContract, s)
	}
	cents, _ := strconv.ParseInt(s[:len(s)-3]+s[len(s)-2:], 10, 64) // at most 12 digits
	if cents == 0 {
		return 0, fmt.Errorf("%w: efi: valor is %q", pix.ErrContract, s)
	}
	return cents, nil
}

// checkEndToEndID returns id, the member of an answer, or an error wrapping pix.ErrContract
// if it is not an endToEndId whose time is a real one.
func checkEndToEndID(member, id string) (string, error) {
	if !endToEndIDPattern.MatchString(id) {
		return "", fmt.Errorf("%w: efi: %s %q is not E, an ISPB, yyyyMMddHHmm and 11 letters and digits",
			pix.ErrContract, member, id)
	}
	if _, err := time.Parse("200601021504", id[9:21]); err != nil {
		return "", fmt.Errorf("%w: efi: %s %q holds no real time", pix.ErrContract, member, id)
	}
	return id, nil
}

// parseTime reads s, the member of an answer, an RFC 3339 time such as
// 2021-11-25T12:26:42.905Z, or returns an error wrapping pix.ErrContract.
func parseTime(member, s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: efi: %s %q is not an RFC 3339 time", pix.ErrContract, member, s)
	}
	return t, nil
}
