// Package testkeys holds the RSA keys of the tests that sign, those of Open Finance Brasil
// payments v4, made once and kept here in PEM (PKCS #8). They sign nothing outside the tests
// and are not secret.
//
// A test binary that made its keys at start paid for it in every process: a 2048-bit key takes
// from 0.1 s to over 1 s to make, longer under the race detector, and a mutation pass starts a
// test binary for each mutant. Parsing one here takes well under a millisecond.
package testkeys

import (
	"crypto/rsa"
	"crypto/x509"
	"embed"
	"encoding/pem"
	"fmt"
	"sync"
)

//go:embed *.pem
var files embed.FS

// Client is the 2048-bit key of the payment initiator: the client's, which signs requests.
func Client() *rsa.PrivateKey { return client() }

// PSP is the 2048-bit key of the PSP: the double's, which signs answers.
func PSP() *rsa.PrivateKey { return pspKey() }

// Stranger is a 2048-bit key that no one in the tests trusts.
func Stranger() *rsa.PrivateKey { return stranger() }

// Small returns one of two 1024-bit keys, for i 0 or 1: they sign three times as fast as
// the others, for tests that sign thousands of times, and stand for keys too small where a
// test refuses one. It panics for another i.
func Small(i int) *rsa.PrivateKey { return small[i]() }

var (
	client   = sync.OnceValue(func() *rsa.PrivateKey { return mustParse("client.pem") })
	pspKey   = sync.OnceValue(func() *rsa.PrivateKey { return mustParse("psp.pem") })
	stranger = sync.OnceValue(func() *rsa.PrivateKey { return mustParse("stranger.pem") })
	small    = [2]func() *rsa.PrivateKey{
		sync.OnceValue(func() *rsa.PrivateKey { return mustParse("small-0.pem") }),
		sync.OnceValue(func() *rsa.PrivateKey { return mustParse("small-1.pem") }),
	}
)

// mustParse reads the RSA key of the embedded file name. It panics if the file is not one: the
// files are this package's own, so that is a bug of the package.
func mustParse(name string) *rsa.PrivateKey {
	data, err := files.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("testkeys: %v", err))
	}
	block, _ := pem.Decode(data)
	if block == nil {
		panic(fmt.Sprintf("testkeys: %s holds no PEM block", name))
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		panic(fmt.Sprintf("testkeys: %s: %v", name, err))
	}
	rsaKey, ok := key.(*rsa.PrivateKey)
	if !ok {
		panic(fmt.Sprintf("testkeys: %s holds a %T, not an RSA key", name, key))
	}
	return rsaKey
}
