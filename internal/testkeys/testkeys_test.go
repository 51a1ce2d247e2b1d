package testkeys

import (
	"crypto/rsa"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestKeysAreValidAndDistinct checks each key's size and that it is a valid RSA key, that the
// five are distinct, and that each call returns the same key.
func TestKeysAreValidAndDistinct(t *testing.T) {
	keys := map[string]struct {
		key  func() *rsa.PrivateKey
		bits int
	}{
		"Client": {Client, 2048}, "PSP": {PSP, 2048}, "Stranger": {Stranger, 2048},
		"Small(0)": {func() *rsa.PrivateKey { return Small(0) }, 1024},
		"Small(1)": {func() *rsa.PrivateKey { return Small(1) }, 1024},
	}
	seen := map[string]string{}
	for name, k := range keys {
		key := k.key()
		if got := key.N.BitLen(); got != k.bits {
			t.Errorf("%s() has %d bits, want %d", name, got, k.bits)
		}
		if err := key.Validate(); err != nil {
			t.Errorf("%s().Validate() = %v", name, err)
		}
		if k.key() != key {
			t.Errorf("%s() returned two keys", name)
		}
		if other, ok := seen[key.N.String()]; ok {
			t.Errorf("%s() and %s() are the same key", name, other)
		}
		seen[key.N.String()] = name
	}
}

// TestSmallPanicsOutOfRange checks that Small takes only 0 and 1.
func TestSmallPanicsOutOfRange(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Small(2) did not panic")
		}
	}()
	Small(2)
}

// TestMustParseRefusesAFileItDoesNotHold checks that mustParse panics for a file the package
// does not embed, a .pem or another.
func TestMustParseRefusesAFileItDoesNotHold(t *testing.T) {
	for _, name := range []string{"absent.pem", "testkeys.go"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("mustParse(%q) did not panic", name)
				}
			}()
			mustParse(name)
		}()
	}
}
