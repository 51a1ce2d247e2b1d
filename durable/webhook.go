package durable

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"time"

	"pixretry/durable/durabledriver"
	"pixretry/pix"
)

// ErrWebhookMismatch reports a webhook whose valor is not its intent's. Nothing was changed:
// a PSP that reports another amount under the key is not one to take at its word.
var ErrWebhookMismatch = errors.New("durable: the webhook's valor is not its intent's")

// ApplyWebhook applies w, a terminal status the PSP delivered (see [pix.WebhookHandler]), to
// the pending intent whose current key is w.IdempotencyKey, once: REALIZADO settles it with
// w's endToEndId and horario, NAO_REALIZADO refuses it (nothing was paid), its Error naming the
// webhook and the PSP's reason, when it gives one. It returns once the change is committed, so
// that a PSP that gets no answer before a crash delivers again.
//
// The PSP delivers at least once, in any order across payments, so ApplyWebhook is
// idempotent: an intent that is no longer pending is never changed, and nil is returned; the
// job of an intent that a webhook ended finds it ended and stops. A webhook and the job's own
// lookup may race: the first to commit wins, and the other changes nothing. A valor other
// than the intent's fails with ErrWebhookMismatch. A key that only an intent's earlier keys
// hold is logged at Error and changes nothing: the PSP proved that key unpaid before the
// intent moved on. A key no intent has used fails with an error wrapping
// pix.ErrUnknownPayment.
func (p *Payer[TTx]) ApplyWebhook(ctx context.Context, w pix.Webhook) error {
	p.cfg.Testing.crash("webhook-received")
	in, err := p.intentByKey(ctx, w.IdempotencyKey)
	if err != nil {
		return err
	}
	switch {
	case in.Key != w.IdempotencyKey:
		p.cfg.Logger.LogAttrs(ctx, slog.LevelError, "durable: a webhook for a key the intent gave up; nothing changed",
			slog.String("id", in.ID), slog.String("webhook_key", w.IdempotencyKey), slog.String("status", w.Status))
		return nil
	case in.Payment.AmountCents != w.AmountCents:
		p.cfg.Logger.LogAttrs(ctx, slog.LevelError, "durable: a webhook with another valor; nothing changed",
			slog.String("id", in.ID), slog.String("key", in.Key), slog.String("webhook", w.ID),
			slog.Int64("cents", in.Payment.AmountCents), slog.Int64("webhook_cents", w.AmountCents))
		return fmt.Errorf("%w: intent %q pays %d cents, the webhook %s says %d", ErrWebhookMismatch, in.ID,
			in.Payment.AmountCents, w.ID, w.AmountCents)
	case in.Status != StatusPending && in.Status != StatusOverdue:
		return nil
	}
	write := &durabledriver.Write{Query: `UPDATE pix_intent SET status = $3, end_to_end_id = $4, settled_at = $5,
		last_error = $6, updated_at = $7 WHERE id = $1 AND idempotency_key = $2 AND status = 'pending'`,
		Args: []any{in.ID, in.Key, StatusSettled, w.EndToEndID, w.At.UnixNano(), "", time.Now().UnixMicro()}}
	if !w.Settled() {
		write.Args[2], write.Args[3], write.Args[4] = StatusRefused, "", int64(0)
		refusal := fmt.Sprintf("%v: the PSP's webhook %s says %s for endToEndId %s", pix.ErrRejected, w.ID, w.Status,
			w.EndToEndID)
		if w.Reason != "" {
			refusal += ": " + w.Reason
		}
		write.Args[5] = refusal
	}
	if err := p.group.do(ctx, p.db, write); err != nil {
		return fmt.Errorf("durable: record webhook %s for intent %q: %w", w.ID, in.ID, err)
	}
	if write.N > 0 {
		p.cfg.Logger.LogAttrs(ctx, slog.LevelInfo, "durable: webhook applied", slog.String("id", in.ID),
			slog.String("key", in.Key), slog.String("status", w.Status), slog.String("webhook", w.ID))
	}
	p.cfg.Testing.crash("webhook-stored")
	return nil
}

// keyPattern holds every key a Payer makes, those of every Dialect's NewKey in this repository
// included. A key outside it is refused before any query, and so can never be a LIKE pattern
// ("%", "_") that matches the past keys of another intent.
var keyPattern = regexp.MustCompile(`^[A-Za-z0-9-]{1,64}$`)

// intentByKey returns the intent whose current key is key or, failing that, the one whose
// earlier keys hold it; else an error wrapping pix.ErrUnknownPayment.
func (p *Payer[TTx]) intentByKey(ctx context.Context, key string) (Intent, error) {
	if !keyPattern.MatchString(key) { // not a key PayTx or rotate made
		return Intent{}, fmt.Errorf("%w: %q is not a key of this Payer", pix.ErrUnknownPayment, key)
	}
	var none TTx
	for _, where := range []string{"idempotency_key = $1", "(' ' || past_keys || ' ') LIKE ('% ' || $1 || ' %')"} {
		in, err := p.scan(p.db.QueryRow(ctx, none, "SELECT "+intentColumns+" FROM pix_intent WHERE "+where, key))
		if err == nil {
			return in, nil
		}
		if !isNoRows(err) {
			return Intent{}, fmt.Errorf("durable: read the intent of key %s: %w", key, err)
		}
	}
	return Intent{}, fmt.Errorf("%w: no intent has used key %s", pix.ErrUnknownPayment, key)
}
