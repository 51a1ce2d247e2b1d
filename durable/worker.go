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

// worker works the job of an intent: one SendWithKey per job attempt.
type worker[TTx any] struct {
	river.WorkerDefaults[payArgs]
	payer *Payer[TTx]
}

// crashPoint is called at the points where the crash tests kill the process. It does nothing
// outside them.
var crashPoint = func(string) {}

// Work sends the intent's payment with its stored key, once, after recording that the attempt
// is about to leave. A settlement is recorded with the job's completion, in one transaction.
// A refusal is recorded, then the job is cancelled. An unknown outcome, or an empty retry
// quota, is recorded, then the job is snoozed for the schedule's next wait.
func (w *worker[TTx]) Work(ctx context.Context, job *river.Job[payArgs]) error {
	p := w.payer
	in, err := p.Intent(ctx, job.Args.ID)
	if err != nil {
		return err
	}
	switch in.Status {
	case StatusSettled:
		return nil // recorded by a run that died before its job completed
	case StatusRefused:
		return river.JobCancel(errors.New(in.Error))
	}
	crashPoint("before-attempt")
	if err := p.record(ctx, in.ID, "attempts = attempts + 1"); err != nil {
		return err
	}
	in.Attempts++
	r, err := p.cfg.Client.SendWithKey(ctx, in.Key, in.Payment)
	crashPoint("answered")
	return w.outcome(ctx, job, in, r, err)
}

// outcome records what the PSP answered for the intent.
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
		if err := p.record(ctx, in.ID, "status = $3, last_error = $4", StatusRefused, sent.Error()); err != nil {
			return err
		}
		log.LogAttrs(ctx, slog.LevelWarn, "durable: refused", slog.String("error", sent.Error()))
		crashPoint("recorded")
		return river.JobCancel(sent)
	}
	if err := p.record(ctx, in.ID, "last_error = $3", sent.Error()); err != nil {
		return err
	}
	wait := p.cfg.delay(in.Attempts)
	log.LogAttrs(ctx, slog.LevelWarn, "durable: outcome unknown", slog.String("error", sent.Error()),
		slog.Bool("quota_empty", errors.Is(sent, retry.ErrQuotaExhausted)), slog.Duration("wait", wait))
	crashPoint("recorded")
	return river.JobSnooze(wait)
}

// record updates the pending intent id with set, whose placeholders start at $3.
func (p *Payer[TTx]) record(ctx context.Context, id, set string, args ...any) error {
	args = append([]any{id, time.Now().UnixMicro()}, args...)
	_, err := p.db.execPool(ctx, "UPDATE pix_intent SET "+set+", updated_at = $2 WHERE id = $1 AND status = 'pending'",
		args...)
	if err != nil {
		return fmt.Errorf("durable: record intent %q: %w", id, err)
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
