package webhook

import (
	"container/heap"
	"time"

	"pixretry/retry"
)

// delivery is a delivery under way or ended, and what the Sender needs to try it.
type delivery struct {
	Delivery // the record

	seq     uint64        // the order of queueing: ties in due are broken by it, and drops take the least
	gen     uint64        // the Sender's gen when it was queued
	body    []byte        // the same bytes at every try
	failing int           // the tries still to fail unsent (a fail fault)
	due     time.Time     // when its next try may start, once it is in the due heap
	index   int           // its index in the due heap; -1 while held, in a try or ended
	holds   []*delivery   // the deliveries a reorder fault holds until this one has been tried
	inTry   bool          // a try is in flight, so it cannot be dropped
	delay   time.Duration // before its first try (a delay fault)
}

// newDelivery is a delivery of body, recorded as rec, the latest queued.
func (s *Sender) newDelivery(rec Delivery, body []byte) *delivery {
	s.seq++
	return &delivery{Delivery: rec, seq: s.seq, gen: s.gen, body: body, index: -1}
}

// queue records d and puts it under way, due after its delay unless held, dropping the oldest
// delivery waiting if the queue is full. If every delivery under way is in a try, d itself is
// dropped.
func (s *Sender) queue(d *delivery, held bool) {
	s.remember(d)
	if len(s.queued) >= s.cfg.Queue {
		var oldest *delivery
		for q := range s.queued {
			if !q.inTry && (oldest == nil || q.seq < oldest.seq) {
				oldest = q
			}
		}
		if oldest == nil {
			s.drop(d)
			return
		}
		s.drop(oldest)
	}
	s.queued[d] = struct{}{}
	if !held {
		s.schedule(d, d.delay)
	}
}

// schedule makes d due after wait.
func (s *Sender) schedule(d *delivery, wait time.Duration) {
	d.due = time.Now().Add(wait)
	heap.Push(&s.due, d)
	s.poke()
}

// poke wakes the dispatcher to look at the due deliveries and the free slots again.
func (s *Sender) poke() {
	select {
	case s.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// drop ends d, which waits, as Dropped. It releases none of the deliveries d holds: those still
// under way were queued before d and wait, never in a try, so drop takes them first.
func (s *Sender) drop(d *delivery) {
	if d.index >= 0 {
		heap.Remove(&s.due, d.index)
	}
	d.State = Dropped
	s.stats.Dropped++
	delete(s.queued, d)
	s.cfg.Logger.Warn("psp: webhook dropped: the queue is full", "id", d.ID, "end_to_end_id", d.EndToEndID,
		"queue", s.cfg.Queue)
}

// release makes the deliveries that d holds due now, those still under way. It does so once:
// later calls do nothing.
func (s *Sender) release(d *delivery) {
	for _, h := range d.holds {
		if _, queued := s.queued[h]; queued {
			s.schedule(h, h.delay)
		}
	}
	d.holds = nil
}

// dispatch starts the tries that are due, earliest first, ties in the order queued, at most
// Config.Parallel at once, until the Sender closes.
func (s *Sender) dispatch() {
	defer s.wg.Done()
	alarm := time.NewTimer(time.Hour)
	defer alarm.Stop()
	for {
		if next, ok := s.startDue(); ok {
			alarm.Reset(next)
		} else {
			alarm.Stop()
		}
		select {
		case <-alarm.C:
		case <-s.wake:
		case <-s.ctx.Done():
			return
		}
	}
}

// startDue starts a try of every delivery due, as far as slots allow. It returns how long until
// the next is due, or false if none is or no slot is free.
func (s *Sender) startDue() (next time.Duration, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	for s.inFlight < s.cfg.Parallel && len(s.due) > 0 && !s.due[0].due.After(now) {
		d := heap.Pop(&s.due).(*delivery)
		d.inTry = true
		s.inFlight++
		s.wg.Add(1)
		go s.tryOnce(d, len(d.Attempts)+1)
	}
	if s.inFlight == s.cfg.Parallel || len(s.due) == 0 {
		return 0, false
	}
	return s.due[0].due.Sub(now), true
}

// tryOnce makes try n of d, records it, and schedules the next or ends d.
func (s *Sender) tryOnce(d *delivery, n int) {
	defer s.wg.Done()
	a := s.try(d)
	state := s.settle(d, n, a)
	s.log(d, n, a, state)
}

// settle records try n of d, a, and schedules d's next try after a full-jitter wait, or ends
// it. It returns d's state, or "" if the Sender has closed or Reset has forgotten d, and then
// records nothing. After d's first try, it releases the deliveries d holds.
func (s *Sender) settle(d *delivery, n int, a Attempt) (state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight--
	s.poke() // a slot is free
	if s.ctx.Err() != nil || d.gen != s.gen {
		return ""
	}
	d.inTry = false
	d.Attempts = append(d.Attempts, a)
	if n > 1 {
		s.stats.Retried++
	}
	s.release(d) // after the first try only: it empties d.holds
	retried := a.Status == 0 || a.Status == 429 || a.Status/100 == 5
	switch {
	case a.Status/100 == 2:
		d.State = Delivered
		s.stats.Sent++
	case !retried:
		d.State = Refused
		s.stats.Refused++
	case n == s.cfg.Attempts:
		d.State = GivenUp
		s.stats.GivenUp++
	default:
		s.schedule(d, retry.FullJitter(retry.Ceiling(s.policy, n), s.cfg.Rand()))
		return d.State
	}
	delete(s.queued, d)
	return d.State
}

// dueHeap orders the deliveries due by when, ties by the order queued.
type dueHeap []*delivery

func (h dueHeap) Len() int { return len(h) }
func (h dueHeap) Less(i, j int) bool {
	return h[i].due.Before(h[j].due) || h[i].due.Equal(h[j].due) && h[i].seq < h[j].seq
}
func (h dueHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *dueHeap) Push(x any) {
	d := x.(*delivery)
	d.index = len(*h)
	*h = append(*h, d)
}
func (h *dueHeap) Pop() any {
	old := *h
	d := old[len(old)-1]
	old[len(old)-1], d.index = nil, -1
	*h = old[:len(old)-1]
	return d
}
