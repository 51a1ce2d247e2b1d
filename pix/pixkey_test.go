package pix_test

import (
	"testing"

	"pgregory.net/rapid"

	"pixretry/internal/pspcheck"
	"pixretry/pix"
	"pixretry/psp"
)

// TestPixKeyRulesMatchThePSP: the client's local check of a Pix key agrees with the PSP's on
// arbitrary strings, so that the client never refuses a key the PSP takes, nor sends one it
// refuses. The strings are drawn near each key format, and at random. The PSP is asked through
// its contract (pspcheck.TakesPixKey).
func TestPixKeyRulesMatchThePSP(t *testing.T) {
	f := newFixture(t, psp.Config{BalanceCents: richBalance})
	c := f.client(quiet)
	keys := rapid.OneOf(
		rapid.StringMatching(`[0-9]{9,16}`),
		rapid.StringMatching(`\+[0-9]{0,17}`),
		rapid.StringMatching(`[a-zA-Z0-9._%+!#-]{0,40}@[a-zA-Z0-9.-]{0,40}`),
		rapid.StringMatching(`[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-G]{11,13}`),
		rapid.String(),
	)
	verdicts := map[bool]int{}
	rapid.Check(t, func(t *rapid.T) {
		key := keys.Draw(t, "key")
		before := len(f.rec.requests())
		c.Send(t.Context(), pix.Payment{AmountCents: 1, PixKey: key})
		sent := len(f.rec.requests()) > before
		takes, err := pspcheck.TakesPixKey(key)
		if err != nil {
			t.Fatal(err)
		}
		if sent != takes {
			t.Fatalf("key %q: client sent it = %t, the PSP takes it = %t", key, sent, takes)
		}
		verdicts[sent]++
	})
	if verdicts[true] == 0 || verdicts[false] == 0 {
		t.Errorf("keys sent/refused = %d/%d: the generators must reach both sides", verdicts[true], verdicts[false])
	}
}
