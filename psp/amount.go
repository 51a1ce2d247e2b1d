package psp

import (
	"errors"
	"fmt"
	"strings"
)

// errInvalidAmount is wrapped by every error of parseAmount and ParseBalance.
var errInvalidAmount = errors.New("psp: invalid amount")

// parseAmount is ParseBalance for a payment amount, which must be greater than zero.
func parseAmount(s string) (cents int64, err error) {
	cents, err = ParseBalance(s)
	if err != nil {
		return 0, err
	}
	if cents == 0 {
		return 0, fmt.Errorf("%w: %q is not greater than zero", errInvalidAmount, s)
	}
	return cents, nil
}

// ParseBalance converts an amount in the valor format of the HTTP contract to cents. The format
// is 1 to 10 ASCII digits, a dot and exactly 2 digits (`^\d{1,10}\.\d{2}$`), so "150.00" is
// 15000. Leading zeros are allowed, and "0.00" is 0. Any other string is an error.
func ParseBalance(s string) (cents int64, err error) {
	reais, centavos, _ := strings.Cut(s, ".")
	if !digits(reais, 1, 10) || !digits(centavos, 2, 2) { // no dot leaves centavos empty
		return 0, fmt.Errorf("%w: %q is not 1 to 10 digits, a dot and 2 digits", errInvalidAmount, s)
	}
	for _, d := range reais + centavos { // at most 12 digits: no overflow
		cents = cents*10 + int64(d-'0')
	}
	return cents, nil
}

// digits reports whether s is from least to most ASCII digits.
func digits(s string, least, most int) bool {
	if len(s) < least || len(s) > most {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// FormatAmount writes cents in the valor format, so 15000 is "150.00" and 5 is "0.05". A
// negative amount gets a leading minus sign, which ParseBalance does not accept.
func FormatAmount(cents int64) string {
	sign, abs := "", uint64(cents)
	if cents < 0 {
		sign, abs = "-", -abs // unsigned negation is exact even for math.MinInt64
	}
	return fmt.Sprintf("%s%d.%02d", sign, abs/100, abs%100)
}
