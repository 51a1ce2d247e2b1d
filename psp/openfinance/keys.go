package openfinance

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"os"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-json-experiment/json"
)

// generatedKeyBits is the size of the keys New generates, the least the Open Finance Brasil
// certificate standard allows for signing.
const generatedKeyBits = 2048

// keys are a Server's keys: the one that signs its answers, the public keys that may sign
// requests, and the client's private key when New generated it.
type keys struct {
	signing jose.JSONWebKey    // private, with its kid, alg and use
	clients jose.JSONWebKeySet // public, with their kids
	client  *jose.JSONWebKey   // the generated client key, private; nil when the keys were given
}

// loadKeys reads, or generates, the keys c names.
func loadKeys(c Config) (keys, error) {
	var k keys
	signing, err := signingKey(c)
	if err != nil {
		return k, err
	}
	if k.signing, err = signingJWK(signing); err != nil {
		return k, err
	}
	switch {
	case c.ClientKeysFile != "":
		k.clients.Keys, err = readClientKeys(c.ClientKeysFile)
	case c.ClientKeys != nil:
		if k.clients.Keys, err = publicJWKs(c.ClientKeys); err != nil {
			err = &ConfigError{Field: "ClientKeys", Reason: err.Error()}
		}
	default:
		k.client, err = generatedClient()
		if err == nil {
			k.clients.Keys = []jose.JSONWebKey{k.client.Public()}
		}
	}
	return k, err
}

// signingKey is the key c gives, or reads from its file, or a new one.
func signingKey(c Config) (*rsa.PrivateKey, error) {
	if c.SigningKey != nil {
		return c.SigningKey, nil
	}
	if c.SigningKeyFile == "" {
		return rsa.GenerateKey(rand.Reader, generatedKeyBits)
	}
	key, err := readPrivateKey(c.SigningKeyFile)
	if err != nil {
		return nil, fmt.Errorf("openfinance: signing key file %s: %w", c.SigningKeyFile, err)
	}
	return key, nil
}

// readPrivateKey reads the first PEM block of the file name, an RSA private key.
func readPrivateKey(name string) (*rsa.PrivateKey, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	switch block.Type {
	case "RSA PRIVATE KEY":
		return x509.ParsePKCS1PrivateKey(block.Bytes)
	case "PRIVATE KEY":
		key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if rsaKey, ok := key.(*rsa.PrivateKey); ok || err != nil {
			return rsaKey, err
		}
		return nil, fmt.Errorf("a %T, not an RSA key", key)
	}
	return nil, fmt.Errorf("a PEM block %q, not an RSA private key", block.Type)
}

// readClientKeys reads the public keys of the file name: a JWK Set, or PEM blocks.
func readClientKeys(name string) ([]jose.JSONWebKey, error) {
	data, err := os.ReadFile(name)
	if err == nil {
		var keys []jose.JSONWebKey
		if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
			keys, err = jwksKeys(data)
		} else {
			keys, err = pemKeys(data)
		}
		if err == nil {
			return keys, nil
		}
	}
	return nil, fmt.Errorf("openfinance: client keys file %s: %w", name, err)
}

// jwksKeys are the public halves of the keys of a JWK Set.
func jwksKeys(data []byte) ([]jose.JSONWebKey, error) {
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, err
	}
	return publicJWKs(set.Keys)
}

// pemKeys are the RSA public keys of the PEM blocks of data, each with its thumbprint as kid.
func pemKeys(data []byte) ([]jose.JSONWebKey, error) {
	var keys []jose.JSONWebKey
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		var key any
		var err error
		switch block.Type {
		case "PUBLIC KEY":
			key, err = x509.ParsePKIXPublicKey(block.Bytes)
		case "RSA PUBLIC KEY":
			key, err = x509.ParsePKCS1PublicKey(block.Bytes)
		default:
			err = fmt.Errorf("a PEM block %q, not a public key", block.Type)
		}
		if err != nil {
			return nil, err
		}
		keys = append(keys, jose.JSONWebKey{Key: key})
	}
	if keys == nil {
		return nil, errors.New("no PEM block")
	}
	return publicJWKs(keys)
}

// publicJWKs are the public halves of keys, which must be RSA, each with its kid, or its
// thumbprint if it has none. There must be at least one.
func publicJWKs(keys []jose.JSONWebKey) ([]jose.JSONWebKey, error) {
	if len(keys) == 0 {
		return nil, errors.New("no keys")
	}
	public := make([]jose.JSONWebKey, len(keys))
	for i, k := range keys {
		switch k.Key.(type) {
		case *rsa.PublicKey, *rsa.PrivateKey:
		default:
			return nil, fmt.Errorf("key %d (kid %q) is a %T, not an RSA key", i, k.KeyID, k.Key)
		}
		public[i] = k.Public()
		if public[i].KeyID == "" {
			public[i].KeyID = thumbprint(public[i])
		}
	}
	return public, nil
}

// signingJWK is key as the JWK that signs answers: PS256, its thumbprint as kid.
func signingJWK(key *rsa.PrivateKey) (jose.JSONWebKey, error) {
	jwk := jose.JSONWebKey{Key: key, Algorithm: string(jose.PS256), Use: "sig"}
	jwk.KeyID = thumbprint(jwk)
	if !jwk.Valid() {
		return jwk, errors.New("openfinance: the signing key is not a valid RSA key")
	}
	return jwk, nil
}

// generatedClient is a new client key pair, private, as the JWK a client signs with.
func generatedClient() (*jose.JSONWebKey, error) {
	key, err := rsa.GenerateKey(rand.Reader, generatedKeyBits)
	if err != nil {
		return nil, err
	}
	jwk := jose.JSONWebKey{Key: key, Algorithm: string(jose.PS256), Use: "sig"}
	jwk.KeyID = thumbprint(jwk)
	return &jwk, nil
}

// thumbprint is the RFC 7638 SHA-256 thumbprint of k, base64url without padding.
func thumbprint(k jose.JSONWebKey) string {
	sum, _ := k.Thumbprint(crypto.SHA256) // an RSA key always has one
	return base64.RawURLEncoding.EncodeToString(sum)
}
