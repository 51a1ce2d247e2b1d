package psp

import (
	"container/heap"
	"fmt"
	"time"
)

// statusPending is the status of a payment accepted and not yet ended.
const statusPending = "EM_PROCESSAMENTO"

// course is how a payment accepted pending ends: when, with which status, and why if rejected.
type course struct {
	due    time.Time // when it ends, in UTC
	status string    // statusSettled or statusRejected
	motivo string    // why it is rejected: the motivo of a lookup's answer
	seq    uint64    // the order of acceptance, which orders payments due at the same instant
}

// course returns how a payment of cents accepted at now, under the fault f its request met,
// ends, or nil if it settles at once. A pending fault decides first. Else a valor in the
// rejected range is rejected after CompleteAfter, even 0: the default range, 0 to 0, holds no
// valor, since a payment's is at least 0.01. Else a positive CompleteAfter settles it then.
func (b *book) course(cents int64, now time.Time, f Fault) *course {
	c := &course{due: now.Add(b.completeAfter), status: statusSettled, seq: b.accepted}
	switch {
	case f.Kind == kindPending:
		c.due = now.Add(f.Duration)
		if f.Then == thenRejected {
			c.status, c.motivo = statusRejected, "rejected by a pending fault"
		}
	case b.rejectFrom <= cents && cents <= b.rejectTo:
		c.status = statusRejected
		c.motivo = fmt.Sprintf("valor %s is in the range the PSP rejects, %s to %s", FormatAmount(cents),
			FormatAmount(b.rejectFrom), FormatAmount(b.rejectTo))
	case b.completeAfter <= 0:
		return nil
	}
	b.accepted++
	return c
}

// endDue ends every pending payment due by now, in the order of their ends. Each ends at its
// due time, however late this runs, so a payment is pending until exactly its end for whoever
// looks: the Server calls it each time it locks.
func (b *book) endDue(now time.Time) {
	for len(b.pending) > 0 && !now.Before(b.pending[0].end.due) {
		e := heap.Pop(&b.pending).(*entry)
		e.p.SettledAt = e.end.due
		b.finish(e, e.end.status)
	}
}

// pendingQueue is a heap (container/heap) of the pending entries, the next to end first.
type pendingQueue []*entry

func (q pendingQueue) Len() int { return len(q) }

func (q pendingQueue) Less(i, j int) bool {
	a, b := q[i].end, q[j].end
	return a.due.Before(b.due) || a.due.Equal(b.due) && a.seq < b.seq
}

func (q pendingQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }

func (q *pendingQueue) Push(x any) { *q = append(*q, x.(*entry)) }

func (q *pendingQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	old[len(old)-1] = nil // let it go once it expires
	*q = old[:len(old)-1]
	return e
}

// lock locks the Server and, unless it is closed, ends the pending payments due by now. It
// returns now. Every method that reads or changes the book locks with it, and unlocks with
// unlock, which reports what ended and sets the timer for the next end.
func (s *Server) lock() time.Time {
	s.mu.Lock()
	now := time.Now()
	if !s.closed {
		s.book.endDue(now)
	}
	return now
}

// arm sets the Server's timer to the end of the next pending payment, or stops it if none is
// pending or the Server is closed. The timer only locks and unlocks: lock ends what is due.
// The caller holds the lock.
func (s *Server) arm() {
	var next time.Time
	if len(s.book.pending) > 0 && !s.closed {
		next = s.book.pending[0].end.due
	}
	switch {
	case next.Equal(s.wake):
	case next.IsZero():
		s.timer.Stop()
	case s.timer == nil:
		s.timer = time.AfterFunc(time.Until(next), s.tick)
	default:
		s.timer.Reset(time.Until(next))
	}
	s.wake = next
}

// tick is the timer's: it ends the payments due, reports them and sets the timer again.
func (s *Server) tick() {
	s.lock()
	s.wake = time.Time{} // the timer has fired: set it again even for the same instant
	s.unlock()
}
