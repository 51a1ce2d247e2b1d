package durable

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"pixretry/durable/durabledriver"
	"pixretry/pix"
)

// Status is where an intent stands.
type Status string

// The statuses of an intent.
const (
	// StatusPending: the PSP has not answered definitively. The intent's job is trying.
	StatusPending Status = "pending"
	// StatusSettled: the PSP settled the payment. The intent holds its receipt.
	StatusSettled Status = "settled"
	// StatusRefused: the PSP refused the payment definitively. The intent holds the refusal.
	StatusRefused Status = "refused"
	// StatusOverdue: pending for longer than Config.MaxAge. An operator should look. Its job
	// keeps trying, and the intent is never discarded. It is never stored, only reported.
	StatusOverdue Status = "overdue"
)

// Intent is one stored payment.
type Intent struct {
	ID string // the caller's id, unique in the database
	// Key is the current Idempotency-Key, made when the intent was stored. It is replaced by
	// a new one only once the PSP's status lookup proved that nothing was paid under it and
	// nothing can be.
	Key  string
	Keys []string // every key used, oldest first; the last is Key
	// Payment is what is paid. Its ConsentID, if any, is the payer's consent that the payment
	// consumes, which the Payer gives pix on every call.
	Payment pix.Payment
	Status  Status
	// Attempts counts the job attempts under Key, each recorded before it left. 0 proves that
	// the PSP never saw Key, so nothing was paid under it. The job attempt that makes it 1
	// sends Key as a key that never left.
	Attempts int
	// FirstSent is when the first attempt under Key was recorded, by the database's clock, no
	// later than it left. It is zero while Attempts is 0. Past FirstSent + Config.KeyTTL the
	// PSP may have forgotten Key, so Key is looked up rather than sent again.
	FirstSent time.Time
	// PaymentID is the PSP's id of the payment under Key, for a [pix.Dialect] that looks
	// payments up by it ([pix.Ref]). It is learned from the PSP's answers: a receipt, or an
	// unknown outcome such as a pending payment. Once learned it is kept, and given back to
	// pix on every call under Key. It is "" until then, and again under a new key.
	PaymentID  string
	Error      string    // the last attempt's error, or the refusal; "" once settled
	EndToEndID string    // the receipt's endToEndId, once settled
	SettledAt  time.Time // the receipt's time, once settled
	CreatedAt  time.Time // when the intent was stored
}

// payArgs is the River job of an intent: its id, and nothing River does not need.
type payArgs struct {
	ID string `json:"id"`
}

// Kind names the job for River.
func (payArgs) Kind() string { return "pix_payment" }

// maxJobAttempts keeps River from discarding a job: a snooze gives its attempt back (River
// v0.51.2 takes one off the job's attempt count), so only failures such as a lost database
// count against it.
const maxJobAttempts = 10_000

// PayTx stores payment as an intent under id in tx, the caller's transaction, with its job.
// The payment's key is made here, once. Nothing is sent before tx commits, and nothing stays
// if it rolls back.
//
// The same id with the same payment returns the stored intent, in whatever status. The same
// id with another payment, another consent included, fails with ErrIDReused. An invalid payment fails with an error
// wrapping pix.ErrInvalidPayment, and an id that is empty or over 255 bytes with
// ErrInvalidID. Those store nothing, and tx stays usable.
func (p *Payer[TTx]) PayTx(ctx context.Context, tx TTx, id string, payment pix.Payment) (Intent, error) {
	if id == "" || len(id) > 255 {
		return Intent{}, fmt.Errorf("%w: %q is empty or over 255 bytes", ErrInvalidID, id)
	}
	if err := payment.Validate(); err != nil {
		return Intent{}, err
	}
	now := time.UnixMicro(p.now().UnixMicro()) // as stored
	key := p.newKey()
	in := Intent{ID: id, Key: key, Keys: []string{key}, Payment: payment, Status: StatusPending, CreatedAt: now}
	n, err := p.db.Exec(ctx, tx, `INSERT INTO pix_intent (id, idempotency_key, amount_cents, pix_key,
		description, consent_id, status, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
		ON CONFLICT (id) DO NOTHING`,
		id, in.Key, payment.AmountCents, payment.PixKey, payment.Description, payment.ConsentID, StatusPending,
		now.UnixMicro())
	if err != nil {
		return Intent{}, fmt.Errorf("durable: store intent %q: %w", id, err)
	}
	if n == 0 {
		return p.stored(ctx, tx, id, payment)
	}
	opts := &river.InsertOpts{MaxAttempts: maxJobAttempts}
	if _, err := p.river.InsertTx(ctx, tx, payArgs{ID: id}, opts); err != nil {
		return Intent{}, fmt.Errorf("durable: store the job of intent %q: %w", id, err)
	}
	return in, nil
}

// stored returns the intent already stored under id, if it holds payment.
func (p *Payer[TTx]) stored(ctx context.Context, tx TTx, id string, payment pix.Payment) (Intent, error) {
	in, err := p.intent(ctx, tx, id)
	if err != nil {
		return Intent{}, err
	}
	if in.Payment != payment {
		return Intent{}, fmt.Errorf("%w: %q holds %s", ErrIDReused, id, describe(in.Payment))
	}
	return in, nil
}

// Pay is PayTx in a transaction of its own.
func (p *Payer[TTx]) Pay(ctx context.Context, id string, payment pix.Payment) (Intent, error) {
	tx, err := p.db.Begin(ctx)
	if err != nil {
		return Intent{}, fmt.Errorf("durable: %w", err)
	}
	in, err := p.PayTx(ctx, tx, id, payment)
	if err != nil {
		return Intent{}, errors.Join(err, p.db.Rollback(ctx, tx))
	}
	if err := p.db.Commit(ctx, tx); err != nil {
		return Intent{}, fmt.Errorf("durable: commit intent %q: %w", id, err)
	}
	return in, nil
}

// Intent returns the intent stored under id, or an error wrapping ErrNotFound.
func (p *Payer[TTx]) Intent(ctx context.Context, id string) (Intent, error) {
	var none TTx
	return p.intent(ctx, none, id)
}

func (p *Payer[TTx]) intent(ctx context.Context, tx TTx, id string) (Intent, error) {
	r := p.db.QueryRow(ctx, tx, "SELECT "+intentColumns+" FROM pix_intent WHERE id = $1", id)
	in, err := p.scan(r)
	if isNoRows(err) {
		return Intent{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	if err != nil {
		return Intent{}, fmt.Errorf("durable: read intent %q: %w", id, err)
	}
	return in, nil
}

// scan reads a row of intentColumns, and reports a pending intent past MaxAge as overdue.
func (p *Payer[TTx]) scan(r durabledriver.Row) (Intent, error) {
	var in Intent
	var status, pastKeys string
	var firstSent, settledAt, createdAt int64
	err := r.Scan(&in.ID, &in.Key, &pastKeys, &in.Payment.AmountCents, &in.Payment.PixKey, &in.Payment.Description,
		&in.Payment.ConsentID, &status, &in.Attempts, &firstSent, &in.PaymentID, &in.Error, &in.EndToEndID, &settledAt,
		&createdAt)
	in.Keys = append(strings.Fields(pastKeys), in.Key)
	in.Status, in.CreatedAt = Status(status), time.UnixMicro(createdAt)
	if firstSent != 0 {
		in.FirstSent = time.UnixMicro(firstSent)
	}
	if settledAt != 0 {
		in.SettledAt = time.Unix(0, settledAt)
	}
	if in.Status == StatusPending && p.now().Sub(in.CreatedAt) > p.cfg.MaxAge {
		in.Status = StatusOverdue
	}
	return in, err
}

// describe says what p pays, in the words of a Pix payment: "R$ 25.50 to the Pix key
// pix@example.com", then the description and the consent, quoted, if any.
func describe(p pix.Payment) string {
	s := fmt.Sprintf("R$ %d.%02d to the Pix key %s", p.AmountCents/100, p.AmountCents%100, p.PixKey)
	if p.Description != "" {
		s += fmt.Sprintf(", described %q", p.Description)
	}
	if p.ConsentID != "" {
		s += fmt.Sprintf(", under consent %q", p.ConsentID)
	}
	return s
}
