package psp

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ErrInvalidAmount is wrapped by every error from ParseAmount and ParseBalance.
var ErrInvalidAmount = errors.New("psp: invalid amount")

// amountPattern is the contract's valor format: whole reais, a dot, two digits of centavos.
var amountPattern = regexp.MustCompile(`^\d{1,10}\.\d{2}$`)

// ParseAmount converts a payment amount in the contract's valor format to cents: 1 to 10
// ASCII digits, a dot and exactly 2 digits ("150.00" is 15000), greater than zero. Leading
// zeros are allowed ("0150.00" is 15000 too). Any other string gets an error wrapping
// ErrInvalidAmount.
func ParseAmount(s string) (cents int64, err error) {
	cents, err = ParseBalance(s)
	if err != nil {
		return 0, err
	}
	if cents == 0 {
		return 0, fmt.Errorf("%w: %q is not greater than zero", ErrInvalidAmount, s)
	}
	return cents, nil
}

// ParseBalance is ParseAmount without the "greater than zero" rule: "0.00" is 0. It reads
// balances, which may be empty.
func ParseBalance(s string) (cents int64, err error) {
	if !amountPattern.MatchString(s) {
		return 0, fmt.Errorf("%w: %q is not 1 to 10 digits, a dot and 2 digits", ErrInvalidAmount, s)
	}
	// At most 12 digits once the dot is gone: no overflow, no error.
	return strconv.ParseInt(strings.Replace(s, ".", "", 1), 10, 64)
}

// FormatAmount writes cents in the valor format: 15000 is "150.00", 5 is "0.05". A negative
// amount gets a leading minus sign ("-1.50"), which ParseAmount does not accept.
func FormatAmount(cents int64) string {
	sign, abs := "", uint64(cents)
	if cents < 0 {
		sign, abs = "-", -abs // unsigned negation is exact even for math.MinInt64
	}
	return fmt.Sprintf("%s%d.%02d", sign, abs/100, abs%100)
}
