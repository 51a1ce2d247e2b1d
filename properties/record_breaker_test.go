package properties

import (
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"

	"pixretry/pix"
)

// breakerSettings is a breaker drawn for a run: gobreaker's two-step breaker. It trips after
// Failures consecutive failures, stays open for Timeout, and lets MaxRequests probes through
// when half-open. It runs on the clock of the run's synctest bubble.
type breakerSettings struct {
	Failures    uint32
	Timeout     time.Duration
	MaxRequests uint32
}

// newBreaker builds the breaker that every call of a run shares.
func (s breakerSettings) newBreaker() *gobreaker.TwoStepCircuitBreaker[struct{}] {
	return gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name: "psp", MaxRequests: s.MaxRequests, Timeout: s.Timeout,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= s.Failures },
	})
}

// recordingBreaker passes one call's questions on to the run's breaker and records each as a
// Ticket. trips counts the round trips the call has begun.
type recordingBreaker struct {
	next    pix.Breaker
	trips   *attemptGuard
	mu      sync.Mutex
	tickets []Ticket
}

func (b *recordingBreaker) Allow() (func(error), error) {
	done, err := b.next.Allow()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tickets = append(b.tickets, Ticket{Refused: err, TripsBefore: b.trips.begun()})
	if err != nil {
		return nil, err
	}
	n := len(b.tickets) - 1
	return func(counted error) {
		b.mu.Lock()
		tk := &b.tickets[n]
		tk.Dones, tk.Counted, tk.TripsAtDone = tk.Dones+1, counted, b.trips.begun()
		b.mu.Unlock()
		done(counted)
	}, nil
}

// taken returns the tickets recorded so far.
func (b *recordingBreaker) taken() []Ticket {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Ticket(nil), b.tickets...)
}
