// Package openfinance serves Open Finance Brasil payments v4 in front of a psp.Server: the
// payment initiation API an account holder serves to a payment initiator. A [Server] speaks
// the dialect and relays each payment to the psp.Server's own API through psp.Relay, under the
// x-idempotency-key, with every header field of the request but those it translates or owns
// (Content-Type, Content-Length, x-idempotency-key, Idempotency-Key, x-fapi-interaction-id).
// So the keys, the ledger, the balance, the faults, the pending payments, the journal and
// Stats stay the psp.Server's, and a traceparent reaches its journal. The payment's
// endToEndId, which the client makes ([spec] schema EndToEndIdWithoutRestriction), reaches the
// psp.Server in the relayed request's context (psp.WithEndToEndID): its ledger, its answers
// and its reports carry the client's.
//
// # Sources
//
// Every rule names its source:
//
//   - [spec]: the OpenAPI document of payments 4.1.0, swagger-apis/payments/4.1.0.yml in
//     github.com/OpenBanking-Brasil/draft-openapi, by path, schema, or item of its
//     "Validações" section.
//   - [idempotency]: the page "Idempotência – v4.0.0 – [SV] Pagamentos" of the Open Finance
//     Brasil specifications (Confluence page 347078709).
//   - [consents]: the consent state machine of payments v4 ("Máquina de Estados", Confluence
//     page 198410647, section CONSUMED).
//   - [security]: open-banking-brasil-financial-api-1_ID3.md in
//     github.com/OpenBanking-Brasil/specs-seguranca, section "Message Content Signing
//     Considerations (JWS)", by item.
//
// # Endpoints
//
// POST BasePath/consents, GET BasePath/consents/{consentId}, POST BasePath/pix/payments and
// GET BasePath/pix/payments/{paymentId} ([spec] paths). Keys serves the double's JWKS and,
// when it generated them, the client's keys, on the control side (JWKSPath, ClientKeyPath).
//
// # Signatures
//
//   - A POST's body is a compact JWS, Content-Type application/jwt, signed with PS256 by a
//     client key its kid names. Else: 415, or 400 BAD_SIGNATURE ([security] items 4 to 6).
//   - Its claims: aud the endpoint's URL, iss Config.ClientOrganisationID, iat within 60
//     seconds of the double's clock, jti a string not seen in 24 hours. Else: 403
//     INVALID_CLIENT ([security] items 3, 8 and 9; [spec] items 1.2.4 and 2.1.4).
//   - At most Config.MaxJTIs jtis are held; a new one beyond them gets 529.
//   - Answers of 200, 201 and 422 are JWS signed with the double's key, with aud
//     Config.ClientOrganisationID, iss Config.OrganisationID, a new jti and iat now. Other
//     errors are plain JSON, application/json; charset=utf-8, as the spec's 400, 401, 403,
//     404, 405, 415, 500, 504 and 529 responses are ([spec] components/responses).
//   - An error body is ResponseError: one errors[] item of code, title and detail, and
//     meta.requestDateTime ([spec] schema ResponseError).
//   - Every answer echoes x-fapi-interaction-id. A request without one, or with one that is
//     not a UUID, gets 400 and one made up ([spec] parameter xFapiInteractionId).
//   - Authorization must hold a bearer token, else 401 UNAUTHORIZED. The psp.Server checks it
//     when a payment is relayed, and scopes keys by it. Only the token that made a consent or
//     a payment reads it (another gets 404), and a payment may use only its token's consents.
//
// # Idempotency
//
//   - x-idempotency-key: one header of 1 to 40 characters, the first and the last not a space
//     ([spec] parameter XIdempotencyKey). Missing: 400 PARAMETRO_NAO_INFORMADO; else 400
//     PARAMETRO_INVALIDO. The double takes printable ASCII only, and relays the key with its
//     spaces, percent signs and double quotes percent-encoded, which the psp.Server's keys
//     cannot hold.
//   - The data claim is compared, not the bytes: a retry signs anew ([idempotency]). The same
//     key with the same data answers as the first time did; with other data, 422
//     ERRO_IDEMPOTENCIA. Data is compared in its JSON canonical form (RFC 8785).
//   - A key of POST /consents is kept on a 201; a key of POST /pix/payments on a 201 or a
//     422 business error ([idempotency]), and while a payment under it may have been made.
//     A key is kept Config.KeyTTL (24 hours), and at most Config.MaxKeys of each; a new key
//     beyond them gets 529.
//   - A key of POST /pix/payments let go after KeyTTL is new again, unless the double still
//     holds the paymentId of a payment made under it. A payment under such a key whose
//     consent passes gets 422 ERRO_IDEMPOTENCIA, and the key is not kept. The psp.Server may
//     hold the key longer than KeyTTL (it counts from the payment's end), or a GET of the
//     payment may have closed it there. And GET /pix/payments/{paymentId} looks the payment
//     up by its key: a second payment under the key would read as the first, or the first as
//     the second.
//   - A payment's key replayed answers 201 with the payment's status now ([idempotency]): the
//     double relays the replay to the psp.Server, which replays its own answer.
//
// # Consents
//
//   - POST /consents creates a consent, AUTHORISED at once, as a sandbox does: the double
//     plays the payer too ([spec] EnumAuthorisationStatusType).
//   - An AUTHORISED consent unconsumed 60 minutes after its status update (Config.ConsentTTL,
//     which a test may shorten) reads REJECTED, rejectionReason TEMPO_EXPIRADO_CONSUMO,
//     computed from the clock at each read ([spec] ResponsePaymentConsent expirationDateTime,
//     item 5.1.11). It reads AUTHORISED while a
//     payment under it is being relayed: REJECTED proves that no payment consumed it.
//   - A consent turns CONSUMED on a 201 of its payment, on a 422 business error, and when a
//     payment under it may have been made without an answer saying so (a fault after the
//     psp.Server's commit: a hang-up, a 5xx, a 409). It stays AUTHORISED otherwise ([consents]
//     CONSUMED). 422 ERRO_IDEMPOTENCIA and a 422 of the schema consume nothing: the first
//     changes no resource ([idempotency]), the second is syntax, not business ([spec] items
//     2.2.1 and 2.2.2).
//   - The double pays once, at once, to a Pix key typed in, in BRL: a schedule or a
//     localInstrument but DICT gets 422 FORMA_PAGAMENTO_INVALIDA, another currency 422
//     DETALHE_PAGAMENTO_INVALIDO ([spec] item 1.3.2).
//   - At most Config.MaxConsents consents are held, the oldest forgotten first.
//
// # Payments
//
//   - The data claim holds one payment, which names its consent in consentId: the double has
//     no authorisation server to bind the consent to the token ([spec] CreatePixPayment).
//   - A member missing gets 422 PARAMETRO_NAO_INFORMADO, one malformed 422
//     PARAMETRO_INVALIDO; its detail names the first by its path ([spec] items 1.3.1 and
//     2.2.1). The double checks the members it reads and the required ones.
//   - A consent unknown, CONSUMED or REJECTED: 422 CONSENTIMENTO_INVALIDO ([spec] item
//     2.2.2.5). A payment whose amount, currency, localInstrument, proxy or creditorAccount
//     differs from its consent's: 422 PAGAMENTO_DIVERGENTE_CONSENTIMENTO (item 2.2.2.6).
//   - The payment is relayed as the psp.Server's {"valor","chave","infoPagador"}: amount,
//     proxy, remittanceInformation. The Server's answers map so: 201 REALIZADO is 201 ACSC;
//     202 EM_PROCESSAMENTO is 201 ACCP (checks done, valor held, awaiting settlement; PDNG
//     would promise a cancellation the double does not serve); a rejection is RJCT with
//     rejectionReason PAGAMENTO_RECUSADO_DETENTORA and the Server's motivo ([spec]
//     EnumPaymentStatusType, item 4); 422 insufficient_funds is 422 SALDO_INSUFICIENTE (item
//     2.2.2.1); a 400 on valor, chave or infoPagador is 422 DETALHE_PAGAMENTO_INVALIDO, as a
//     DICT refusal is (item 2.3).
//   - The first 201 under a key mints a paymentId, a UUID. At most Config.MaxPayments are
//     held, the oldest forgotten first: GET then answers 404.
//   - GET /pix/payments/{paymentId} relays the psp.Server's lookup under the payment's key
//     and maps it the same way, 200 for 200 and 202. There is no lookup by key ([spec] paths).
//   - Overload: the psp.Server's 503 (Config.Capacity, a full key store, or a 503 fault)
//     becomes 529 SITE_IS_OVERLOADED, since v4 has no 503 ([spec] SiteIsOverloaded). Other
//     statuses of faults stay: 500, 504 GatewayTimeout, a 3xx (its Location the request's
//     path), a 409 PAGAMENTO_EM_PROCESSAMENTO (the double's own code, under the spec's
//     default response). A 2xx body the double cannot read goes as it is.
//
// # Left out
//
// mTLS and OAuth, PATCH (cancellation), scheduled and recurring payments, QR codes, multiple
// approvers, and the JOSE header's typ, which is not checked. v4 has no webhooks.
package openfinance
