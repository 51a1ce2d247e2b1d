// Package efi speaks Efí's Pix payouts ("Envio de Pix") for a [pix.Client]. Set the Client's
// Dialect to a [Dialect] that holds the paying account's Pix key.
//
// A payment is PUT /v2/gn/pix/{idEnvio}, with the idempotency key, idEnvio, in the path. Efí
// accepts it with a 201 whose status is EM_PROCESSAMENTO and ends it later. So
// [pix.Client.Send] ends with [pix.ErrPending], and [pix.Client.Await] looks the payment up,
// GET /v2/gn/pix/enviados/id-envio/{idEnvio}, until it is REALIZADO or NAO_REALIZADO. [Dialect]
// lists each rule and the part of Efí's documentation it comes from. Efí's webhook also tells
// how a payment ended: [WebhookHandler] receives it.
package efi
