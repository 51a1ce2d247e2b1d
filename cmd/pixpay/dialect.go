package main

import (
	"errors"
	"flag"
	"fmt"

	"pixretry/internal/cmdline"
	"pixretry/pix"
	"pixretry/pix/efi"
)

// dialectFlags are the options of pixpay that only one dialect takes, with that dialect.
var dialectFlags = map[string]cmdline.Dialect{
	"payer-key":   cmdline.DialectEfi,
	"signing-key": cmdline.DialectOpenFinance,
	"psp-keys":    cmdline.DialectOpenFinance,
}

// checkDialect checks the options of o's dialect, those of fs and the command name's, sub, and
// reads the files they name. A dialect other than pix decides the form of an intent's key,
// so add takes -psp with it.
func (o *options) checkDialect(fs, sub *flag.FlagSet, name, pspURL, signingKey, pspKeys string) (err error) {
	fs.Visit(func(f *flag.Flag) {
		if want, ok := dialectFlags[f.Name]; ok && want != o.dialect && err == nil {
			err = fmt.Errorf("pixpay: -%s is an option of -dialect %s", f.Name, want)
		}
	})
	switch {
	case err != nil:
		return err
	case name == "add" && sub.Lookup("consent").Value.String() != "" && o.dialect != cmdline.DialectOpenFinance:
		return errors.New("pixpay add: -consent is an option of -dialect openfinance, whose payments each consume a consent")
	case name == "add" && pspURL == "" && o.dialect != cmdline.DialectPix:
		return fmt.Errorf("pixpay add: -psp is required with -dialect %s: the PSP's API decides the form of the intent's key",
			o.dialect)
	}
	switch o.dialect {
	case cmdline.DialectEfi:
		if (efi.Dialect{PayerKey: o.payerKey}).Validate() != nil {
			return fmt.Errorf("pixpay: -payer-key %q: want the paying account's Pix key: a CPF, a CNPJ, a phone as "+
				"+5511987654321, an e-mail or an EVP", o.payerKey)
		}
	case cmdline.DialectOpenFinance:
		o.openFinance, err = newOpenFinance(signingKey, pspKeys)
	}
	return err
}

// payDialect is the pix.Dialect of o's dialect, nil for pix's own.
func (o *options) payDialect() pix.Dialect {
	switch o.dialect {
	case cmdline.DialectEfi:
		return efi.Dialect{PayerKey: o.payerKey}
	case cmdline.DialectOpenFinance:
		return o.openFinance
	}
	return nil
}
