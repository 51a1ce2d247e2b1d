package properties

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"pixretry/internal/pipenet"
	"pixretry/pix"
	"pixretry/psp"
	"pixretry/psp/webhook"
	"pixretry/retry/retrytest"
)

// webhookRun is what a run's webhooks do. The double's Sender (psp/webhook) posts each
// payment's end, as psp.Config.OnEnd reports it, to the receiver: a pix.WebhookHandler whose
// Apply keeps the payer's state of each key it sent. A forger posts ends signed with a secret
// of its own, and once the double's deliveries are through, their captured copies are posted
// again past the handler's window.
type webhookRun struct {
	Sender    webhook.Config  // its Attempts, DelayBase, WaitMax, Timeout and Parallel; the run sets the rest
	Draws     []float64       // the Sender's jitter draws, in a cycle
	Faults    []webhook.Fault // for the Sender's first deliveries, in order
	Failures  []bool          // whether each call of Apply, in order, fails and stores nothing; past the end, none does
	Forgeries []forgery
	Replays   []int // the double's deliveries, by index modulo their number, replayed late
}

// forgery is a delivery the forger signs with a secret not the receiver's: the end of the
// payment under the Key-th key sent by After (modulo, in the order of their first sends), or of
// a key no one sent if none was.
type forgery struct {
	After  time.Duration // from the start of the run
	Key    int
	Status string // REALIZADO or NAO_REALIZADO
}

// The receiver's secret and the forger's, the receiver's window, and the header by which the
// run marks, for the record alone, what it forged (Delivery.Forged).
const (
	webhookSecret   = "property-webhook-secret, 32 bytes or more"
	forgerSecret    = "the forger's own secret, as long as the real one"
	signatureWindow = 300 * time.Second
	forgedHeader    = "Forged"
)

// errApplyFailed is the error of an Apply the run makes fail, as a database that is down would.
var errApplyFailed = errors.New("payer: the database is down")

// webhooks records the ends the PSP reports in every run and, if the run has a webhookRun,
// plays it. It is the receiver's handler, whose apply models the payer: a key it sent is
// pending until a delivery ends it, and then stays as it is.
type webhooks struct {
	spec           *webhookRun
	run            *runner
	handler        pix.WebhookHandler
	server         *pipenet.Server // the receiver's
	sender, forger *webhook.Sender

	mu      sync.Mutex
	ends    []psp.Ended
	applies int               // the calls of apply so far
	states  map[string]string // the keys whose state a delivery ended, and how
	log     []Delivery
	caught  [][2]string // the body and Pix-Signature of each of the double's deliveries
}

// startWebhooks starts the receiver, the Sender and the forger of spec, if not nil.
func startWebhooks(spec *webhookRun, run *runner) (*webhooks, error) {
	h := &webhooks{spec: spec, run: run, states: map[string]string{}}
	if spec == nil {
		return h, nil
	}
	h.handler = pix.WebhookHandler{Secret: []byte(webhookSecret), Apply: h.apply}
	h.server = pipenet.NewServer(h)
	cfg := spec.Sender
	cfg.URL, cfg.Secret, cfg.Transport = h.server.URL, webhook.Secret(webhookSecret), h.server.Transport()
	cfg.Rand = (&retrytest.Cycle{Draws: spec.Draws}).Next
	var err error
	if h.sender, err = webhook.New(cfg); err == nil {
		h.sender.Inject(spec.Faults...)
		h.forger, err = webhook.New(webhook.Config{URL: h.server.URL, Secret: webhook.Secret(forgerSecret),
			Transport: marked{h.server.Transport(), forgedSecret}, Attempts: 1, Parallel: 1})
	}
	if err != nil {
		h.close()
		return nil, err
	}
	return h, nil
}

// ended records e and has the Sender deliver it: psp.Config.OnEnd.
func (h *webhooks) ended(e psp.Ended) {
	h.mu.Lock()
	h.ends = append(h.ends, e)
	h.mu.Unlock()
	if h.sender != nil {
		h.sender.Send(e)
	}
}

// forge starts a goroutine of wg for each forgery.
func (h *webhooks) forge(wg *sync.WaitGroup) {
	if h.spec == nil {
		return
	}
	for _, f := range h.spec.Forgeries {
		wg.Go(func() {
			time.Sleep(f.After)
			key := "a-key-no-one-sent"
			if keys := h.run.keysSent(); len(keys) > 0 {
				key = keys[f.Key%len(keys)]
			}
			now := time.Now().UTC()
			h.forger.Send(psp.Ended{Token: runToken, IdempotencyKey: key, AmountCents: 100, Status: f.Status, At: now,
				EndToEndID: "E00000000" + now.Format("200601021504") + "forged00000"})
		})
	}
}

// finish waits until every delivery has had its tries, replays captured ones once their
// signatures are past the window, closes everything, and returns the deliveries.
func (h *webhooks) finish() []Delivery {
	if h.spec != nil {
		c, delays := h.spec.Sender, time.Duration(0)
		for _, f := range h.spec.Faults {
			delays += f.Duration
		}
		time.Sleep(delays + time.Duration(c.Attempts)*(c.Timeout+c.WaitMax) + signatureWindow + time.Second)
		h.replay()
	}
	h.close()
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.log)
}

// takeEnds returns the ends the PSP reported.
func (h *webhooks) takeEnds() []psp.Ended {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.ends)
}

// replay posts again the deliveries of spec.Replays, each with its signature.
func (h *webhooks) replay() {
	h.mu.Lock()
	caught := slices.Clone(h.caught)
	h.mu.Unlock()
	client := &http.Client{Transport: marked{h.server.Transport(), forgedLate}}
	for _, n := range h.spec.Replays {
		if len(caught) == 0 {
			return
		}
		c := caught[n%len(caught)]
		req, _ := http.NewRequest(http.MethodPost, h.server.URL, bytes.NewReader([]byte(c[0])))
		req.Header.Set("Pix-Signature", c[1])
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
		}
	}
}

// close closes what startWebhooks started. Closing twice is harmless.
func (h *webhooks) close() {
	for _, s := range []*webhook.Sender{h.sender, h.forger} {
		if s != nil {
			s.Close()
		}
	}
	if h.server != nil {
		h.server.Close()
	}
}

// marked is a transport that marks each request as forged, how.
type marked struct {
	next http.RoundTripper
	how  string
}

func (m marked) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set(forgedHeader, m.how)
	return m.next.RoundTrip(req)
}

// deliveryKey is the context key of the Delivery a request records.
type deliveryKey struct{}

// ServeHTTP serves h.handler and records the delivery.
func (h *webhooks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var b struct{ ID, EndToEndID, IdempotencyKey, Status string }
	json.Unmarshal(body, &b)
	d := &Delivery{At: time.Now(), Forged: r.Header.Get(forgedHeader), ID: b.ID, Key: b.IdempotencyKey,
		EndToEndID: b.EndToEndID, Status: b.Status}
	r.Body = io.NopCloser(bytes.NewReader(body))
	aw := &answerWriter{ResponseWriter: w}
	h.handler.ServeHTTP(aw, r.WithContext(context.WithValue(r.Context(), deliveryKey{}, d)))
	h.mu.Lock()
	defer h.mu.Unlock()
	d.Answer = cmp.Or(aw.status, http.StatusOK)
	h.log = append(h.log, *d)
	if d.Forged == "" {
		h.caught = append(h.caught, [2]string{string(body), r.Header.Get("Pix-Signature")})
	}
}

// apply applies w to the payer's state of its key: a pending key ends as w says, an ended one
// stays as it is, and a key the payer never sent is unknown. A call that the run makes fail
// changes nothing.
func (h *webhooks) apply(ctx context.Context, w pix.Webhook) error {
	d := ctx.Value(deliveryKey{}).(*Delivery)
	h.mu.Lock()
	defer h.mu.Unlock()
	d.Applies++
	fail := h.applies < len(h.spec.Failures) && h.spec.Failures[h.applies]
	h.applies++
	if !h.run.firstSent(w.IdempotencyKey).IsZero() {
		d.Before = cmp.Or(h.states[w.IdempotencyKey], statePending)
	}
	d.After = d.Before
	switch {
	case d.Before == "":
		return pix.ErrUnknownPayment
	case fail:
		d.Failed = true
		return errApplyFailed
	case d.Before == statePending:
		d.After = payerState(w.Status)
		h.states[w.IdempotencyKey] = d.After
	}
	return nil
}

// answerWriter records the status of the answer written through it.
type answerWriter struct {
	http.ResponseWriter
	status int
}

func (w *answerWriter) WriteHeader(code int) {
	w.status = cmp.Or(w.status, code)
	w.ResponseWriter.WriteHeader(code)
}
