package main

import (
	"flag"
	"fmt"
)

// defaultAddr is the default of -addr.
const defaultAddr = "127.0.0.1:8080"

// endpoints ends the usage: what psp serves, and where it is documented.
const endpoints = `
The payments API, for the client under test, with a token of -tokens (Authorization: Bearer TOKEN):
  POST   /v1/pix/payments                      pay, once per Idempotency-Key
  GET    /v1/pix/payments?idempotency_key=KEY  what became of the payments made under KEY

With -dialect efi, the payments API is Efí's payouts instead, for the payer whose Pix key is
pagador@pixretry.example (package pixretry/psp/efi says where each rule comes from):
  PUT    /v2/gn/pix/{idEnvio}                    pay, once per idEnvio (1 to 35 letters and digits)
  GET    /v2/gn/pix/enviados/id-envio/{idEnvio}  what became of the payout under idEnvio

With -dialect openfinance, the payments API is Open Finance Brasil payments v4 instead, each body
a JWS signed with PS256 (package pixretry/psp/openfinance says where each rule comes from):
  POST   /open-banking/payments/v4/consents                  a consent, authorised at once
  GET    /open-banking/payments/v4/consents/{consentId}      the consent now
  POST   /open-banking/payments/v4/pix/payments              pay under a consent, once per x-idempotency-key
  GET    /open-banking/payments/v4/pix/payments/{paymentId}  the payment's status now

The control API, for the test, on a loopback address or with -control-token:
  POST   /_psp/faults                       queue faults, as in {"faults":[{"kind":"status","status":503}]}
  GET    /_psp/faults                       the faults queued, in the form POST takes
  DELETE /_psp/faults                       clear the faults
  GET    /_psp/settlements                  the ledger
  GET    /_psp/balance                      the payer's balance
  GET    /_psp/stats                        the counters
  GET    /_psp/requests                     the journal of the requests received (?key=KEY&status=N&after=SEQ)
  GET    /_psp/webhooks                     the webhooks sent, with -webhook, each with its tries
  POST   /_psp/reset                        start again
  GET    /_psp/                             a page that watches the PSP, for a browser
  GET    /_psp/openfinance/jwks.json        with -dialect openfinance, the key that verifies its answers
  GET    /_psp/openfinance/client-key.json  with -dialect openfinance, the client key pair made at start
  GET    /openapi.json                      the OpenAPI 3.1 document of the APIs, every answer with its body

docs/psp.md, in the pixretry repository, says how the double behaves and what each fault does.
psp/scenarios there holds fault files for -faults, each with what a client should do.
`

// usage writes the usage of psp to the output of fs: its flags, then the endpoints it serves.
func usage(fs *flag.FlagSet) {
	fmt.Fprintf(fs.Output(), "Usage of %s:\n", fs.Name())
	fs.PrintDefaults()
	fmt.Fprint(fs.Output(), endpoints)
}
