// Package openfinance is a [pix.Dialect] for Open Finance Brasil payments v4: the payment
// initiation API that an account holder (the PSP) serves to a payment initiator (the caller).
//
// A [Dialect] signs each attempt as a PS256 JWS with a fresh jti and iat and the same data
// claim, in POST /open-banking/payments/v4/pix/payments under an x-idempotency-key. It
// verifies the PSP's signature on every answer that the API signs. It looks a payment up by
// the PSP's paymentId, or by its consent when the paymentId never came back. A payment
// consumes a consent, which the payer authorised for that payment alone:
// [Dialect.CreateConsent] asks the PSP for one.
//
// # Sources
//
// Each rule of the Dialect names where it comes from:
//
//   - [spec]: the OpenAPI document of payments v4.1.0, swagger-apis/payments/4.1.0.yml in
//     github.com/OpenBanking-Brasil/draft-openapi, by path, schema, or item of its
//     "Validações" section.
//   - [idempotency]: the page "Idempotência - v4.0.0 - [SV] Pagamentos" of the Open Finance
//     Brasil specifications (Confluence page 347078709).
//   - [signing]: the page "Como Assinar o Payload - v4.0.0 - [SV] Pagamentos" (Confluence
//     page 347078914), section "Passo 2".
//   - [security]: the security profile open-banking-brasil-financial-api-1_ID3.md in
//     github.com/OpenBanking-Brasil/specs-seguranca, section "Message Content Signing
//     Considerations (JWS)", by item.
//
// # Left out
//
// Transport security (mTLS) belongs to [pix.Client.HTTPClient], and the OAuth tokens to
// [pix.Client.Token]. Scheduled and recurring payments, QR codes, cancellation (PATCH) and
// multiple approvers are not spoken: a payment here is one immediate Pix to a key (DICT).
package openfinance
