package cmdline

import "errors"

// Dialect is the value of a command's -dialect flag: the payments API that a PSP speaks, as
// the double serves it (psp -dialect) and as a pix.Dialect speaks it (demo, pixpay). Its zero
// value reads as DialectPix. A *Dialect is a flag.Value.
type Dialect string

// The dialects: the double's own payments API, Efí's payouts (packages pix/efi and psp/efi)
// and Open Finance Brasil payments v4 (packages pix/openfinance and psp/openfinance).
const (
	DialectPix         Dialect = "pix"
	DialectEfi         Dialect = "efi"
	DialectOpenFinance Dialect = "openfinance"
)

// errDialect is the error of Set for a name that is not a dialect.
var errDialect = errors.New("want pix, efi or openfinance")

// String returns the dialect's name, pix for the zero value.
func (d *Dialect) String() string {
	if *d == "" {
		return string(DialectPix)
	}
	return string(*d)
}

// Set sets d to the dialect named s, and fails for any other s, the empty one included.
func (d *Dialect) Set(s string) error {
	switch Dialect(s) {
	case DialectPix, DialectEfi, DialectOpenFinance:
		*d = Dialect(s)
		return nil
	}
	return errDialect
}
