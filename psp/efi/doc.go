// Package efi serves the PSP double in the dialect of Efí's Pix payouts: an http.Handler that
// translates each request to the double's own API, serves it with [psp.Relay] and translates
// the answer back. Keys, replays, the ledger, the balance, faults, pending payments, the
// journal and Stats are the core's. The front end keeps no state.
//
// It serves two operations, as Efí's "Envio e Pagamento Pix" page (dev.efipay.com.br,
// api-pix/envio-pagamento-pix) has them:
//
//	PUT /v2/gn/pix/{idEnvio}                    "Requisitar envio de Pix"
//	GET /v2/gn/pix/enviados/id-envio/{idEnvio}  "Consultar Pix enviado através do Identificador da transação"
//
// The PUT pays under the key idEnvio, as a native POST pays under its Idempotency-Key. The
// body {"valor","pagador":{"chave","infoPagador"},"favorecido":{"chave"}} becomes the native
// {"valor","chave","infoPagador"}, the chave being the favorecido's.
//
// # The rules and where they come from
//
// Efí's page "Envio e Pagamento Pix", section "Requisitar envio de Pix", and its attribute
// table (the Enviar_pix.md of Efí's technical documentation):
//   - idEnvio matches ^[a-zA-Z0-9]{1,35}$. A hyphenated UUID does not fit: it must lose its
//     hyphens. Another idEnvio is refused with 400 json_invalido naming ".params.idEnvio", and
//     nothing reaches the core.
//   - valor is a string matching \d{1,10}\.\d{2}. pagador (chave required, infoPagador
//     optional) and favorecido (chave) are required objects.
//   - pagador.chave is the authenticated account's key, else 400 chave_invalida. The double has
//     one payer, whose key is [PayerKey].
//   - The PUT answers 201 {"idEnvio","e2eId","valor","horario":{"solicitacao"},"status"} with
//     status EM_PROCESSAMENTO. The front end answers so even when the core settled at once,
//     since Efí tells the end by webhook and lookup, never in the PUT.
//   - The documented errors, in the form {"nome","mensagem"} of Efí's /v2/gn endpoints: 400
//     chave_invalida and valor_invalido, 409 id_envio_duplicado ("the idEnvio was already used
//     in another payment"), 422 pagamento_negado, 500 erro_aplicacao.
//   - Section "Consultar Pix enviado através do Identificador da transação": the lookup
//     answers 200 {"endToEndId","idEnvio","valor","chave","status","infoPagador",
//     "horario":{"solicitacao","liquidacao"},"favorecido":{"chave"}}, its chave being the
//     payer's. An idEnvio never used answers 404 problem+json of type
//     https://pix.bcb.gov.br/api/v2/error/PixEnviadoNaoEncontrado.
//   - The statuses EM_PROCESSAMENTO, REALIZADO and NAO_REALIZADO: Efí's page "Status das
//     transações", table "Envio de Pix".
//
// A body that fails Efí's schema is refused with 400 {"nome":"json_invalido","mensagem",
// "erros":[{"chave","caminho","mensagem"}]}, one entry per member at fault, in the form Efí
// answers such a body. That form is not on the page: it is an answer of Efí's API quoted in
// issue 3 of alexandresanlim/pix-dynamic-payload-generator.net. chave is the schema keyword
// broken (json, type, required, additionalProperties, pattern, maxLength, format) and caminho
// names the member, such as ".body.pagador.chave". Unknown members are refused, as that answer
// shows ("additionalProperties"). favorecido.cpf, favorecido.cnpj and favorecido.contaBanco are
// documented, but the double pays Pix keys only and refuses them as unknown members.
//
// The unavailability statuses are the Central Bank's API Pix (bacen/pix-api, openapi.yaml,
// its general errors): 503 ServicoIndisponivel and 504 IndisponibilidadePorTempoEsgotado, as
// problem+json of type https://pix.bcb.gov.br/api/v2/error/<Tipo>, which Efí's lookup 404 uses
// too. A 429 is BaldeFichasVazio, the type Efí's page answers a 429 with ("Detalhar QR Code
// Pix"). A 401 has the OAuth form {"error","error_description"} of RFC 6750, which Efí's page
// shows for its 403 insufficient_scope.
//
// # Where the docs are silent
//
//   - A second PUT with an idEnvio: the docs say nothing. idEnvio is the client's idempotent id,
//     as the txid of the Central Bank's PUT /cob/{txid} is. So the same payload replays the
//     payment's current state: 201 with REALIZADO or EM_PROCESSAMENTO, or 422 pagamento_negado
//     once it is NAO_REALIZADO. Another payload is 409 id_envio_duplicado.
//   - A PUT while another with its idEnvio is in flight, or a lookup then: 500 erro_aplicacao,
//     which a client retries. Nothing is known yet, so the front end claims no state.
//   - Insufficient balance: 422 pagamento_negado. Efí's page documents no other refusal of a
//     payment.
//   - A lookup's 404 closes the idEnvio for good, as the core's lookup 404 closes its key: the
//     404 proves that nothing was paid and that nothing ever will be. A later PUT under that
//     idEnvio pays nothing and answers 422 pagamento_negado. The client pays under a new idEnvio.
//   - The lookup of a payment NAO_REALIZADO carries a motivo, as the Central Bank's Devolucao
//     does for a refund NAO_REALIZADO. A payment EM_PROCESSAMENTO or NAO_REALIZADO has no
//     horario.liquidacao.
//   - The core keeps one instant per payment: its acceptance while pending, then its end. The
//     lookup gives it as solicitacao, and as liquidacao once REALIZADO. Times have milliseconds,
//     in UTC, as in Efí's examples.
//   - A lookup whose outcome the core cannot prove (it dropped settlements) answers 410
//     PermanentementeRemovido, the Central Bank's general type for a 410.
//   - Another path answers 404 {"nome":"rota_nao_encontrada"}, and another method on a served
//     path 405 {"nome":"metodo_nao_permitido"} with Allow. The body is read as JSON whatever its
//     Content-Type, and at most psp.MaxBodyBytes of it.
//   - The front end checks idEnvio and the body before the core checks the token. A request it
//     refuses reaches no core: no fault is consumed, and the journal and Stats do not count it.
//   - A request relayed to the core carries every header field of the PUT or GET, as through a
//     gateway, but three that the front end translates: Content-Type and Content-Length, since
//     it rewrites the body, and Idempotency-Key, since idEnvio is the key.
//   - Faults: a status fault keeps its status, with 503, 504 and 429 as above and any other as
//     erro_aplicacao. So does an answer that no problem of the core's carries: a proxy's in
//     front of the core, such as a gateway's 502. A fault that closes the connection closes it
//     (see psp.Relay). A redirect is sent with the request's own path as Location. A bad_body
//     fault breaks the translated body as it breaks the native one (not_json sends the native
//     page as it is). A chave breach shows only in the lookup's favorecido.
//   - The human-readable texts (mensagem, title, detail) are the double's, in English. A client
//     branches on the status and the nome or type, never on the text.
//
// Efí's webhook, the callback of a Pix sent, is WebhookForm's: psp/webhook's Sender posts it
// in that form when its Config.Form says so, as cmd/psp -dialect efi does.
package efi
