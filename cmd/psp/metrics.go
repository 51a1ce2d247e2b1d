package main

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"pixretry/psp"
)

// meterName is the instrumentation scope of the simulator's metrics: their otel_scope_name.
const meterName = "pixretry/cmd/psp"

// observe registers on mp the instruments of -metrics, which read srv at each collection:
//
//   - psp.requests.answered {request}, a counter by kind (payment, lookup or other), status
//     (0 when the simulator closed the connection instead) and fault (its kind, or none): the
//     requests answered, as the journal shows them at each collection;
//   - psp.requests {request}, a counter by kind (payment or lookup): the payments and lookups
//     received, whatever their answer;
//   - psp.requests.shed {request}, a counter: payments refused with 503 overloaded;
//   - psp.requests.in_flight {request}, a gauge: payments in processing now;
//   - psp.settlements {settlement}, a counter: every settlement made, those the ledger dropped
//     included;
//   - psp.balance {cent}, a gauge: the payer's balance, in cents;
//   - psp.keys {key} and psp.keys.closed {key}, gauges: the keys stored now, and the keys a
//     lookup closed;
//   - psp.faults.queued {fault}, a gauge: the faults waiting for a request.
//
// psp.requests.answered counts from the start. The other counters, read from psp.Server.Stats,
// start again from 0 at POST /_psp/reset, which a scraper takes for a restart. A request
// dropped from the journal before a collection saw it answered is missing from
// psp.requests.answered, never from psp.requests. No attribute holds a key, a token or a
// payload.
func observe(mp metric.MeterProvider, srv *psp.Server) error {
	m := mp.Meter(meterName)
	in, err := newInstruments(m)
	if err != nil {
		return err
	}
	tally := newTally()
	_, err = m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		in.observe(o, srv.Stats(), tally.update(srv))
		return nil
	}, in.answered, in.requests, in.shed, in.settlements, in.inFlight, in.balance, in.keys, in.closedKeys, in.faults)
	return err
}

// instruments are those that observe lists.
type instruments struct {
	answered, requests, shed, settlements       metric.Int64ObservableCounter
	inFlight, balance, keys, closedKeys, faults metric.Int64ObservableGauge
}

func newInstruments(m metric.Meter) (*instruments, error) {
	var errs []error
	counter := func(name, unit, desc string) metric.Int64ObservableCounter {
		c, err := m.Int64ObservableCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	gauge := func(name, unit, desc string) metric.Int64ObservableGauge {
		g, err := m.Int64ObservableGauge(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return g
	}
	in := &instruments{
		answered:    counter("psp.requests.answered", "{request}", "Requests answered, by kind, status (0: connection closed) and fault."),
		requests:    counter("psp.requests", "{request}", "Payments and lookups received, by kind."),
		shed:        counter("psp.requests.shed", "{request}", "Payment requests refused with 503 overloaded."),
		settlements: counter("psp.settlements", "{settlement}", "Settlements made, those the ledger dropped included."),
		inFlight:    gauge("psp.requests.in_flight", "{request}", "Payment requests in processing now."),
		balance:     gauge("psp.balance", "{cent}", "The payer's balance, in cents."),
		keys:        gauge("psp.keys", "{key}", "Idempotency-Keys stored now."),
		closedKeys:  gauge("psp.keys.closed", "{key}", "Keys a lookup closed, held now."),
		faults:      gauge("psp.faults.queued", "{fault}", "Faults queued now, for payments and lookups."),
	}
	return in, errors.Join(errs...)
}

// observe observes st and the answers counted so far.
func (in *instruments) observe(o metric.Observer, st psp.Stats, answers map[answer]int64) {
	for a, n := range answers {
		o.ObserveInt64(in.answered, n, metric.WithAttributes(
			attribute.String("kind", a.kind), attribute.Int("status", a.status), attribute.String("fault", a.fault)))
	}
	o.ObserveInt64(in.requests, st.Requests, metric.WithAttributes(attribute.String("kind", "payment")))
	o.ObserveInt64(in.requests, st.Lookups, metric.WithAttributes(attribute.String("kind", "lookup")))
	o.ObserveInt64(in.shed, st.Shed)
	o.ObserveInt64(in.settlements, int64(st.Settled)+st.Dropped)
	o.ObserveInt64(in.inFlight, int64(st.InFlight))
	o.ObserveInt64(in.balance, st.BalanceCents)
	o.ObserveInt64(in.keys, int64(st.Keys))
	o.ObserveInt64(in.closedKeys, int64(st.ClosedKeys))
	o.ObserveInt64(in.faults, int64(st.Faults))
}

// answer is what psp.requests.answered counts by.
type answer struct {
	kind   string // payment, lookup or other
	status int    // 0: the connection was closed instead
	fault  string // the kind of the fault met, or none
}

// answerOf is r's answer. r must have been answered.
func answerOf(r psp.Request) answer {
	a := answer{kind: "other", status: r.Status, fault: string(r.Fault)}
	if path, _, _ := strings.Cut(r.Path, "?"); path == psp.PaymentsPath {
		switch r.Method {
		case http.MethodPost:
			a.kind = "payment"
		case http.MethodGet:
			a.kind = "lookup"
		}
	}
	if a.fault == "" {
		a.fault = "none"
	}
	return a
}

// tally counts the answered requests of a journal, each once, by answer. The journal is
// bounded, so tally reads it at each collection from where the last read left off. It is safe
// for concurrent use.
type tally struct {
	mu      sync.Mutex
	through uint64          // every request up to this Seq is counted, or gone from the journal
	counted map[uint64]bool // the requests after through already counted
	counts  map[answer]int64
}

func newTally() *tally {
	return &tally{counted: map[uint64]bool{}, counts: map[answer]int64{}}
}

// update counts the requests of srv's journal answered since the last update, and returns the
// counts so far. A request still in flight is counted once a later update finds it answered.
func (t *tally) update(srv *psp.Server) map[answer]int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	requests, _ := srv.Requests(psp.RequestFilter{After: t.through})
	open := false // a request in flight holds through back
	for _, r := range requests {
		if !r.InFlight && !t.counted[r.Seq] {
			t.counts[answerOf(r)]++
			t.counted[r.Seq] = true
		}
		open = open || r.InFlight
		if !open {
			t.through = r.Seq
		}
	}
	for seq := range t.counted {
		if seq <= t.through {
			delete(t.counted, seq)
		}
	}
	return maps.Clone(t.counts)
}
