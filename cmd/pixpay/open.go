package main

import (
	"context"
	"database/sql"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"pixretry/durable"
)

// openSQLite opens the SQLite file at path and a Payer on it.
func openSQLite(ctx context.Context, path string, cfg durable.Config) (*durable.Payer[*sql.Tx], func(), error) {
	db, err := durable.OpenSQLite(path)
	if err != nil {
		return nil, nil, err
	}
	p, err := durable.NewSQLite(ctx, db, cfg)
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
	p, err := durable.NewPostgres(ctx, pool, cfg)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return p, pool.Close, nil
}
