package main

// The keys of -dialect openfinance: read from the files of -signing-key and -psp-keys, or
// fetched from the double, which hands them out as a sandbox does.

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// minKeyBits is the smallest RSA key that signs Open Finance requests.
const minKeyBits = 2048

// maxKeysLen bounds a JWK Set that pixpay reads, from a file or the double, in bytes.
const maxKeysLen = 1 << 20

// fetchTimeout bounds each fetch of keys from the double.
const fetchTimeout = 5 * time.Second

// readSigningKey reads the signing key of the file path: an RSA private key of minKeyBits or
// more, in a PEM block of PKCS #1 ("RSA PRIVATE KEY") or PKCS #8 ("PRIVATE KEY"). Its kid is
// its RFC 7638 thumbprint, as the double names a client key that a PEM file gives it.
func readSigningKey(path string) (*rsa.PrivateKey, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("pixpay: -signing-key: %w", err)
	}
	key, err := parseSigningKey(data)
	if err != nil {
		return nil, "", fmt.Errorf("pixpay: -signing-key %s: %w: want an RSA private key of %d bits or more, in PEM "+
			"(PKCS #1 or PKCS #8)", path, err, minKeyBits)
	}
	return key, thumbprint(&key.PublicKey), nil
}

// parseSigningKey parses the first PEM block of data, an RSA private key of minKeyBits or more.
func parseSigningKey(data []byte) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	var key any
	var err error
	switch block.Type {
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("a PEM block %q", block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("a PEM block %q that holds no key: %w", block.Type, err)
	}
	rsaKey, ok := key.(*rsa.PrivateKey)
	switch {
	case !ok:
		return nil, fmt.Errorf("a %T", key)
	case rsaKey.N.BitLen() < minKeyBits:
		return nil, fmt.Errorf("a %d-bit RSA key", rsaKey.N.BitLen())
	}
	return rsaKey, nil
}

// readPSPKeys reads the PSP's public keys from the file path, a JWK Set, as publicRSA keeps
// them.
func readPSPKeys(path string) (jose.JSONWebKeySet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return jose.JSONWebKeySet{}, fmt.Errorf("pixpay: -psp-keys: %w", err)
	}
	var set jose.JSONWebKeySet
	if err = json.Unmarshal(data, &set); err == nil {
		set, err = publicRSA(set)
	}
	if err != nil {
		return jose.JSONWebKeySet{}, fmt.Errorf("pixpay: -psp-keys %s: %w: want the PSP's JWK Set of RSA keys, in JSON",
			path, err)
	}
	return set, nil
}

// publicRSA returns the public halves of the keys of set, which must hold one or more, all
// RSA, each with its kid.
func publicRSA(set jose.JSONWebKeySet) (jose.JSONWebKeySet, error) {
	if len(set.Keys) == 0 {
		return set, errors.New("no key")
	}
	public := jose.JSONWebKeySet{Keys: make([]jose.JSONWebKey, len(set.Keys))}
	for i, k := range set.Keys {
		switch k.Key.(type) {
		case *rsa.PublicKey, *rsa.PrivateKey:
		default:
			return set, fmt.Errorf("key %q is a %T, not RSA", k.KeyID, k.Key)
		}
		if k.KeyID == "" {
			return set, fmt.Errorf("key %d has no kid", i)
		}
		public.Keys[i] = k.Public()
	}
	return public, nil
}

// signingJWK returns the key of set, the double's client key pair: an RSA private key of
// minKeyBits or more, with its kid.
func signingJWK(set jose.JSONWebKeySet) (*rsa.PrivateKey, string, error) {
	if len(set.Keys) != 1 {
		return nil, "", fmt.Errorf("%d keys, want 1", len(set.Keys))
	}
	k := set.Keys[0]
	key, ok := k.Key.(*rsa.PrivateKey)
	switch {
	case !ok:
		return nil, "", fmt.Errorf("a %T, not an RSA private key", k.Key)
	case key.N.BitLen() < minKeyBits:
		return nil, "", fmt.Errorf("a %d-bit RSA key, want %d or more", key.N.BitLen(), minKeyBits)
	case k.KeyID == "":
		return nil, "", errors.New("a key without a kid")
	}
	return key, k.KeyID, nil
}

// fetchKeys returns the JWK Set that the PSP at base serves at path, within fetchTimeout.
func fetchKeys(ctx context.Context, base, path string) (jose.JSONWebKeySet, error) {
	var set jose.JSONWebKeySet
	target, err := url.JoinPath(base, path)
	if err != nil {
		return set, err
	}
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return set, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return set, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return set, fmt.Errorf("it answered %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxKeysLen))
	if err == nil {
		err = json.Unmarshal(body, &set)
	}
	return set, err
}

// thumbprint is the RFC 7638 SHA-256 thumbprint of key, base64url without padding.
func thumbprint(key *rsa.PublicKey) string {
	sum, _ := (&jose.JSONWebKey{Key: key}).Thumbprint(crypto.SHA256) // an RSA key always has one
	return base64.RawURLEncoding.EncodeToString(sum)
}
