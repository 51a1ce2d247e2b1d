package durable

// intentTable is the DDL of the table the package owns: one row per payment. It runs after
// River's migrations, in the same start-up lock. Times are Unix microseconds, the same on
// both engines, but settled_at is the receipt's time in Unix nanoseconds.
const intentTable = `CREATE TABLE IF NOT EXISTS pix_intent (
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
)`

// intentColumns are the columns scanIntent reads, in its order.
const intentColumns = `id, idempotency_key, amount_cents, pix_key, description, status, attempts,
	last_error, end_to_end_id, settled_at, created_at`
