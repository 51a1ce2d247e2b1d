package main

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"pixretry/durable"
	"pixretry/durable/durablepgx"
	"pixretry/durable/durablesqlite"
)

// openSQLite opens the SQLite file at path and a Payer on it.
func openSQLite(ctx context.Context, path string, cfg durable.Config) (*durable.Payer[*sql.Tx], func(), error) {
	db, err := durablesqlite.Open(path)
	if err != nil {
		return nil, nil, err
	}
	p, err := durable.New(ctx, durablesqlite.New(db), cfg)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return p, func() { db.Close() }, nil
}

// openPostgres connects to the Postgres database at dsn and makes a Payer on it.
func openPostgres(ctx context.Context, dsn string, cfg durable.Config) (*durable.Payer[pgx.Tx], func(), error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, nil, err
	}
	p, err := durable.New(ctx, durablepgx.New(pool), cfg)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return p, pool.Close, nil
}
