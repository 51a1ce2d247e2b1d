package efi_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"pixretry/pix"
	"pixretry/pix/efi"
	"pixretry/psp"
	efidouble "pixretry/psp/efi"
	"pixretry/psp/psptest"
	"pixretry/retry"
)

// policy is the retry policy of the end-to-end tests.
var policy = retry.Policy{AttemptsMax: 4, DelayBase: 100 * time.Millisecond, DelayMax: time.Second}

// wire is an http.Handler that notes each request reaching the double's Efí front end, as
// "METHOD /path", and passes it on untouched. The front end refuses a bad idEnvio before the
// double's journal and Stats see it, so only the wire shows that nothing was sent.
type wire struct {
	next http.Handler
	mu   sync.Mutex
	reqs []string
}

func (w *wire) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	w.reqs = append(w.reqs, r.Method+" "+r.URL.Path)
	w.mu.Unlock()
	w.next.ServeHTTP(rw, r)
}

// requests returns the requests noted so far, in arrival order.
func (w *wire) requests() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.reqs...)
}

// rig is the double behind its Efí front end, served over in-memory pipes (psptest) so that it
// works inside a synctest bubble, with a wire in front.
type rig struct {
	*psptest.Server
	wire *wire
}

// newRig serves a double of cfg (psp.DefaultConfig changed by edit, if not nil) with faults
// queued, and closes it when the test ends. Make it inside the bubble that uses it.
func newRig(t *testing.T, edit func(*psp.Config), faults ...psp.Fault) *rig {
	t.Helper()
	cfg := psp.DefaultConfig()
	if edit != nil {
		edit(&cfg)
	}
	r := &rig{}
	srv, err := psptest.NewServerBehind(cfg, func(s *psp.Server) http.Handler {
		r.wire = &wire{next: efidouble.NewHandler(s)}
		return r.wire
	})
	if err != nil {
		t.Fatalf("psptest.NewServerBehind() error = %v", err)
	}
	t.Cleanup(srv.Close)
	r.Server = srv
	srv.Inject(faults...)
	return r
}

// client is a pix.Client of the rig in Efí's dialect, from the double's payer, with the test
// policy, a 1 s attempt timeout and every wait half its ceiling.
func (r *rig) client() *pix.Client {
	c := r.Client(policy)
	c.Dialect = efi.Dialect{PayerKey: efidouble.PayerKey}
	c.AttemptTimeout, c.Jitter = time.Second, func() float64 { return 0.5 }
	return c
}

// settlementsUnder returns the double's settlements under key.
func (r *rig) settlementsUnder(key string) []psp.Settlement {
	var out []psp.Settlement
	for _, s := range r.Settlements() {
		if s.IdempotencyKey == key {
			out = append(out, s)
		}
	}
	return out
}

// put and get are the requests the wire notes for a payment and a lookup under key.
func put(key string) string { return "PUT " + efidouble.SendPath + key }
func get(key string) string { return "GET " + efidouble.LookupPath + key }

// repeat returns n copies of s.
func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
