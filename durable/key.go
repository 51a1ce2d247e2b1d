package durable

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"
)

// mark records, before an attempt under in.Key leaves, one more attempt and, for the key's
// first, first_sent, by the database's clock. It commits before it returns. It returns when
// the key first left, on this process's clock: the database's clock gives every worker the
// same key deadline, and this process measures the time since on its own. It fails with
// errMovedOn when the intent is no longer pending under in.Key.
func (p *Payer[TTx]) mark(ctx context.Context, in *Intent) (time.Time, error) {
	tx, err := p.db.begin(ctx)
	if err != nil {
		return time.Time{}, fmt.Errorf("durable: %w", err)
	}
	now := p.db.now()
	var firstSent, dbNow int64
	err = p.db.queryRow(ctx, tx, `UPDATE pix_intent SET attempts = attempts + 1,
		first_sent = CASE WHEN first_sent = 0 THEN `+now+` ELSE first_sent END, updated_at = `+now+`
		WHERE id = $1 AND status = 'pending' AND idempotency_key = $2 RETURNING first_sent, `+now,
		in.ID, in.Key).Scan(&firstSent, &dbNow)
	if isNoRows(err) {
		err = fmt.Errorf("%w: %q is no longer pending under key %s", errMovedOn, in.ID, in.Key)
	}
	if err == nil {
		err = p.db.commit(ctx, tx)
	} else {
		err = errors.Join(err, p.db.rollback(ctx, tx))
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("durable: record an attempt of intent %q: %w", in.ID, err)
	}
	in.Attempts++
	in.FirstSent = time.UnixMicro(firstSent)
	return time.Now().Add(-time.Duration(dbNow-firstSent) * time.Microsecond), nil
}

// rotate gives the intent in a new key, after a status lookup proved that nothing was paid
// under in.Key and, the PSP having closed it, that nothing can be. It is a compare-and-set on
// in.Key, committed before the new key can leave: in.Key joins past_keys, and attempts and
// first_sent start again. Of two workers that rotate the same key, one wins and the other
// finds the intent moved on. rotate returns the new key, or "" if the intent no longer is
// pending under in.Key. why is the lookup's answer, recorded as the last error.
func (p *Payer[TTx]) rotate(ctx context.Context, in Intent, why error) (string, error) {
	key := uuid.NewString()
	n, err := p.db.execPool(ctx, `UPDATE pix_intent SET idempotency_key = $3, past_keys = $4, attempts = 0,
		first_sent = 0, last_error = $5, updated_at = $6
		WHERE id = $1 AND status = 'pending' AND idempotency_key = $2`,
		in.ID, in.Key, key, strings.Join(in.Keys, " "), why.Error(), time.Now().UnixMicro())
	if err != nil {
		return "", fmt.Errorf("durable: give intent %q a new key: %w", in.ID, err)
	}
	if n == 0 {
		return "", nil
	}
	p.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, "durable: new key", slog.String("id", in.ID),
		slog.String("key", key), slog.String("past_key", in.Key), slog.String("error", why.Error()))
	crashPoint("rotated")
	return key, nil
}
