package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"pixretry/internal/cmdline"
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
	// CoreCountsAll says whether the core's Stats count every request of the client, so that
	// the check holds them equal. Else it holds them at most the client's: in Open Finance a
	// retry may wait at the front end for its consent, which one attempt at a time may use, and
	// end there.
	CoreCountsAll bool
	// Short is the part of a key that the output shows, enough to tell payments apart: prefix
	// or suffix.
	Short func(key string) string
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
var dialects = []*dialect{pixDialect, efiDialect, openfinanceDialect}

// dialectNamed returns the dialect of dialects called name, or the error of a -dialect that
// names none (cmdline.Dialect's).
func dialectNamed(name string) (*dialect, error) {
	var named cmdline.Dialect
	if err := named.Set(name); err != nil {
		return nil, err
	}
	for _, d := range dialects {
		if d.Name == string(named) {
			return d, nil
		}
	}
	return nil, fmt.Errorf("demo: the dialect %s has no scenarios", name)
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
