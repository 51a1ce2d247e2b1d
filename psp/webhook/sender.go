package webhook

import (
	"context"
	"net/http"
	"slices"
	"sync"

	"pixretry/psp"
	"pixretry/retry"
)

// Sender sends a delivery for each payment that ends, and retries it. Make one with New, give
// it each psp.Ended with Send (psp.Config.OnEnd may be Send itself), and Close it when done.
// It is safe for concurrent use.
//
// A delivery is under way from Send until it ends: delivered on a 2xx, refused on a status
// that is not retried, given up when its last try (Config.Attempts) got no answer within
// Config.Timeout, a 5xx or a 429, or dropped. Between tries it waits a draw of
// retry.FullJitter below retry.Ceiling: min(Config.WaitMax, Config.DelayBase·2^(n−1)) after
// try n. At most Config.Queue deliveries are under way: Send drops the oldest that is waiting,
// not in a try, to make room for a new one (or the new one, if all are in a try).
//
// New starts one goroutine, which starts a goroutine per try, and Close ends them all. The
// waits are timers of package time, so a test may run a Sender in a testing/synctest bubble.
type Sender struct {
	cfg    Config
	policy retry.Policy // the waits' ceilings
	client *http.Client
	own    *http.Transport // the transport made for a nil Config.Transport, else nil
	wake   chan struct{}   // wakes the dispatcher: a delivery is due, or a slot is free
	ctx    context.Context // ends on Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // the dispatcher and the tries in flight

	mu       sync.Mutex
	closed   bool
	gen      uint64                 // one more on each Reset; a delivery of an earlier one is forgotten
	seq      uint64                 // the seq of the latest delivery queued
	faults   []Fault                // the faults the next deliveries consume
	held     []*delivery            // held by a reorder fault until the next delivery is tried
	queued   map[*delivery]struct{} // the deliveries under way
	due      dueHeap                // the deliveries waiting for a try, not held
	inFlight int                    // tries in flight, at most Config.Parallel
	record   []*delivery            // the latest recordMax deliveries, oldest first
	stats    Stats
}

// New returns a Sender configured by cfg, or a *ConfigError if cfg is invalid. Close it, to
// end its goroutine.
func New(cfg Config) (*Sender, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Sender{
		cfg:    cfg,
		policy: retry.Policy{AttemptsMax: cfg.Attempts, DelayBase: cfg.DelayBase, DelayMax: cfg.WaitMax},
		wake:   make(chan struct{}, 1),
		queued: map[*delivery]struct{}{},
	}
	transport := cfg.Transport
	if transport == nil {
		s.own = http.DefaultTransport.(*http.Transport).Clone()
		transport = s.own
	}
	s.client = &http.Client{Transport: transport, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse // a webhook goes to its URL as given
	}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.wg.Add(1)
	go s.dispatch()
	return s, nil
}

// Send queues a delivery of e, which consumes the next fault, and returns at once. After
// Close it does nothing.
func (s *Sender) Send(e psp.Ended) {
	id := newID()
	body := s.cfg.Form.Body(id, e)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	var f Fault
	if len(s.faults) > 0 {
		f, s.faults = s.faults[0], s.faults[1:]
	}
	d := s.newDelivery(Delivery{ID: id, EndToEndID: e.EndToEndID, IdempotencyKey: e.IdempotencyKey,
		Status: e.Status, State: Queued}, body)
	d.holds, s.held = s.held, nil // released once d has been tried
	var copied *delivery
	switch f.Kind {
	case kindDuplicate:
		s.stats.Duplicated++
		copied = s.newDelivery(d.Delivery, body)
	case kindDelay:
		d.delay = f.Duration
	case kindReorder:
		s.held = append(s.held, d)
	case kindFail:
		d.failing = f.Times
	}
	s.queue(d, f.Kind == kindReorder)
	if copied != nil {
		s.queue(copied, false)
	}
}

// Inject queues faults, for the next deliveries in order, one each. An invalid fault is a
// programming error: Inject then panics with the error of Fault.Validate and queues none.
func (s *Sender) Inject(faults ...Fault) {
	for _, f := range faults {
		if err := f.Validate(); err != nil {
			panic(err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, faults...)
}

// Faults returns a copy of the faults queued, in the order the next deliveries will consume
// them.
func (s *Sender) Faults() []Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.faults)
}

// ClearFaults empties the queue of faults. A delivery that has consumed one keeps it.
func (s *Sender) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// Reset forgets every delivery under way, empties the record, the faults and Stats. A try in
// flight still reaches the receiver, but is neither recorded nor tried again.
func (s *Sender) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.queued) // nothing reads a forgotten delivery again: settle checks gen first
	s.gen++
	s.faults, s.held, s.due, s.record, s.stats = nil, nil, nil, nil, Stats{}
}

// Close stops every delivery, a try in flight included, and returns once their goroutines
// have ended. Deliveries under way are abandoned as they are: their state stays Queued. Close
// closes the idle connections of the Sender's own transport, if it made one.
func (s *Sender) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	if s.own != nil {
		s.own.CloseIdleConnections()
	}
}
