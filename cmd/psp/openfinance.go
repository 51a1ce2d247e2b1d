package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"
	"time"

	"pixretry/internal/cmdline"
	"pixretry/psp"
	"pixretry/psp/openfinance"
)

// defaultOpenFinanceKeyTTL is the default of -openfinance-key-ttl, openfinance.Config's own:
// payments v4 keeps an x-idempotency-key 24 hours.
const defaultOpenFinanceKeyTTL = 24 * time.Hour

// defaultOpenFinanceConsentTTL is the default of -openfinance-consent-ttl, openfinance.Config's
// own: payments v4 rejects a consent left unconsumed 60 minutes.
const defaultOpenFinanceConsentTTL = 60 * time.Minute

// The flags that name the key files of -dialect openfinance, as a *flagError names them.
const (
	signingKeyFlag = "-openfinance-signing-key-file"
	clientKeysFlag = "-openfinance-client-keys-file"
)

// openFinanceFlags are the flags of -dialect openfinance, as the flag set parses them. Each is
// named -openfinance-...
type openFinanceFlags struct {
	signingKeyFile, clientKeysFile *string
	orgID, clientOrgID             *string
	keyTTL, consentTTL             *duration
}

// addOpenFinanceFlags defines the flags of -dialect openfinance on fs.
func addOpenFinanceFlags(fs *flag.FlagSet) openFinanceFlags {
	return openFinanceFlags{
		signingKeyFile: fs.String(signingKeyFlag[1:], "", "with -dialect openfinance, a PEM `file` of the RSA private key "+
			"that signs the answers, PKCS #1 or PKCS #8 (default a key made at start)"),
		clientKeysFile: fs.String(clientKeysFlag[1:], "", "with -dialect openfinance, a `file` of the RSA public keys "+
			"that may sign requests: a JWK Set, or PEM blocks \"PUBLIC KEY\" or \"RSA PUBLIC KEY\" (default a key pair "+
			"made at start, handed out at "+openfinance.ClientKeyPath+")"),
		orgID: fs.String("openfinance-org-id", openfinance.DefaultOrganisationID,
			"with -dialect openfinance, the double's organisationId, the iss of its answers"),
		clientOrgID: fs.String("openfinance-client-org-id", openfinance.DefaultClientOrganisationID,
			"with -dialect openfinance, the initiator's organisationId: the iss of every request and the aud of every answer"),
		keyTTL: durationFlag(fs, "openfinance-key-ttl", defaultOpenFinanceKeyTTL,
			"with -dialect openfinance, how long an x-idempotency-key is kept from its first request, a `duration` "+
				"of at most -key-ttl"),
		consentTTL: durationFlag(fs, "openfinance-consent-ttl", defaultOpenFinanceConsentTTL,
			"with -dialect openfinance, how long an authorised consent may wait for its payment before it reads "+
				"REJECTED (TEMPO_EXPIRADO_CONSUMO), a `duration`"),
	}
}

// config returns the openfinance.Config that the flags of fs ask for, for dialect d and the
// psp.Server's keyTTL. The error names the flag and what it wants. An -openfinance- flag set
// without -dialect openfinance is an error. Key files are read later, by openfinance.New.
func (f openFinanceFlags) config(fs *flag.FlagSet, d cmdline.Dialect, keyTTL time.Duration) (openfinance.Config, error) {
	if d != cmdline.DialectOpenFinance {
		var set string
		fs.Visit(func(fl *flag.Flag) {
			if strings.HasPrefix(fl.Name, "openfinance-") && set == "" {
				set = fl.Name
			}
		})
		if set != "" {
			return openfinance.Config{}, fmt.Errorf("psp: -%s: needs -dialect openfinance", set)
		}
		return openfinance.Config{}, nil
	}
	cfg := openfinance.Config{OrganisationID: *f.orgID, ClientOrganisationID: *f.clientOrgID,
		SigningKeyFile: *f.signingKeyFile, ClientKeysFile: *f.clientKeysFile, KeyTTL: time.Duration(*f.keyTTL),
		ConsentTTL: time.Duration(*f.consentTTL)}
	switch {
	case cfg.OrganisationID == "":
		return cfg, fmt.Errorf("psp: -openfinance-org-id: want an organisationId, as in %s", openfinance.DefaultOrganisationID)
	case cfg.ClientOrganisationID == "":
		return cfg, fmt.Errorf("psp: -openfinance-client-org-id: want an organisationId, as in %s",
			openfinance.DefaultClientOrganisationID)
	case cfg.KeyTTL <= 0:
		return cfg, fmt.Errorf("psp: -openfinance-key-ttl %v: want a positive duration, as in 24h", cfg.KeyTTL)
	case cfg.ConsentTTL <= 0:
		return cfg, fmt.Errorf("psp: -openfinance-consent-ttl %v: want a positive duration, as in 60m", cfg.ConsentTTL)
	case cfg.KeyTTL > keyTTL:
		// The front end relays a replay to the psp.Server under the key: the Server must still
		// hold it (openfinance.Config.KeyTTL).
		return cfg, fmt.Errorf("psp: -key-ttl %v: want at least -openfinance-key-ttl (%v) with -dialect openfinance",
			keyTTL, cfg.KeyTTL)
	}
	return cfg, nil
}

// openFinanceFront is srv behind the Open Finance front end that cfg configures: its payments
// API, its keys among the control paths, and its Reset. A key file that openfinance.New refuses
// is a *flagError naming its flag.
func openFinanceFront(srv *psp.Server, cfg openfinance.Config) (frontEnd, error) {
	v4, err := openfinance.New(srv, cfg)
	if err != nil {
		return frontEnd{}, keyFileError(srv, cfg, err)
	}
	keys := v4.Keys()
	return frontEnd{payments: v4, paths: map[string]http.Handler{openfinance.JWKSPath: keys, openfinance.ClientKeyPath: keys},
		reset: v4.Reset}, nil
}

// keyFileError is err, which openfinance.New returned for cfg, as the *flagError of the key
// file it refused, or err itself if cfg names no file. New reads the signing key first, and
// names the file it refused in words only: with both files given, New again without the client
// keys tells whether the signing key was at fault.
func keyFileError(srv *psp.Server, cfg openfinance.Config, err error) error {
	name, file := signingKeyFlag, cfg.SigningKeyFile
	switch {
	case cfg.SigningKeyFile == "" && cfg.ClientKeysFile == "":
		return err
	case cfg.SigningKeyFile == "":
		name, file = clientKeysFlag, cfg.ClientKeysFile
	case cfg.ClientKeysFile != "":
		if _, signingErr := openfinance.New(srv, openfinance.Config{SigningKeyFile: cfg.SigningKeyFile}); signingErr == nil {
			name, file = clientKeysFlag, cfg.ClientKeysFile
		}
	}
	// New's error is "openfinance: <which> file <file>: <why>": the flag and the file say the first.
	return &flagError{name, file, cmp.Or(errors.Unwrap(err), err)}
}

// flagError is a flag whose value psp refuses once it has begun to serve, such as a key file
// that openfinance.New cannot use. run reports it as a bad command line.
type flagError struct {
	name, value string // the flag, as in -openfinance-signing-key-file, and its value
	err         error  // what is wrong with it
}

func (e *flagError) Error() string { return "psp: " + e.name + " " + e.value + ": " + e.err.Error() }

func (e *flagError) Unwrap() error { return e.err }
