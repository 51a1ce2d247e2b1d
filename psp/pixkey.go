package psp

import "regexp"

// The Pix key formats of the Central Bank's DICT. Check digits of CPF and CNPJ are not
// verified: the simulator checks the shape a client must send, not the registry.
var (
	cpfPattern   = regexp.MustCompile(`^\d{11}$`)
	cnpjPattern  = regexp.MustCompile(`^\d{14}$`)
	phonePattern = regexp.MustCompile(`^\+[1-9]\d{1,14}$`)
	emailPattern = regexp.MustCompile("^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$")
	evpPattern   = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// maxEmailKeyLen is the longest e-mail Pix key, in bytes.
const maxEmailKeyLen = 77

// ValidPixKey reports whether k is a Pix key in one of the five formats. They are CPF (11
// digits), CNPJ (14 digits), phone in E.164 ("+5511987654321"), e-mail (lower case, at most 77
// characters) and EVP (a random key, a lower-case UUID). Digits are ASCII digits.
func ValidPixKey(k string) bool {
	return cpfPattern.MatchString(k) || cnpjPattern.MatchString(k) ||
		phonePattern.MatchString(k) || evpPattern.MatchString(k) ||
		len(k) <= maxEmailKeyLen && emailPattern.MatchString(k)
}
