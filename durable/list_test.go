package durable

// Intents reads by keyset pages. These tests list with pages of 2 intents, so that a few
// intents cross page boundaries.

import (
	"context"
	"database/sql"
	"errors"
	"iter"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// drain ranges over seq as a caller that does not break on an error would, and returns the
// intents and the errors yielded. It stops after limit yields, so that a listing that never
// ends fails the test instead of hanging it.
func drain(seq iter.Seq2[Intent, error], limit int) ([]Intent, []error) {
	var all []Intent
	var errs []error
	for in, err := range seq {
		if err != nil {
			errs = append(errs, err)
		} else {
			all = append(all, in)
		}
		if len(all)+len(errs) == limit {
			break
		}
	}
	return all, errs
}

// mustPayIDs stores a payment under each id, in the order given, and returns the intents
// in id order.
func mustPayIDs(tb testing.TB, p *Payer[*sql.Tx], ids ...string) []Intent {
	tb.Helper()
	var stored []Intent
	for _, id := range ids {
		stored = append(stored, mustPay(tb, p, id, payment(100)))
	}
	slices.SortFunc(stored, func(a, b Intent) int { return strings.Compare(a.ID, b.ID) })
	return stored
}

// Intents read two at a time come back in id order, each once, whatever the order they were
// stored in. A page that ends exactly at the last intent is followed by an empty one, which
// ends the listing.
func TestIntentsReadsEveryPageInIDOrder(t *testing.T) {
	t.Parallel()
	for name, ids := range map[string][]string{
		"a short last page": {"c", "e", "a", "d", "b"},
		"a full last page":  {"d", "b", "c", "a"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db, _ := mustSQLite(t)
			p := mustPayer(t, db, Config{})
			want := mustPayIDs(t, p, ids...)
			got, errs := drain(p.intentsPaged(t.Context(), 2), 2*len(want))
			if diff := cmp.Diff(want, got); errs != nil || diff != "" {
				t.Errorf("intentsPaged(2) errors = %v, mismatch (-want +got):\n%s", errs, diff)
			}
		})
	}
}

func TestIntentsOfAnEmptyTableYieldsNothing(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	if got, errs := drain(p.Intents(t.Context()), 10); got != nil || errs != nil {
		t.Errorf("Intents() = %+v, errors %v; want nothing", got, errs)
	}
}

// A caller that breaks is never called again: Go panics if its loop body is.
func TestIntentsStopsWhenTheCallerBreaks(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	mustPayIDs(t, p, "c", "e", "a", "d", "b")
	var got []string
	for in, err := range p.intentsPaged(t.Context(), 2) {
		if err != nil {
			t.Fatalf("intentsPaged(2) error = %v", err)
		}
		got = append(got, in.ID)
		break
	}
	if want := []string{"a"}; !slices.Equal(got, want) {
		t.Errorf("intentsPaged(2) until a break = %q, want %q", got, want)
	}
}

// A context that ends while the caller holds the first page ends the listing at the next
// page, with one error. The page already read is yielded whole.
func TestIntentsReportsAContextEndedBetweenPages(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	mustPayIDs(t, p, "c", "e", "a", "d", "b")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var got []string
	var errs []error
	for in, err := range p.intentsPaged(ctx, 2) {
		cancel()
		if err != nil {
			errs = append(errs, err)
		} else {
			got = append(got, in.ID)
		}
		if len(got)+len(errs) == 10 {
			break
		}
	}
	if want := []string{"a", "b"}; !slices.Equal(got, want) {
		t.Errorf("intentsPaged(2) with ctx ended at a = %q, want %q", got, want)
	}
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) ||
		!strings.HasPrefix(errs[0].Error(), "durable: list intents: ") {
		t.Errorf("intentsPaged(2) with ctx ended at a: errors = %v, want one durable error wrapping context.Canceled", errs)
	}
}

// No page stays open while the caller works, so on SQLite's one connection the caller may
// pay inside the loop. An intent stored meanwhile appears if its id sorts after the page
// already read: the listing is not a snapshot.
func TestIntentsLetsTheCallerUseTheDatabase(t *testing.T) {
	t.Parallel()
	db, _ := mustSQLite(t)
	p := mustPayer(t, db, Config{})
	mustPayIDs(t, p, "a", "c", "e")
	var got []string
	for in, err := range p.intentsPaged(t.Context(), 2) {
		if err != nil {
			t.Fatalf("intentsPaged(2) error = %v", err)
		}
		if in.ID == "a" {
			// An open page would hold the connection: the wait ends the test in time.
			ctx, cancel := context.WithTimeout(t.Context(), stallAfter())
			for _, id := range []string{"b", "d"} {
				if _, err := p.Pay(ctx, id, payment(100)); err != nil {
					t.Fatalf("Pay(%q) inside the loop: error = %v", id, err)
				}
			}
			cancel()
		}
		if got = append(got, in.ID); len(got) == 10 {
			break
		}
	}
	if want := []string{"a", "c", "d", "e"}; !slices.Equal(got, want) {
		t.Errorf("intentsPaged(2) storing b and d at a = %q, want %q", got, want)
	}
}
