package durable

import (
	"context"
	"fmt"
	"iter"

	"pixretry/durable/durabledriver"
)

// listPage is how many intents Intents reads per query.
const listPage = 1000

// Intents returns every intent, in id order, a page at a time: each query reads the next
// listPage (1000) intents whose id sorts after the last one read, through the primary key's
// index. A page is read whole and its rows closed before any of its intents is yielded, so
// memory is bounded by one page and no connection is held while the caller works. On SQLite,
// whose one connection the workers share, the caller may pay or read inside the loop.
//
// It is not a snapshot. An intent stored during the iteration is yielded if its id sorts
// after the pages already read and the last page (one short of listPage) is not read yet.
// Each intent is as it stood when its page was read.
//
// On an error, an ended ctx included, it yields a zero Intent and the error, wrapped as
// "durable: list intents: ...", once, and stops. Breaking out of the loop stops the reading
// at once.
func (p *Payer[TTx]) Intents(ctx context.Context) iter.Seq2[Intent, error] {
	return p.intentsPaged(ctx, listPage)
}

// intentsPaged is Intents with page intents per query.
func (p *Payer[TTx]) intentsPaged(ctx context.Context, page int) iter.Seq2[Intent, error] {
	return func(yield func(Intent, error) bool) {
		after := ""
		for {
			ins, err := p.pageAfter(ctx, after, page)
			if err != nil {
				yield(Intent{}, fmt.Errorf("durable: list intents: %w", err))
				return
			}
			for _, in := range ins {
				if !yield(in, nil) {
					return
				}
			}
			if len(ins) < page {
				return // a short page is the last
			}
			after = ins[len(ins)-1].ID
		}
	}
}

// pageAfter reads, in id order, up to n intents whose id sorts after the id after.
func (p *Payer[TTx]) pageAfter(ctx context.Context, after string, n int) ([]Intent, error) {
	var ins []Intent
	q := "SELECT " + intentColumns + " FROM pix_intent WHERE id > $1 ORDER BY id LIMIT $2"
	err := p.db.Query(ctx, q, func(r durabledriver.Row) error {
		in, err := p.scan(r)
		ins = append(ins, in)
		return err
	}, after, n)
	return ins, err
}
