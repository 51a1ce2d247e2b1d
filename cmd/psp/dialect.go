package main

import (
	"net/http"

	"pixretry/internal/cmdline"
	"pixretry/psp"
	"pixretry/psp/efi"
)

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
	case cmdline.DialectEfi:
		return frontEnd{payments: efi.NewHandler(srv)}, nil
	case cmdline.DialectOpenFinance:
		return openFinanceFront(srv, o.openFinance)
	}
	return frontEnd{payments: srv}, nil
}
