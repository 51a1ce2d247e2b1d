package durable

import (
	"context"
	"fmt"
	"time"

	"pixretry/durable/durabledriver"
)

// Stats counts the intents of a database, as Payer.Stats read them at one instant.
type Stats struct {
	// Intents counts the intents by status. It holds StatusPending, StatusOverdue,
	// StatusSettled and StatusRefused, each 0 when no intent has it. A pending intent older
	// than Config.MaxAge counts as StatusOverdue only, as Intents reports it.
	Intents map[Status]int64
	// OldestPending is when the oldest pending intent was stored, overdue or not. It is zero
	// when no intent is pending.
	OldestPending time.Time
}

// countIntents counts the intents of each status, with those stored before $1 and the oldest.
// The index on (status, created_at) answers it without reading the table.
const countIntents = `SELECT status, count(*), count(CASE WHEN created_at < $1 THEN 1 END), min(created_at)
	FROM pix_intent GROUP BY status`

// Stats counts the intents by status and finds the oldest pending one. It reads the index of
// status and creation time in one query, one entry per intent, so its cost grows with the
// table. The counts are the database's: they include the intents of other processes, and
// Stats works without Start. An error, an ended ctx included, is wrapped as
// "durable: count intents: ...".
func (p *Payer[TTx]) Stats(ctx context.Context) (Stats, error) {
	s := Stats{Intents: map[Status]int64{StatusPending: 0, StatusOverdue: 0, StatusSettled: 0, StatusRefused: 0}}
	err := p.db.Query(ctx, countIntents, func(r durabledriver.Row) error {
		var status string
		var n, old, oldest int64
		if err := r.Scan(&status, &n, &old, &oldest); err != nil {
			return err
		}
		if Status(status) == StatusPending {
			s.Intents[StatusOverdue], n = old, n-old
			s.OldestPending = time.UnixMicro(oldest)
		}
		s.Intents[Status(status)] = n
		return nil
	}, overdueBefore(p.now(), p.cfg.MaxAge))
	if err != nil {
		return Stats{}, fmt.Errorf("durable: count intents: %w", err)
	}
	return s, nil
}

// overdueBefore is the created_at below which an intent is older than maxAge at now, as scan
// judges it. created_at counts microseconds, so the instant is rounded up to one.
func overdueBefore(now time.Time, maxAge time.Duration) int64 {
	return now.Add(-maxAge).Add(time.Microsecond - time.Nanosecond).UnixMicro()
}
