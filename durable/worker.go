package durable

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"pixretry/durable/durabledriver"
	"pixretry/pix"
	"pixretry/retry"
)

// worker works the job of an intent: one call under its key per job attempt.
type worker[TTx any] struct {
	river.WorkerDefaults[payArgs]
	payer *Payer[TTx]
}

// errMovedOn reports an intent that another worker changed since it was read: it is no longer
// pending under the key at hand. The job reads it again.
var errMovedOn = errors.New("durable: the intent moved on")

// Work pays the intent under its current key, once, after marking that the attempt is about
// to leave (see send). The key's first attempt sends it as a key that never left. A later
// attempt resumes it through [pix.Client.Resume]: it sends the key again while the PSP
// remembers it, and looks it up after, with the PSP's id of the payment if one was learned.
// A crash between the mark and the send leaves the key's attempts counted, so the next job
// attempt resumes the key. A settlement is recorded, then River completes the job: a job run
// again after a crash between the two finds its intent settled and does nothing. A refusal
// is recorded, then the job is cancelled. A lookup that proves nothing was paid replaces the
// key (see rotate), and the new key is tried at once, once per job attempt. An unknown
// outcome, or an empty retry quota, is recorded, then the job is snoozed for the schedule's
// next wait. An answer under a key that another worker replaced meanwhile is not recorded:
// the intent is tried again under its new key. So is the refusal of a key's first attempt
// once another worker marked the intent (see refuse).
func (w *worker[TTx]) Work(ctx context.Context, job *river.Job[payArgs]) error {
	p := w.payer
	rotated := false
	for {
		p.cfg.Testing.crash("before-attempt")
		in, firstSent, err := p.mark(ctx, job.Args.ID)
		if errors.Is(err, errNotPending) {
			return p.ended(ctx, job.Args.ID)
		}
		if err != nil {
			return err
		}
		p.cfg.Testing.crash("marked")
		r, err := p.send(ctx, in, firstSent)
		p.cfg.Testing.crash("answered")
		if judge(err) == rotate && !rotated {
			rotated = true
			if _, err := p.rotate(ctx, in, err); err != nil {
				return err
			}
			continue // under the new key, this worker's or another's
		}
		if err := w.outcome(ctx, in, r, err); !errors.Is(err, errMovedOn) {
			return err
		}
	}
}

// ended ends the job of an intent that is no longer pending: settled by another worker, or by
// a run that died before its job completed; or refused.
func (p *Payer[TTx]) ended(ctx context.Context, id string) error {
	in, err := p.Intent(ctx, id)
	if err != nil {
		return err
	}
	if in.Status == StatusRefused {
		return river.JobCancel(errors.New(in.Error))
	}
	return nil
}

// outcome records what the PSP answered for the intent. It fails with errMovedOn when the
// intent is no longer pending under in.Key.
func (w *worker[TTx]) outcome(ctx context.Context, in Intent, r pix.Receipt, sent error) error {
	p := w.payer
	log := p.cfg.Logger.With(slog.String("id", in.ID), slog.String("key", in.Key), slog.Int("resumptions", in.Attempts))
	level := slog.LevelWarn
	if p.logTrouble(ctx, sent) {
		level = slog.LevelDebug // the trouble's own record says it, at a bounded rate
	}
	switch judge(sent) {
	case settle:
		if err := p.settle(ctx, in.ID, r); err != nil {
			return err
		}
		log.LogAttrs(ctx, slog.LevelInfo, "durable: settled", slog.String("endToEndId", r.EndToEndID))
		p.cfg.Testing.crash("recorded")
		return nil
	case refuse:
		if err := p.refuse(ctx, in, sent); err != nil {
			return err
		}
		log.LogAttrs(ctx, slog.LevelWarn, "durable: refused", slog.String("error", sent.Error()))
		p.cfg.Testing.crash("recorded")
		return river.JobCancel(sent)
	}
	if err := p.record(ctx, in, "last_error = $4, payment_id = "+learned("$5"), sent.Error(), learnedID(sent)); err != nil {
		return err
	}
	wait := p.cfg.delay(in.Attempts)
	msg := "durable: outcome unknown"
	if errors.Is(sent, pix.ErrPending) {
		level, msg = min(level, slog.LevelInfo), "durable: pending at the PSP" // accepted, and ending later as PSPs do
	}
	log.LogAttrs(ctx, level, msg, slog.String("error", sent.Error()),
		slog.Bool("quota_empty", errors.Is(sent, retry.ErrQuotaExhausted)), slog.Duration("wait", wait))
	p.cfg.Testing.crash("recorded")
	return river.JobSnooze(wait)
}

// record updates the intent in, if still pending under in.Key, with set, whose placeholders
// start at $4, in a group commit. It fails with errMovedOn if it is not.
func (p *Payer[TTx]) record(ctx context.Context, in Intent, set string, args ...any) error {
	return p.recordIf(ctx, in, "", set, args...)
}

// refuse records the refusal sent of in, as record does. The refusal of a key's first attempt
// is recorded only while no later attempt was marked: that attempt, another worker's, may have
// paid under the key before the PSP refused this one, having consumed its consent. The worker
// then reads the intent again and resumes its key.
func (p *Payer[TTx]) refuse(ctx context.Context, in Intent, sent error) error {
	cond := ""
	if neverSent(in) {
		cond = " AND attempts = 1"
	}
	return p.recordIf(ctx, in, cond, "status = $4, last_error = $5", StatusRefused, sent.Error())
}

// recordIf is record for an intent that also meets cond, an SQL condition that starts with
// AND, or "" for none.
func (p *Payer[TTx]) recordIf(ctx context.Context, in Intent, cond, set string, args ...any) error {
	w := &durabledriver.Write{Query: "UPDATE pix_intent SET " + set +
		", updated_at = $2 WHERE id = $1 AND status = 'pending' AND idempotency_key = $3" + cond,
		Args: append([]any{in.ID, time.Now().UnixMicro(), in.Key}, args...)}
	if err := p.group.do(ctx, p.db, w); err != nil {
		return fmt.Errorf("durable: record intent %q: %w", in.ID, err)
	}
	if w.N == 0 {
		return fmt.Errorf("%w: %q is no longer pending under key %s, or was attempted again", errMovedOn, in.ID, in.Key)
	}
	return nil
}

// settle records the receipt, and the PSP's id of the payment it gives, in a group commit.
// River completes the job once Work returns.
func (p *Payer[TTx]) settle(ctx context.Context, id string, r pix.Receipt) error {
	err := p.group.do(ctx, p.db, &durabledriver.Write{Query: `UPDATE pix_intent SET status = $2, end_to_end_id = $3, settled_at = $4,
		last_error = '', updated_at = $5, payment_id = ` + learned("$6") + ` WHERE id = $1 AND status = 'pending'`,
		Args: []any{id, StatusSettled, r.EndToEndID, r.SettledAt.UnixNano(), time.Now().UnixMicro(), r.Ref.PaymentID}})
	if err != nil {
		return fmt.Errorf("durable: record the settlement of intent %q: %w", id, err)
	}
	return nil
}

// isNoRows reports whether err says a query found no row, on either engine: pgx's
// ErrNoRows wraps sql.ErrNoRows too.
func isNoRows(err error) bool {
	return errors.Is(err, sql.ErrNoRows)
}
