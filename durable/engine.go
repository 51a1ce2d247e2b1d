package durable

import (
	"context"
	"fmt"

	"github.com/riverqueue/river/rivermigrate"

	"pixretry/durable/durabledriver"
)

// New returns a Payer whose intents and jobs live in the database of d: a Driver from
// durablesqlite.New or durablepgx.New, whose package says how it works a database. New runs
// River's migrations and creates or upgrades the intent table if needed, under the
// driver's migration lock, so that processes starting at once do not race. It fails with an
// error wrapping ErrInvalidConfig for a bad cfg (see Config.Validate).
func New[TTx any](ctx context.Context, d durabledriver.Driver[TTx], cfg Config) (*Payer[TTx], error) {
	if err := d.Migrate(ctx, func(ctx context.Context) error { return migrate(ctx, d) }); err != nil {
		return nil, err
	}
	return newPayer(d, cfg)
}

// migrate runs River's migrations, then the intent table's steps. The caller holds the
// driver's migration lock.
func migrate[TTx any](ctx context.Context, d durabledriver.Driver[TTx]) error {
	m, err := rivermigrate.New(d.RiverDriver(), nil)
	if err != nil {
		return fmt.Errorf("durable: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("durable: River's migrations: %w", err)
	}
	return migrateIntents(ctx, d)
}
