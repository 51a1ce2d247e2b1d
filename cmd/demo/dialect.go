package main

import (
	"context"
	"errors"
	"net/http"
	"time"

	"pixretry/pix"
	"pixretry/psp"
)

// dialect is a payments API that the demo's client speaks and the double serves: what differs
// from one to another, the scenarios' expectations included.
type dialect struct {
	// Name is the value of -dialect that chooses it.
	Name string
	// Want is what each scenario must produce, in the order of scenarios.
	Want []expectation
	// Precision is that of the settlement times the API's answers carry: a receipt's time is the
	// ledger's, truncated to it.
	Precision time.Duration
	// ProbePath is a path of the API's payments, which answers 405 to a DELETE: the probe of
	// speaks.
	ProbePath string
	// Serve returns the handler of srv's payments API in the dialect, which its control API
	// serves as Options.Payments. A nil handler means srv itself.
	Serve func(srv *psp.Server) (http.Handler, error)
	// Speak returns what the demo's client speaks the dialect with, to the PSP at t.BaseURL,
	// which hc reaches: the client's Dialect (nil for pix's own API) and the step that readies
	// each payment before Send (nil for none).
	Speak func(ctx context.Context, t *target, hc *http.Client) (pix.Dialect, readyFunc, error)
	// Sort says what a request of the client is, and the idempotency key it carries, as the
	// dialect carries it ("" for none).
	Sort func(r *http.Request) (requestKind, string)
}

// readyFunc readies p to be paid through c, and returns it ready: an Open Finance payment needs
// the consent it consumes.
type readyFunc func(ctx context.Context, c *pix.Client, p pix.Payment) (pix.Payment, error)

// dialects are those the demo speaks, the default first.
var dialects = []*dialect{pixDialect, efiDialect}

// errDialect is the error of a -dialect that names none of dialects.
var errDialect = errors.New("want pix or efi")

// dialectNamed returns the dialect of dialects called name, or errDialect.
func dialectNamed(name string) (*dialect, error) {
	for _, d := range dialects {
		if d.Name == name {
			return d, nil
		}
	}
	return nil, errDialect
}

// looksUp reports whether some of d's payments end pending, so that the demo looks them up.
func (d *dialect) looksUp() bool {
	for _, w := range d.Want {
		if w.Pending {
			return true
		}
	}
	return false
}
