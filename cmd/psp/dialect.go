package main

import (
	"errors"
	"net/http"

	"pixretry/psp"
	"pixretry/psp/efi"
)

// dialect is the value of -dialect: the payments API that psp serves. Its zero value is pix.
type dialect string

// The dialects: the double's own payments API, and Efí's payouts (package pixretry/psp/efi).
const (
	dialectPix dialect = "pix"
	dialectEfi dialect = "efi"
)

func (d *dialect) String() string {
	if *d == "" {
		return string(dialectPix)
	}
	return string(*d)
}

func (d *dialect) Set(s string) error {
	switch dialect(s) {
	case dialectPix, dialectEfi:
		*d = dialect(s)
		return nil
	}
	return errors.New("want pix or efi")
}

// payments is the handler of the payments API of srv in d.
func (d dialect) payments(srv *psp.Server) http.Handler {
	if d == dialectEfi {
		return efi.NewHandler(srv)
	}
	return srv
}
