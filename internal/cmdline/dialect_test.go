package cmdline

import (
	"errors"
	"flag"
	"testing"
)

// TestDialectIsAFlag checks that -dialect takes each dialect's name and nothing else, and
// that an unset one reads pix.
func TestDialectIsAFlag(t *testing.T) {
	for _, name := range []string{"pix", "efi", "openfinance"} {
		var d Dialect
		fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
		fs.Var(&d, "dialect", "")
		if err := fs.Parse([]string{"-dialect", name}); err != nil {
			t.Fatalf("-dialect %s: %v", name, err)
		}
		if got := d.String(); got != name || string(d) != name {
			t.Errorf("-dialect %s: String() = %q, value %q, want %q", name, got, string(d), name)
		}
	}
	for _, bad := range []string{"", "Efi", "open finance", "pix "} {
		d := DialectEfi
		if err := d.Set(bad); !errors.Is(err, errDialect) || err.Error() != "want pix, efi or openfinance" {
			t.Errorf("Set(%q) = %v, want %v", bad, err, errDialect)
		}
		if d != DialectEfi {
			t.Errorf("Set(%q) changed the dialect to %q", bad, d)
		}
	}
	var zero Dialect
	if got := zero.String(); got != "pix" {
		t.Errorf("zero Dialect String() = %q, want pix", got)
	}
}
