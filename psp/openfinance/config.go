package openfinance

import (
	"cmp"
	"crypto/rsa"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// The values a zero field of Config stands for.
const (
	DefaultOrganisationID       = "pixretry-psp"       // the double's organisationId, the iss of its answers
	DefaultClientOrganisationID = "pixretry-initiator" // the initiator's, the iss of requests and the aud of answers
	defaultKeyTTL               = 24 * time.Hour
	defaultMaxKeys              = 500_000
	defaultMaxJTIs              = 500_000
	defaultMaxConsents          = 100_000
	defaultMaxPayments          = 100_000
)

// Config configures a Server. Its zero value is valid: it generates both key pairs, trusts the
// client key it generated, and uses the defaults each field names.
type Config struct {
	// OrganisationID is the double's organisationId in the directory: the iss of every answer
	// it signs. "" means DefaultOrganisationID.
	OrganisationID string
	// ClientOrganisationID is the initiator's organisationId: the iss every signed request
	// must carry, and the aud of every answer. "" means DefaultClientOrganisationID.
	ClientOrganisationID string

	// SigningKey is the RSA key that signs the answers (PS256). Its kid is its RFC 7638
	// thumbprint. Nil means SigningKeyFile, or a 2048-bit key New generates.
	SigningKey *rsa.PrivateKey
	// SigningKeyFile is a PEM file holding the signing key, as PKCS #1 ("RSA PRIVATE KEY") or
	// PKCS #8 ("PRIVATE KEY"). Set at most one of SigningKey and SigningKeyFile.
	SigningKeyFile string

	// ClientKeys are the public RSA keys that may sign requests, each with its kid, which the
	// JOSE header of a request names. A key without a kid gets its RFC 7638 thumbprint.
	ClientKeys []jose.JSONWebKey
	// ClientKeysFile is a file of the keys that may sign requests: a JWK Set (JSON, its keys
	// public or private, only their public halves used) or PEM blocks "PUBLIC KEY" (PKIX) or
	// "RSA PUBLIC KEY" (PKCS #1), whose kids are their RFC 7638 thumbprints. Set at most one of
	// ClientKeys and ClientKeysFile. With neither, New generates a 2048-bit client key pair
	// and Keys serves its private half at ClientKeyPath, as a sandbox hands out credentials.
	ClientKeysFile string

	// KeyTTL is how long an x-idempotency-key is kept, counted from its first request. The
	// key is then new again, unless a payment under it is held (see MaxPayments). It must not
	// exceed the psp.Server's KeyTTL, which counts from a payment's end: a replay relayed to
	// the Server then finds the key there. 0 means 24 hours; negative is invalid.
	KeyTTL time.Duration
	// ConsentTTL is how long an AUTHORISED consent may wait to be consumed, counted from its
	// authorisation: from then on it reads REJECTED, rejectionReason TEMPO_EXPIRADO_CONSUMO,
	// and no payment may consume it. 0 means 60 minutes, as payments v4 sets; a shorter one
	// lets a test reach that proof of no payment without waiting an hour. Negative is invalid.
	ConsentTTL time.Duration
	// MaxKeys is the most x-idempotency-keys held at once, for payments and for consents each.
	// A new key beyond them gets 529, and no key is forgotten before KeyTTL. 0 means 500000;
	// negative is invalid.
	MaxKeys int
	// MaxJTIs is the most jti claims held at once: each is kept 24 hours to refuse its reuse.
	// A request with a new jti beyond them gets 529, and no jti is forgotten early. 0 means
	// 500000; negative is invalid.
	MaxJTIs int
	// MaxConsents is the most consents held: beyond them the oldest is forgotten, and reads as
	// unknown (404, or CONSENTIMENTO_INVALIDO for a payment). 0 means 100000; negative is
	// invalid.
	MaxConsents int
	// MaxPayments is the most paymentIds held: beyond them the oldest is forgotten, and
	// GET /pix/payments/{paymentId} answers 404 for it. Its key, replayed within KeyTTL, still
	// answers it. A key whose payment is held is never new again. 0 means 100000; negative is
	// invalid.
	MaxPayments int
}

// ConfigError is the error of New for a Config it refuses: which field, and why.
type ConfigError struct {
	Field  string // the field of Config refused, such as "KeyTTL"
	Reason string // what is wrong with its value
}

func (e *ConfigError) Error() string {
	return "openfinance: invalid config: " + e.Field + ": " + e.Reason
}

// withDefaults checks c, then fills in its zero values. It returns a *ConfigError for the first
// field it refuses.
func (c Config) withDefaults() (Config, error) {
	bad := func(field, format string, args ...any) (Config, error) {
		return c, &ConfigError{Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case c.SigningKey != nil && c.SigningKeyFile != "":
		return bad("SigningKeyFile", "set with SigningKey; set at most one")
	case c.ClientKeys != nil && c.ClientKeysFile != "":
		return bad("ClientKeysFile", "set with ClientKeys; set at most one")
	case c.KeyTTL < 0:
		return bad("KeyTTL", "negative %v", c.KeyTTL)
	case c.ConsentTTL < 0:
		return bad("ConsentTTL", "negative %v", c.ConsentTTL)
	case c.MaxKeys < 0:
		return bad("MaxKeys", "negative %d", c.MaxKeys)
	case c.MaxJTIs < 0:
		return bad("MaxJTIs", "negative %d", c.MaxJTIs)
	case c.MaxConsents < 0:
		return bad("MaxConsents", "negative %d", c.MaxConsents)
	case c.MaxPayments < 0:
		return bad("MaxPayments", "negative %d", c.MaxPayments)
	}
	c.OrganisationID = cmp.Or(c.OrganisationID, DefaultOrganisationID)
	c.ClientOrganisationID = cmp.Or(c.ClientOrganisationID, DefaultClientOrganisationID)
	c.KeyTTL = cmp.Or(c.KeyTTL, defaultKeyTTL)
	c.ConsentTTL = cmp.Or(c.ConsentTTL, consentLifetime)
	c.MaxKeys = cmp.Or(c.MaxKeys, defaultMaxKeys)
	c.MaxJTIs = cmp.Or(c.MaxJTIs, defaultMaxJTIs)
	c.MaxConsents = cmp.Or(c.MaxConsents, defaultMaxConsents)
	c.MaxPayments = cmp.Or(c.MaxPayments, defaultMaxPayments)
	return c, nil
}
