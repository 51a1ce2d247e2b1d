package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// postgresEnv is durable.PostgresEnv: the URL of a Postgres database for these tests.
const postgresEnv = "PIXRETRY_POSTGRES_URL"

func TestPostgresAddRunList(t *testing.T) {
	admin := os.Getenv(postgresEnv)
	if admin == "" {
		t.Skipf("%s is not set: skipping the Postgres tests (make test-postgres runs them on a throwaway cluster)", postgresEnv)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("pixpay_%d", os.Getpid())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)")
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	dsn := u.String()

	psp, settlements := mustPSP(t)
	out, _, code := pixpay(t, "-db", dsn, "add", "-id", "a", "-valor", "1.00", "-chave", "pix@example.com")
	if code != 0 {
		t.Fatalf("add on Postgres: exit %d", code)
	}
	key := lines(t, out)[0].Key
	if _, stderr, code := pixpay(t, "-db", dsn, "-psp", psp, "run", "-until-done"); code != 0 {
		t.Fatalf("run -until-done on Postgres: exit %d, %s", code, stderr)
	}
	out, _, _ = pixpay(t, "-db", dsn, "list")
	if got := lines(t, out); len(got) != 1 || got[0].Status != "settled" || settlements()[key] != 1 {
		t.Errorf("list = %q, ledger %v; want a settled once", out, settlements())
	}
}
