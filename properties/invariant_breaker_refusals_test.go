package properties

import (
	"errors"

	"github.com/sony/gobreaker/v2"

	"pixretry/pix"
)

// checkBreakerRefusals is invariant 12: an attempt the breaker refused never reaches the wire.
// A refusal is the call's last question to the breaker, no round trip of the call begins after
// it, and the call ends with an error that wraps pix.ErrCircuitOpen and the breaker's own. A call
// that asked a breaker sent no round trip outside the attempts it admitted. A call that ends
// with ErrCircuitOpen was refused.
func checkBreakerRefusals(tr Trace) error {
	var v violations
	for i, c := range tr.Calls {
		admitted := 0
		for k, tk := range c.Tickets {
			if tk.Refused == nil {
				admitted += len(c.admittedTrips(tk))
				continue
			}
			if k != len(c.Tickets)-1 {
				v.addf("call %d asked the breaker again after its refusal %d", i, k+1)
			}
			if tk.TripsBefore != len(c.Trips) {
				v.addf("call %d: the breaker refused its attempt %d, yet %d round trips began after it", i, k+1,
					len(c.Trips)-tk.TripsBefore)
			}
			if !errors.Is(c.Err, pix.ErrCircuitOpen) || !errors.Is(c.Err, tk.Refused) {
				v.addf("call %d: the breaker refused it (%v), yet it ended with %v", i, tk.Refused, c.Err)
			}
		}
		if len(c.Tickets) > 0 && admitted != len(c.Trips) {
			v.addf("call %d sent %d round trips, %d of them in attempts the breaker admitted", i, len(c.Trips), admitted)
		}
		if last, _ := lastOf(c.Tickets); errors.Is(c.Err, pix.ErrCircuitOpen) && last.Refused == nil {
			v.addf("call %d ended with %v, yet the breaker refused none of its attempts", i, c.Err)
		}
	}
	return v.err()
}

// refusedButSent records attempt n of call i as refused by an open breaker, though its round
// trip still went out.
func refusedButSent(tr *Trace, i, n int) {
	tk := tr.ticket(i, n)
	tk.Refused, tk.Dones, tk.Counted = gobreaker.ErrOpenState, 0, nil
	tr.Calls[i].Tickets = tr.Calls[i].Tickets[:n]
	tr.Calls[i].Err = circuitOpen(tr.Calls[i].Err)
}

// sentUnasked adds to call i a round trip that no admitted attempt let through.
func sentUnasked(tr *Trace, i int) {
	c := &tr.Calls[i]
	c.Trips = append(c.Trips, c.Trips[len(c.Trips)-1])
}

// openWithoutRefusal makes call i end with ErrCircuitOpen though the breaker admitted every
// attempt it asked for.
func openWithoutRefusal(tr *Trace, i int) { tr.Calls[i].Err = circuitOpen(tr.Calls[i].Err) }

// circuitOpen is err ended by an open breaker instead, as pix wraps it.
func circuitOpen(err error) error {
	return errors.Join(pix.ErrCircuitOpen, gobreaker.ErrOpenState, err)
}

// breakerRefusalsPlanted are violations of this invariant, planted in the baseline trace.
var breakerRefusalsPlanted = []planted{
	{"a refused attempt sent", "round trips began after it", func(tr *Trace) { refusedButSent(tr, callUnknown, 2) }},
	{"a round trip no attempt admitted", "of them in attempts the breaker admitted",
		func(tr *Trace) { sentUnasked(tr, callDeadline) }},
	{"ErrCircuitOpen with no refusal", "yet the breaker refused none",
		func(tr *Trace) { openWithoutRefusal(tr, callDeadline) }},
}
