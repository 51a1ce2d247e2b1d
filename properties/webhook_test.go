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
	Sender    webhook.Config  // its Attempts, DelayBase, WaitMax and Parallel; the run sets the rest
	Draws     []float64       // the Sender's jitter draws, in a cycle
	Faults    []webhook.Fault // for the Sender's first deliveries, in order
	Failures  []bool          // whether each call of Apply, in order, fails and stores nothing; past the end, none does
	Forgeries []forgery
	Replays   []int // the double's deliveries, by index modulo their number, replayed late
}

// forgery is a delivery the forger signs with a secret not the receiver's: the end of the
// payment under the Key-th key sent by After (modulo, ordered by first send), or of a key no one
// sent if none was.
type forgery struct {
	After  time.Duration // from the start of the run
	Key    int
	Status string // REALIZADO or NAO_REALIZADO
}

// The receiver's secret and the forger's, and the header by which the run marks, for the
// record alone, what it forged (Delivery.Forged).
const (
	webhookSecret = "property-webhook-secret, 32 bytes or more"
	forgerSecret  = "the forger's own secret, as long as the real one"
	forgedHeader  = "Forged"
)

// The ways the run forges a delivery.
const (
	forgedSecret = "wrong secret"
	forgedLate   = "replayed late"
)

// The payer's states of a key it sent.
const (
	statePending = "pending"
	stateSettled = "settled"
	stateRefused = "refused"
)

// errApplyFailed is the error of an Apply the run makes fail, as a database that is down would.
var errApplyFailed = errors.New("payer: the database is down")

// webhooks runs a run's webhookRun, if it has one, and records the ends the PSP reports in
// every run.
type webhooks struct {
	spec   *webhookRun
	run    *runner
	server *pipenet.Server // the receiver's
	recv   *receiver
	sender *webhook.Sender
	forger *webhook.Sender

	mu   sync.Mutex
	ends []psp.Ended
}

// startWebhooks starts the receiver, the Sender and the forger of spec, if not nil.
func startWebhooks(spec *webhookRun, run *runner) (*webhooks, error) {
	h := &webhooks{spec: spec, run: run}
	if spec == nil {
		return h, nil
	}
	h.recv = &receiver{run: run, failures: spec.Failures, ended: map[string]string{}}
	h.recv.handler = pix.WebhookHandler{Secret: []byte(webhookSecret), Apply: h.recv.apply}
	h.server = pipenet.NewServer(h.recv)
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

// takeEnds returns the ends recorded.
func (h *webhooks) takeEnds() []psp.Ended {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.ends)
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

// finish waits until every delivery has had its tries, replays the captured ones once their
// signatures are old, closes everything and returns what the receiver got.
func (h *webhooks) finish() []Delivery {
	if h.spec == nil {
		return nil
	}
	c := h.spec.Sender
	var delays time.Duration
	for _, f := range h.spec.Faults {
		delays += f.Duration
	}
	time.Sleep(delays + time.Duration(c.Attempts)*(c.Timeout+c.WaitMax) + time.Second)
	time.Sleep(signatureWindow + time.Second)
	caught := h.recv.captured()
	client := &http.Client{Transport: marked{h.server.Transport(), forgedLate}}
	for _, n := range h.spec.Replays {
		if len(caught) == 0 {
			break
		}
		c := caught[n%len(caught)]
		req, _ := http.NewRequest(http.MethodPost, h.server.URL, bytes.NewReader(c.body))
		req.Header.Set("Pix-Signature", c.signature)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	h.close()
	return h.recv.deliveries()
}

// signatureWindow is how far from the receiver's clock a delivery's signature may be.
const signatureWindow = 300 * time.Second

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

// receiver serves handler and records each delivery. Its apply is the handler's Apply: a model
// of the payer, which keeps a state per key it sent, and ends a pending one once.
type receiver struct {
	handler  pix.WebhookHandler
	run      *runner
	failures []bool

	mu      sync.Mutex
	applies int               // the calls of apply so far
	ended   map[string]string // the keys whose state a delivery ended, and how
	log     []Delivery
	caught  []caught
}

// caught is one of the double's deliveries, as it arrived.
type caught struct {
	body      []byte
	signature string
}

// deliveryKey is the context key of the Delivery a request records.
type deliveryKey struct{}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var b struct{ ID, EndToEndID, IdempotencyKey, Status string }
	json.Unmarshal(body, &b)
	d := &Delivery{At: time.Now(), Forged: r.Header.Get(forgedHeader), ID: b.ID, Key: b.IdempotencyKey,
		EndToEndID: b.EndToEndID, Status: b.Status}
	r.Body = io.NopCloser(bytes.NewReader(body))
	aw := &answerWriter{ResponseWriter: w}
	rc.handler.ServeHTTP(aw, r.WithContext(context.WithValue(r.Context(), deliveryKey{}, d)))
	rc.mu.Lock()
	defer rc.mu.Unlock()
	d.Answer = cmp.Or(aw.status, http.StatusOK)
	rc.log = append(rc.log, *d)
	if d.Forged == "" {
		rc.caught = append(rc.caught, caught{body, r.Header.Get("Pix-Signature")})
	}
}

// apply applies w to the payer's state of its key: a pending key ends as w says, an ended one
// stays as it is, and a key the payer never sent is unknown. A call that the run makes fail
// changes nothing.
func (rc *receiver) apply(ctx context.Context, w pix.Webhook) error {
	d := ctx.Value(deliveryKey{}).(*Delivery)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	d.Applies++
	fail := rc.applies < len(rc.failures) && rc.failures[rc.applies]
	rc.applies++
	d.Before = rc.stateOf(w.IdempotencyKey)
	d.After = d.Before
	switch {
	case d.Before == "":
		return pix.ErrUnknownPayment
	case fail:
		d.Failed = true
		return errApplyFailed
	case d.Before == statePending:
		d.After = stateRefused
		if w.Settled() {
			d.After = stateSettled
		}
		rc.ended[w.IdempotencyKey] = d.After
	}
	return nil
}

// stateOf is the payer's state of key: "" if it never sent it.
func (rc *receiver) stateOf(key string) string {
	if _, sent := rc.run.sentAt.Load(key); !sent {
		return ""
	}
	return cmp.Or(rc.ended[key], statePending)
}

func (rc *receiver) captured() []caught {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.caught)
}

func (rc *receiver) deliveries() []Delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.log)
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

// keysSent are the keys of the payment requests sent so far, in the order of their first sends.
func (run *runner) keysSent() []string {
	type sent struct {
		key string
		at  time.Time
	}
	var all []sent
	run.sentAt.Range(func(k, at any) bool {
		all = append(all, sent{k.(string), at.(time.Time)})
		return true
	})
	slices.SortFunc(all, func(a, b sent) int { return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.key, b.key)) })
	keys := make([]string, len(all))
	for i, s := range all {
		keys[i] = s.key
	}
	return keys
}
