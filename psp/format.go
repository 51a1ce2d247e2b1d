package psp

import (
	"fmt"
	"regexp"
	"strings"
)

// ParseBalance converts an amount in the valor format of the HTTP contract to cents. The format
// is 1 to 10 ASCII digits, a dot and exactly 2 digits (`^\d{1,10}\.\d{2}$`), so "150.00" is
// 15000. Leading zeros are allowed, and "0.00" is 0. Any other string is an error.
func ParseBalance(s string) (cents int64, err error) {
	reais, centavos, _ := strings.Cut(s, ".")
	if len(reais) < 1 || len(reais) > 10 || len(centavos) != 2 || strings.Trim(reais+centavos, "0123456789") != "" {
		return 0, fmt.Errorf("psp: amount %q is not 1 to 10 digits, a dot and 2 digits", s)
	}
	for _, d := range reais + centavos { // at most 12 digits: no overflow
		cents = cents*10 + int64(d-'0')
	}
	return cents, nil
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

// MaxEmailKeyLen is the longest e-mail Pix key, in bytes.
const MaxEmailKeyLen = 77

// The Pix key formats of the Central Bank's DICT. Check digits of CPF and CNPJ are not
// verified: the simulator checks the shape a client must send, not the registry.
var (
	cpfPattern   = regexp.MustCompile(`^\d{11}$`)
	cnpjPattern  = regexp.MustCompile(`^\d{14}$`)
	phonePattern = regexp.MustCompile(`^\+[1-9]\d{1,14}$`)
	emailPattern = regexp.MustCompile("^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?" +
		`(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$`)
	evpPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// ValidPixKey reports whether k is a Pix key in one of the five formats. They are CPF (11
// digits), CNPJ (14 digits), phone in E.164 ("+5511987654321"), e-mail (lower case, at most 77
// characters) and EVP (a random key, a lower-case UUID). Digits are ASCII digits.
func ValidPixKey(k string) bool {
	return cpfPattern.MatchString(k) || cnpjPattern.MatchString(k) ||
		phonePattern.MatchString(k) || evpPattern.MatchString(k) ||
		len(k) <= MaxEmailKeyLen && emailPattern.MatchString(k)
}
