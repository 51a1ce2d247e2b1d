package durable

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivermigrate"

	"pixretry/durable/durabledriver"
	"pixretry/durable/durablepgx"
	"pixretry/durable/durablesqlite"
)

// A database that version 4 of the schema made, before intents had a consent and a payment
// id, opens at version 5 and keeps its intents: each reads as it was stored, with no consent
// and no payment id, and is worked to its settlement.
func TestSQLiteUpgradesVersion4(t *testing.T) {
	t.Parallel()
	db, _ := mustEmptySQLite(t)
	checkUpgradeFrom4(t, durablesqlite.New(db))
}

func TestPostgresUpgradesVersion4(t *testing.T) {
	t.Parallel()
	pool, err := pgxpool.New(context.Background(), mustPostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close) // after the Payer's Stop: cleanups run last first
	checkUpgradeFrom4(t, durablepgx.New(pool))
}

// checkUpgradeFrom4 makes d's database as version 4 left one, stores intents in it as version
// 4 did, then holds New on it to version 5 and to the intents stored.
func checkUpgradeFrom4[TTx any](t *testing.T, d durabledriver.Driver[TTx]) {
	t.Helper()
	ctx := context.Background()
	l := mustPSP(t)
	m, err := rivermigrate.New(d.RiverDriver(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ExecPool(ctx, schemaVersionTable); err != nil {
		t.Fatal(err)
	}
	for v := 1; v <= 4; v++ { // steps are only ever appended: version 4's are the first four
		if err := migrateStep(ctx, d, v); err != nil {
			t.Fatalf("step %d: %v", v, err)
		}
	}
	want := storeVersion4(t, l, d)
	p, err := New(ctx, d, l.config())
	if err != nil {
		t.Fatalf("New() on version 4's database: error = %v", err)
	}
	got, err := collect(p.Intents(ctx))
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Fatalf("Intents() after the upgrade: error %v, mismatch (-want +got):\n%s", err, diff)
	}
	var versions []int
	err = d.Query(ctx, "SELECT version FROM pix_schema_version ORDER BY version", func(r durabledriver.Row) error {
		var v int
		err := r.Scan(&v)
		versions = append(versions, v)
		return err
	})
	if err != nil || !slices.Equal(versions, []int{1, 2, 3, 4, 5}) {
		t.Errorf("pix_schema_version holds %v (error %v), want versions 1 to 5", versions, err)
	}
	mustStart(t, p)
	all := awaitDone(t, p)
	checkLedger(t, l, all)
	for i, in := range all {
		if in.Status != StatusSettled || !slices.Equal(in.Keys, want[i].Keys) || in.PaymentID != "" {
			t.Errorf("intent %s once worked = %+v, want settled under keys %q, with no payment id", in.ID, in, want[i].Keys)
		}
	}
}

// storeVersion4 stores, with version 4's columns, an intent never sent, one sent a minute ago
// under its second key, and one settled through l, each with its job if pending. It returns
// them as the upgraded Payer must read them.
func storeVersion4[TTx any](t *testing.T, l ledger, d durabledriver.Driver[TTx]) []Intent {
	t.Helper()
	ctx := context.Background()
	now := time.UnixMicro(time.Now().UnixMicro())
	r, err := l.client().Send(ctx, payment(403))
	if err != nil {
		t.Fatal(err)
	}
	past := uuid.NewString()
	want := []Intent{
		{ID: "a-never-sent", Key: uuid.NewString(), Payment: payment(401), Status: StatusPending, CreatedAt: now},
		{ID: "b-sent", Key: uuid.NewString(), Payment: payment(402), Status: StatusPending, Attempts: 2,
			FirstSent: now.Add(-time.Minute), Error: "pix: outcome unknown", CreatedAt: now.Add(-time.Hour)},
		{ID: "c-settled", Key: r.IdempotencyKey, Payment: payment(403), Status: StatusSettled, Attempts: 1,
			FirstSent: now, EndToEndID: r.EndToEndID, SettledAt: r.SettledAt, CreatedAt: now},
	}
	jobs, err := river.NewClient(d.RiverDriver(), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		in := &want[i]
		in.Keys = []string{in.Key}
		pastKeys := ""
		if in.ID == "b-sent" {
			in.Keys, pastKeys = []string{past, in.Key}, past
		}
		var firstSent, settledAt int64
		if !in.FirstSent.IsZero() {
			firstSent = in.FirstSent.UnixMicro()
		}
		if in.Status == StatusSettled {
			settledAt = in.SettledAt.UnixNano()
		}
		_, err := d.ExecPool(ctx, `INSERT INTO pix_intent (id, idempotency_key, past_keys, amount_cents, pix_key,
			description, status, attempts, first_sent, last_error, end_to_end_id, settled_at, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)`,
			in.ID, in.Key, pastKeys, in.Payment.AmountCents, in.Payment.PixKey, in.Payment.Description,
			string(in.Status), in.Attempts, firstSent, in.Error, in.EndToEndID, settledAt, in.CreatedAt.UnixMicro())
		if err == nil && in.Status == StatusPending {
			_, err = jobs.Insert(ctx, payArgs{ID: in.ID}, &river.InsertOpts{MaxAttempts: maxJobAttempts})
		}
		if err != nil {
			t.Fatalf("store version 4's intent %s: %v", in.ID, err)
		}
	}
	return want
}
