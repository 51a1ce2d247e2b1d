package durable

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"pixretry/pix"
	"pixretry/retry"
)

// worker works the job of an intent: one resumption of its key per job attempt.
type worker[TTx any] struct {
	river.WorkerDefaults[payArgs]
	payer *Payer[TTx]
}

// crashPoint is called at the points where the crash tests kill the process. It does nothing
// outside them.
var crashPoint = func(string) {}

// errMovedOn reports an intent that another worker changed since it was read: it is no longer
// pending under the key at hand. The job reads it again.
var errMovedOn = errors.New("durable: the intent moved on")

// Work resumes the intent's payment under its current key, once, after marking that the
// attempt is about to leave, through [pix.Client.Resume]: it sends the key again while the
// PSP remembers it, and looks it up after. A settlement is recorded with the job's
// completion, in one transaction. A refusal is recorded, then the job is cancelled. A lookup
// that proves nothing was paid replaces the key (see rotate), and the new key is tried at
// once, once per job attempt. An unknown outcome, or an empty retry quota, is recorded, then
// the job is snoozed for the schedule's next wait. An intent that another worker changed
// meanwhile is read again.
func (w *worker[TTx]) Work(ctx context.Context, job *river.Job[payArgs]) error {
	p := w.payer
	rotated := false
	for {
		in, err := p.Intent(ctx, job.Args.ID)
		if err != nil {
			return err
		}
		switch in.Status {
		case StatusSettled:
			return nil // recorded by another worker, or by a run that died before its job completed
		case StatusRefused:
			return river.JobCancel(errors.New(in.Error))
		}
		crashPoint("before-attempt")
		firstSent, err := p.mark(ctx, &in)
		if errors.Is(err, errMovedOn) {
			continue
		}
		if err != nil {
			return err
		}
		crashPoint("marked")
		r, err := p.cfg.Client.Resume(ctx, &pix.OutcomeUnknownError{Key: in.Key, FirstSent: firstSent}, in.Payment)
		crashPoint("answered")
		if judge(err) == rotate && !rotated {
			rotated = true
			if _, err := p.rotate(ctx, in, err); err != nil {
				return err
			}
			continue // under the new key, this worker's or another's
		}
		if err := w.outcome(ctx, job, in, r, err); !errors.Is(err, errMovedOn) {
			return err
		}
	}
}

// outcome records what the PSP answered for the intent. It fails with errMovedOn when the
// intent is no longer pending under in.Key.
func (w *worker[TTx]) outcome(ctx context.Context, job *river.Job[payArgs], in Intent, r pix.Receipt, sent error) error {
	p := w.payer
	log := p.cfg.Logger.With(slog.String("id", in.ID), slog.String("key", in.Key), slog.Int("attempts", in.Attempts))
	switch judge(sent) {
	case settle:
		if err := p.settle(ctx, job, in.ID, r); err != nil {
			return err
		}
		log.LogAttrs(ctx, slog.LevelInfo, "durable: settled", slog.String("endToEndId", r.EndToEndID))
		crashPoint("recorded")
		return nil
	case refuse:
		if err := p.record(ctx, in, "status = $4, last_error = $5", StatusRefused, sent.Error()); err != nil {
			return err
		}
		log.LogAttrs(ctx, slog.LevelWarn, "durable: refused", slog.String("error", sent.Error()))
		crashPoint("recorded")
		return river.JobCancel(sent)
	}
	if err := p.record(ctx, in, "last_error = $4", sent.Error()); err != nil {
		return err
	}
	wait := p.cfg.delay(in.Attempts)
	log.LogAttrs(ctx, slog.LevelWarn, "durable: outcome unknown", slog.String("error", sent.Error()),
		slog.Bool("quota_empty", errors.Is(sent, retry.ErrQuotaExhausted)), slog.Duration("wait", wait))
	crashPoint("recorded")
	return river.JobSnooze(wait)
}

// record updates the intent in, if still pending under in.Key, with set, whose placeholders
// start at $4. It fails with errMovedOn if it is not.
func (p *Payer[TTx]) record(ctx context.Context, in Intent, set string, args ...any) error {
	args = append([]any{in.ID, time.Now().UnixMicro(), in.Key}, args...)
	n, err := p.db.execPool(ctx, "UPDATE pix_intent SET "+set+
		", updated_at = $2 WHERE id = $1 AND status = 'pending' AND idempotency_key = $3", args...)
	if err != nil {
		return fmt.Errorf("durable: record intent %q: %w", in.ID, err)
	}
	if n == 0 {
		return fmt.Errorf("%w: %q is no longer pending under key %s", errMovedOn, in.ID, in.Key)
	}
	return nil
}

// settle records the receipt and completes the job in one transaction.
func (p *Payer[TTx]) settle(ctx context.Context, job *river.Job[payArgs], id string, r pix.Receipt) error {
	tx, err := p.db.begin(ctx)
	if err != nil {
		return fmt.Errorf("durable: %w", err)
	}
	_, err = p.db.exec(ctx, tx, `UPDATE pix_intent SET status = $2, end_to_end_id = $3, settled_at = $4,
		last_error = '', updated_at = $5 WHERE id = $1 AND status = 'pending'`,
		id, StatusSettled, r.EndToEndID, r.SettledAt.UnixNano(), time.Now().UnixMicro())
	if err == nil {
		err = p.db.complete(ctx, tx, job)
	}
	if err == nil {
		err = p.db.commit(ctx, tx)
	} else {
		err = errors.Join(err, p.db.rollback(ctx, tx))
	}
	if err != nil {
		return fmt.Errorf("durable: record the settlement of intent %q: %w", id, err)
	}
	return nil
}

// isNoRows reports whether err says a query found no row, on either engine.
func isNoRows(err error) bool {
	return errors.Is(err, sql.ErrNoRows) || errors.Is(err, pgx.ErrNoRows)
}
