package efi

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"time"

	"pixretry/psp"
	"pixretry/psp/webhook"
)

// WebhookPath is what Efí appends to the registered webhook URL when it posts a callback.
const WebhookPath = "/pix"

// WebhookForm is the form of Efí's webhook for a Pix sent, for a [webhook.Config]'s Form. The
// double then tells how each payout ended as Efí does. Its zero value is ready, and it is safe
// for concurrent use.
//
// It follows the "Recebendo Callbacks" section of Efí's "Webhooks" page
// (dev.efipay.com.br/docs/api-pix/webhooks), its tab "Pix enviado" and the two examples there,
// "Pix enviado" and "Pix rejeitado":
//   - The body is {"pix":[{"endToEndId","chave","tipo","status","valor","horario",
//     "infoPagador","gnExtras":{"idEnvio"}}]}. tipo is SOLICITACAO and status REALIZADO or
//     NAO_REALIZADO. valor has two decimals, as in "150.00". horario is in UTC with
//     milliseconds, and null for a payout NAO_REALIZADO, as in the example "Pix rejeitado".
//     idEnvio is the payout's key. chave is [PayerKey], the key whose webhook it is, as in the
//     lookup. infoPagador is the payout's, left out when empty.
//   - A payout NAO_REALIZADO carries why in gnExtras, after idEnvio, as the example "Pix
//     rejeitado" does: "erro":{"codigo","origem","motivo"}, three strings. motivo is the
//     payout's [psp.Ended] Reason, the core's own words, such as "rejected by a pending
//     fault". The page gives no table of codigo and origem, only the example's AC03 from the
//     "PSP do usuário recebedor". AC03 is a reason code of the Central Bank's SPI (its pacs.002
//     message). The double's rejection is no account error, so codigo is the SPI's DS04
//     (OrderRejected, "Ordem rejeitada pelo participante do usuário recebedor"), and origem is
//     the example's. A payout whose Reason is empty, which the core never reports, has no erro.
//   - The double sends one payout per body. The array may hold several at Efí.
//   - It is POSTed to the registered URL with [WebhookPath] appended ("POST
//     url-webhook-cadastrada/pix").
//
// Efí authenticates its callbacks with mutual TLS: the receiver demands Efí's client
// certificate. Efí's alternative for a receiver that cannot ("Skip-mTLS", same page) is an
// hmac of the receiver's choice in the registered URL, as in https://host/webhook?hmac=xyz&ignorar=,
// which the receiver checks on every callback. The trailing "ignorar=" takes the appended
// /pix into its value, so the path stays the registered one. The double has no registration,
// so the URL it is given (webhook.Config.URL) stands for the registered URL less the hmac.
// Request adds hmac=<secret> and ignorar= to its query, then appends /pix. Mutual TLS is out of
// the double's scope: it would need a certificate authority, a certificate for the double and
// TLS on the receiver, and it proves only who sends, which the hmac proves here too. A real
// receiver at Efí should demand mutual TLS, or check the hmac and Efí's address. Efí signs
// nothing in its body, so the body carries no id and no signature.
//
// The form leaves out the other kinds of callback (a Pix received, a devolução), which the
// double does not make.
type WebhookForm struct{}

// webhookBody is the body of Efí's callback.
type webhookBody struct {
	Pix []webhookPix `json:"pix"`
}

// webhookPix is one Pix sent in a callback, its members in the order of Efí's example.
type webhookPix struct {
	EndToEndID  string          `json:"endToEndId"`
	Chave       string          `json:"chave"`
	Tipo        string          `json:"tipo"`
	Status      string          `json:"status"`
	Valor       string          `json:"valor"`
	Horario     *string         `json:"horario"` // null if NAO_REALIZADO
	InfoPagador string          `json:"infoPagador,omitempty"`
	GnExtras    webhookGnExtras `json:"gnExtras"`
}

// webhookGnExtras holds the members Efí adds to the Central Bank's: the payout's idEnvio, and
// why a payout NAO_REALIZADO was not made.
type webhookGnExtras struct {
	IDEnvio string        `json:"idEnvio"`
	Erro    *webhookError `json:"erro,omitempty"`
}

// webhookError is why a payout was not made, as Efí's example "Pix rejeitado" has it.
type webhookError struct {
	Codigo string `json:"codigo"` // a reason code, such as "AC03"
	Origem string `json:"origem"` // who rejected it
	Motivo string `json:"motivo"` // why, in words
}

// The codigo and origem of every payout that the double rejects (see WebhookForm).
const (
	codigoRejected = "DS04"
	origemRejected = "PSP do usuário recebedor"
)

// tipoSolicitacao is the tipo of a Pix the account sent.
const tipoSolicitacao = "SOLICITACAO"

// Body is the callback of e: one Pix sent, without a delivery id, which Efí's form has none of.
func (WebhookForm) Body(_ string, e psp.Ended) []byte {
	p := webhookPix{EndToEndID: e.EndToEndID, Chave: PayerKey, Tipo: tipoSolicitacao, Status: e.Status,
		Valor: psp.FormatAmount(e.AmountCents), InfoPagador: e.Description,
		GnExtras: webhookGnExtras{IDEnvio: e.IdempotencyKey}}
	switch {
	case e.Status == statusSettled:
		at := e.At.UTC().Format("2006-01-02T15:04:05.000Z") // as efiTime writes it
		p.Horario = &at
	case e.Reason != "":
		p.GnExtras.Erro = &webhookError{Codigo: codigoRejected, Origem: origemRejected, Motivo: e.Reason}
	}
	return marshal(webhookBody{Pix: []webhookPix{p}})
}

// Request is a POST of body to WebhookURL(url, secret), as JSON. t is not used: Efí's
// authentication does not change from one try to the next.
func (WebhookForm) Request(ctx context.Context, url string, secret webhook.Secret, _ time.Time,
	body []byte) (*http.Request, error) {
	target, err := WebhookURL(url, string(secret))
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

// WebhookURL is where Efí posts a callback for the webhook registered as base with hmac: base
// with hmac=<hmac> and an empty ignorar= added last to its query, and WebhookPath appended, as
// in https://host/webhook?hmac=xyz&ignorar=/pix. A fragment of base is left out. The error is
// url.Parse's for a base that does not parse.
func WebhookURL(base, hmac string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	u.Fragment, u.RawFragment = "", ""
	if u.RawQuery != "" {
		u.RawQuery += "&"
	}
	u.RawQuery += "hmac=" + url.QueryEscape(hmac) + "&ignorar="
	return u.String() + WebhookPath, nil
}
