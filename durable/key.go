package durable

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"

	"pixretry/durable/durabledriver"
)

// mark records, before an attempt leaves, one more attempt under the intent's current key
// and, for the key's first, first_sent, by the database's clock, and returns the intent as
// marked. The key's first attempt is the one whose intent comes back with 1 attempt (see
// neverSent). Its write commits with those of other workers (see groupCommit) before it returns.
// It also returns when the key first left, on this process's clock: the database's clock
// gives every worker the same key deadline, and this process measures the time since on its
// own. It fails with errNotPending when the intent is not pending, or not stored.
func (p *Payer[TTx]) mark(ctx context.Context, id string) (Intent, time.Time, error) {
	now := p.db.Now()
	var in Intent
	var dbNow int64
	err := p.group.do(ctx, p.db, &durabledriver.Write{
		Query: `UPDATE pix_intent SET attempts = attempts + 1,
		first_sent = CASE WHEN first_sent = 0 THEN ` + now + ` ELSE first_sent END, updated_at = ` + now + `
		WHERE id = $1 AND status = 'pending' RETURNING ` + intentColumns + `, ` + now,
		Args: []any{id},
		Scan: func(r durabledriver.Row) (err error) {
			in, err = p.scan(extraColumn{r, &dbNow})
			return err
		},
	})
	if isNoRows(err) {
		return Intent{}, time.Time{}, fmt.Errorf("%w: %q", errNotPending, id)
	}
	if err != nil {
		return Intent{}, time.Time{}, fmt.Errorf("durable: record an attempt of intent %q: %w", id, err)
	}
	return in, time.Now().Add(-time.Duration(dbNow-in.FirstSent.UnixMicro()) * time.Microsecond), nil
}

// errNotPending reports an intent that mark found settled, refused or absent.
var errNotPending = errors.New("durable: the intent is not pending")

// extraColumn is a row whose last column goes to dest, after the columns its reader asks for.
type extraColumn struct {
	durabledriver.Row
	dest any
}

func (r extraColumn) Scan(dest ...any) error { return r.Row.Scan(append(dest, r.dest)...) }

// newKey returns a fresh key in the form of Config.Client's Dialect, or a random UUID for a
// Payer without a Client, which only stores intents: every dialect of this repository takes one
// of its own keys, and a UUID carries in the double's.
func (p *Payer[TTx]) newKey() string {
	if p.cfg.Client != nil {
		return p.cfg.Client.NewKey()
	}
	return uuid.NewString()
}

// rotate gives the intent in a new key, after a status lookup proved that nothing was paid
// under in.Key and, the PSP having closed it, that nothing can be. It is a compare-and-set on
// in.Key, committed before the new key can leave: in.Key joins past_keys, attempts and
// first_sent start again, so the new key's first attempt sends it as a key that never left,
// and the PSP's id of the old key's payment is dropped. Of two workers that rotate the same key, one wins and the other
// finds the intent moved on. rotate returns the new key, or "" if the intent no longer is
// pending under in.Key. why is the lookup's answer, recorded as the last error.
func (p *Payer[TTx]) rotate(ctx context.Context, in Intent, why error) (string, error) {
	key := p.newKey()
	n, err := p.db.ExecPool(ctx, `UPDATE pix_intent SET idempotency_key = $3, past_keys = $4, attempts = 0,
		first_sent = 0, payment_id = '', last_error = $5, updated_at = $6
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
	if p.cfg.Client != nil {
		p.cfg.Client.KeyRotated(ctx, in.Key, key)
	}
	p.cfg.Testing.crash("rotated")
	return key, nil
}
