package durable

import (
	"context"
	"errors"
	"fmt"
	"time"

	"pixretry/durable/durabledriver"
)

// The package owns one table, pix_intent: one row per payment. Its schema is built by ordered
// steps, and pix_schema_version holds the steps applied. They run after River's migrations,
// under the engine's start-up lock, each step in a transaction with its version, so that a
// crash leaves a database at one version or the next. Times are Unix microseconds, the same on
// both engines, but settled_at is the receipt's time in Unix nanoseconds.
const schemaVersionTable = `CREATE TABLE IF NOT EXISTS pix_schema_version (
	version    INTEGER PRIMARY KEY,
	applied_at BIGINT NOT NULL
)`

// schemaSteps[n-1] takes pix_intent from version n-1 to version n. A database made before
// pix_schema_version existed holds version 1's table: step 1 leaves it as it is.
var schemaSteps = [][]string{
	{`CREATE TABLE IF NOT EXISTS pix_intent (
	id              TEXT PRIMARY KEY,
	idempotency_key TEXT NOT NULL UNIQUE,
	amount_cents    BIGINT NOT NULL,
	pix_key         TEXT NOT NULL,
	description     TEXT NOT NULL,
	status          TEXT NOT NULL,
	attempts        INTEGER NOT NULL DEFAULT 0,
	last_error      TEXT NOT NULL DEFAULT '',
	end_to_end_id   TEXT NOT NULL DEFAULT '',
	settled_at      BIGINT NOT NULL DEFAULT 0,
	created_at      BIGINT NOT NULL,
	updated_at      BIGINT NOT NULL
)`},
	// Keys expire at the PSP. first_sent is when the current key first left, by the
	// database's clock, or 0 if it never did; past_keys are the earlier keys, space-separated,
	// oldest first. An intent with attempts left no later than it was stored.
	{`ALTER TABLE pix_intent ADD COLUMN first_sent BIGINT NOT NULL DEFAULT 0`,
		`ALTER TABLE pix_intent ADD COLUMN past_keys TEXT NOT NULL DEFAULT ''`,
		`UPDATE pix_intent SET first_sent = created_at WHERE attempts > 0`},
	// Wait asks whether any intent is pending: an index on status answers without reading the
	// table, however many intents have settled.
	{`CREATE INDEX IF NOT EXISTS pix_intent_status ON pix_intent (status)`},
	// Stats counts the intents by status and finds the oldest pending one: an index on status
	// and created_at answers both without reading the table. It serves Wait as the index of
	// step 3 did, and replaces it.
	{`CREATE INDEX IF NOT EXISTS pix_intent_status_created ON pix_intent (status, created_at)`,
		`DROP INDEX IF EXISTS pix_intent_status`},
	// A dialect such as Open Finance's looks a payment up by the PSP's id of it, and pays under
	// the payer's consent. consent_id is the payment's consent, or '' for none. payment_id is
	// the PSP's id of the payment under the current key, learned from its answers, or ''.
	{`ALTER TABLE pix_intent ADD COLUMN consent_id TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE pix_intent ADD COLUMN payment_id TEXT NOT NULL DEFAULT ''`},
}

// errSchemaAhead reports a database migrated by a later version of this package.
var errSchemaAhead = errors.New("durable: the database's schema is newer than this program's")

// migrateIntents applies the steps of schemaSteps the database lacks, in order. The caller
// holds the engine's migration lock.
func migrateIntents[TTx any](ctx context.Context, db durabledriver.Driver[TTx]) error {
	if _, err := db.ExecPool(ctx, schemaVersionTable); err != nil {
		return fmt.Errorf("durable: create the schema version table: %w", err)
	}
	var version int
	err := db.QueryRow(ctx, *new(TTx), "SELECT COALESCE(MAX(version), 0) FROM pix_schema_version").Scan(&version)
	if err != nil {
		return fmt.Errorf("durable: read the schema version: %w", err)
	}
	if version > len(schemaSteps) {
		return fmt.Errorf("%w: version %d, want %d at most", errSchemaAhead, version, len(schemaSteps))
	}
	for v := version + 1; v <= len(schemaSteps); v++ {
		if err := migrateStep(ctx, db, v); err != nil {
			return fmt.Errorf("durable: migrate the intent table to version %d: %w", v, err)
		}
	}
	return nil
}

// migrateStep applies step v and records it, in one transaction.
func migrateStep[TTx any](ctx context.Context, db durabledriver.Driver[TTx], v int) error {
	tx, err := db.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	for _, q := range schemaSteps[v-1] {
		if _, err := db.Exec(ctx, tx, q); err != nil {
			return errors.Join(err, db.Rollback(ctx, tx))
		}
	}
	_, err = db.Exec(ctx, tx, "INSERT INTO pix_schema_version (version, applied_at) VALUES ($1, $2)",
		v, time.Now().UnixMicro())
	if err != nil {
		return errors.Join(err, db.Rollback(ctx, tx))
	}
	return db.Commit(ctx, tx)
}

// intentColumns are the columns scan reads, in its order.
const intentColumns = `id, idempotency_key, past_keys, amount_cents, pix_key, description, consent_id, status,
	attempts, first_sent, payment_id, last_error, end_to_end_id, settled_at, created_at`
