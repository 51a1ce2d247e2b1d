package main

import (
	"errors"
	"net/http"

	"pixretry/psp"
	"pixretry/psp/efi"
)

// dialect is the value of -dialect: the payments API that psp serves. Its zero value is pix.
type dialect string

// The dialects: the double's own payments API, Efí's payouts (package pixretry/psp/efi) and
// Open Finance Brasil payments v4 (package pixretry/psp/openfinance).
const (
	dialectPix         dialect = "pix"
	dialectEfi         dialect = "efi"
	dialectOpenFinance dialect = "openfinance"
)

func (d *dialect) String() string {
	if *d == "" {
		return string(dialectPix)
	}
	return string(*d)
}

func (d *dialect) Set(s string) error {
	switch dialect(s) {
	case dialectPix, dialectEfi, dialectOpenFinance:
		*d = dialect(s)
		return nil
	}
	return errors.New("want pix, efi or openfinance")
}

// frontEnd is what psp serves in front of its psp.Server in a dialect.
type frontEnd struct {
	payments http.Handler            // the payments API: the Server, or a front end that speaks to it
	paths    map[string]http.Handler // the front end's control paths (control.Options.Paths); nil for none
	reset    func()                  // starts the front end again on a reset (control.Options.OnReset); nil for none
}

// front is the front end of srv in o's dialect. Its error is a *flagError for a key file of
// -dialect openfinance that psp cannot use.
func (o options) front(srv *psp.Server) (frontEnd, error) {
	switch o.dialect {
	case dialectEfi:
		return frontEnd{payments: efi.NewHandler(srv)}, nil
	case dialectOpenFinance:
		return openFinanceFront(srv, o.openFinance)
	}
	return frontEnd{payments: srv}, nil
}
