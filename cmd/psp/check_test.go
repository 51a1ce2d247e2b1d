package main

import (
	"testing"

	"pixretry/psp"
)

// TestCheckConfigNamesTheFirstFlag: with two bad flags, checkConfig names the one psp checks
// first, a zero among them. A field no flag sets keeps psp's own words.
func TestCheckConfigNamesTheFirstFlag(t *testing.T) {
	tests := map[string]struct {
		edit func(*psp.Config)
		want string
	}{
		"a zero before a value psp refuses": {func(c *psp.Config) { c.KeyTTL, c.Capacity = 0, -1 },
			"psp: -key-ttl 0s: want a positive duration, as in 24h"},
		"a value psp refuses before a zero": {func(c *psp.Config) { c.Capacity, c.JournalMax = -1, 0 },
			"psp: -capacity -1: want 0 (no limit) or more"},
		"a token before a zero": {func(c *psp.Config) { c.Tokens, c.KeyTTL = []string{"a", "b c"}, 0 },
			"psp: -tokens: token 2 of 2 has a space or a character that is not visible ASCII; " +
				"want visible ASCII tokens without spaces, comma-separated, as in test-token"},
		"no tokens":        {func(c *psp.Config) { c.Tokens = nil }, "psp: invalid config: no tokens"},
		"negative balance": {func(c *psp.Config) { c.BalanceCents = -1 }, "psp: invalid config: negative balance -1 cents"},
	}
	for name, tt := range tests {
		cfg := psp.DefaultConfig()
		tt.edit(&cfg)
		if err := checkConfig(cfg); err == nil || err.Error() != tt.want {
			t.Errorf("%s: checkConfig() = %v, want %s", name, err, tt.want)
		}
	}
	if err := checkConfig(psp.DefaultConfig()); err != nil {
		t.Errorf("checkConfig(psp.DefaultConfig()) = %v, want nil", err)
	}
}
