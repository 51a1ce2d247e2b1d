package psp_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"pixretry/psp"
)

// endToEndIDGen draws an endToEndId of payments v4's form, each part within its range.
func endToEndIDGen() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		part := func(name string, lo, hi, width int) string {
			return fmt.Sprintf("%0*d", width, rapid.IntRange(lo, hi).Draw(t, name))
		}
		return "E" + part("ispb", 0, 99999999, 8) + part("year", 0, 9999, 4) + part("month", 1, 12, 2) +
			part("day", 1, 31, 2) + part("hour", 0, 23, 2) + part("minute", 0, 59, 2) +
			rapid.StringOfN(rapid.SampledFrom([]rune("0123456789ABCZabcz")), 11, 11, -1).Draw(t, "tail")
	})
}

// wellFormed says whether id is of payments v4's form, part by part: E, 8 digits of ISPB, 4 of
// year, a month 01 to 12, a day 01 to 31, an hour 00 to 23, a minute 00 to 59, then 11 ASCII
// letters or digits.
func wellFormed(id string) bool {
	if len(id) != 32 || id[0] != 'E' {
		return false
	}
	for _, c := range id[1:21] {
		if c < '0' || c > '9' {
			return false
		}
	}
	for _, c := range id[21:] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	n := func(i int) int { v, _ := strconv.Atoi(id[i : i+2]); return v }
	return 1 <= n(13) && n(13) <= 12 && 1 <= n(15) && n(15) <= 31 && n(17) <= 23 && n(19) <= 59
}

// WithEndToEndID panics exactly on the ids that are not of payments v4's form, saying which.
func TestWithEndToEndIDPanicsExactlyOffTheForm(t *testing.T) {
	near := rapid.Custom(func(t *rapid.T) string { // a well-formed id with one character changed
		id := []byte(endToEndIDGen().Draw(t, "id"))
		id[rapid.IntRange(0, 31).Draw(t, "at")] = rapid.SampledFrom([]byte("E09Az-2356 ")).Draw(t, "to")
		return string(id)
	})
	rapid.Check(t, func(t *rapid.T) {
		id := rapid.OneOf(endToEndIDGen(), near, rapid.String()).Draw(t, "id")
		var got any
		func() {
			defer func() { got = recover() }()
			psp.WithEndToEndID(context.Background(), id)
		}()
		var want any
		if !wellFormed(id) {
			want = "psp: WithEndToEndID: " + strconv.Quote(id) +
				" is not E, an 8-digit ISPB, yyyyMMddHHmm and 11 letters or digits"
		}
		if got != want {
			t.Fatalf("WithEndToEndID(%q) panicked with %v, want %v", id, got, want)
		}
	})
}

// ownEndToEndID is the form of the endToEndIds the Server makes, of DefaultConfig's ISPB.
var ownEndToEndID = regexp.MustCompile(`^E12345678[0-9]{12}[0-9a-z]{11}$`)

// A key's payment settles with the endToEndId its first request handed over, or one the Server
// makes if it handed none: every answer under the key and the ledger carry it, whatever id a
// later request hands over.
func TestLedgerHoldsTheFirstEndToEndIDHandedOver(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s := mustServer(t)
		first := map[string]string{} // by key: the id of its first request, "" for none
		// holds says whether id is the one the key's first request handed over, or the Server's own.
		holds := func(key, id string) bool {
			if first[key] == "" {
				return ownEndToEndID.MatchString(id)
			}
			return id == first[key]
		}
		ids := rapid.OneOf(rapid.Just(""), endToEndIDGen())
		for range rapid.IntRange(1, 8).Draw(rt, "payments") {
			key, id := rapid.SampledFrom([]string{"k1", "k2", "k3", "k4"}).Draw(rt, "key"), ids.Draw(rt, "handed")
			if _, ok := first[key]; !ok {
				first[key] = id
			}
			a := payWithID(s, key, id)
			got := endToEndIDOf(t, a)
			if a.status != http.StatusCreated || !holds(key, got) {
				rt.Fatalf("payment under %s handing %q = %d %q, want 201 with %q or the Server's own", key, id,
					a.status, got, first[key])
			}
			for _, st := range s.Settlements() {
				if !holds(st.IdempotencyKey, st.EndToEndID) {
					rt.Fatalf("the ledger holds %q under %s, want %q or the Server's own", st.EndToEndID,
						st.IdempotencyKey, first[st.IdempotencyKey])
				}
			}
		}
		if got, want := len(s.Settlements()), len(first); got != want {
			rt.Fatalf("the ledger holds %d settlements, want one per key: %d", got, want)
		}
	})
}
