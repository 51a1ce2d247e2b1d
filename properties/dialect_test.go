package properties

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	"pixretry/pix"
	"pixretry/psp"
)

// dialect is a payments API that a run's clients speak and the double serves: the double's
// own (pix), Efí's payouts (efi) or Open Finance Brasil payments v4 (openfinance). A run of
// another dialect than pix puts the double's front end for it (psp/efi, psp/openfinance) in
// front of the wire recorder, so that the recorder still sees the double's own API: what
// reaches the core. The invariants hold on that, on the clients' side, and on what each
// answer told its client, which says reads as the dialect's contract says.
type dialect struct {
	// Name is the dialect's, as psp -dialect names it.
	Name string
	// Front returns the double's front end in the dialect in front of next, which serves the
	// double's own API, keeping keys ttl. Nil for pix: the double itself.
	Front func(next http.Handler, ttl time.Duration) (http.Handler, error)
	// Client returns the clients' pix.Dialect; nil for pix.
	Client func() pix.Dialect
	// KeyOf is the key a request of the dialect carries, as its client writes it and its front
	// end reads it (roundtrip.Recorder.KeyOf): the idempotency key of a payment, and of a
	// lookup what it looks up by.
	KeyOf func(*http.Request) string
	// Says reads ex, an answer of the dialect to a call of payment p, as its contract says.
	Says func(ex Exchange, p pix.Payment) said
	// MadeKey reports whether key is one a Send of the dialect makes (pix.Dialect.NewKey), of
	// the form KeyForm says.
	MadeKey func(key string) bool
	KeyForm string
	// SharedKey is the key of the duplicate senders of call j (SendWithKey), a key the
	// dialect carries.
	SharedKey func(j int) string
	// Precision is that of the times its answers carry: a receipt's settlement time is the
	// ledger's, truncated to it.
	Precision time.Duration
	// LooksUpByID says that a lookup names the PSP's id of the payment or of its consent, not
	// its key (Trace.lookupKey): Open Finance has no lookup by key.
	LooksUpByID bool
	// RelaysAll says whether the front end relays every request it is sent to the core. Open
	// Finance's answers some itself: a consent's lookup, a key it already refused, a payment
	// whose consent cannot pay.
	RelaysAll bool
	// Claims, when not nil, reads the claims of a request of the dialect that its client
	// signs: the jti, and the data claim in a canonical form. ok is false for a request that
	// is not so signed. Open Finance's client signs every POST.
	Claims func(ex Exchange) (jti, data string, ok bool)
	// Consent, when not nil, makes the consent that a payment of the dialect consumes, through
	// c, and returns its id for pix.Payment.ConsentID.
	Consent func(ctx context.Context, c *pix.Client, p pix.Payment) (string, error)
}

// pixAPI is the double's own API: the clients' nil pix.Dialect, and no front end.
var pixAPI = &dialect{
	Name: "pix", Says: nativeSays, Precision: time.Nanosecond, RelaysAll: true,
	KeyOf: func(r *http.Request) string {
		if r.Method == http.MethodGet {
			return r.URL.Query().Get(psp.LookupParam)
		}
		return r.Header.Get(psp.IdempotencyKeyHeader)
	},
	MadeKey: func(key string) bool {
		u, err := uuid.Parse(key)
		return err == nil && u.Version() == 4 && u.String() == key
	},
	KeyForm:   "a lower-case UUID v4",
	SharedKey: func(j int) string { return fmt.Sprintf("shared-key-%d", j) },
}

// dialects are the dialects a run may speak, by name; "" is pix.
var dialects = map[string]*dialect{"": pixAPI, pixAPI.Name: pixAPI, efiAPI.Name: efiAPI,
	openFinanceAPI.Name: openFinanceAPI}

// dialectNamed is the dialect called name; "" is pix. An unknown name panics: it is a bug of
// the suite.
func dialectNamed(name string) *dialect {
	d, ok := dialects[name]
	if !ok {
		panic("properties: no dialect " + name)
	}
	return d
}
