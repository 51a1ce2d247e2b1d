package efi

import (
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"pixretry/pix"
)

// Dialect is the [pix.Dialect] of Efí's Pix payouts. Its zero value has no PayerKey, and pays
// nothing. Nothing changes a Dialect, so it is safe for concurrent use.
//
// Its rules follow, each with its source. "The page" is Efí's "Envio e Pagamento Pix"
// (dev.efipay.com.br/docs/api-pix/envio-pagamento-pix). "The attributes" is the attribute table
// of its section "Requisitar envio de Pix" (Enviar_pix.md of Efí's technical documentation).
//   - The key is the idEnvio, in the path, matching ^[a-zA-Z0-9]{1,35}$ (the attributes,
//     idEnvio). NewKey makes a random UUID without its hyphens, 32 hexadecimal digits. CheckKey
//     refuses any other key before a request is made. A UUID with its hyphens does not fit.
//   - A payment is PUT /v2/gn/pix/{idEnvio} with the JSON body {"valor", "pagador": {"chave",
//     "infoPagador"}, "favorecido": {"chave"}} (the page, "Requisitar envio de Pix", first
//     example). valor is in reais with two decimals, as in "150.00" (the attributes, valor).
//     pagador.chave is PayerKey, and infoPagador the Description, left out when empty.
//     favorecido.chave is the payee's key.
//   - The PUT's 201 is {"idEnvio", "e2eId", "valor", "horario": {"solicitacao"}, "status"},
//     with status EM_PROCESSAMENTO (the page, same section, answer 201). The payment is
//     pending. The 201 names no payee, so the payee found is the payment's own.
//   - The page shows no other status on a 201, and says nothing of a second PUT under an
//     idEnvio. The double (psp/efi) replays the payment's state, so a 201 REALIZADO is taken
//     for a replayed settlement, at its solicitacao.
//   - A refusal is {"nome", "mensagem"} (the page, same section, answers 400, 409, 422 and
//     500). Any 400 means [pix.ErrInvalidPayment]. A 409 id_envio_duplicado says the idEnvio
//     is "used in another payment". The page does not say whether a PUT of the same payment
//     gets it too, so it proves nothing: pix retries it as any 409, and the outcome stays
//     unknown until a lookup by idEnvio tells. Were it read as [pix.ErrKeyReused], a PSP that
//     refuses an identical resend with it would have a paid payment taken for an unpaid one,
//     and paid again under a new key. A 422 pagamento_negado
//     means [pix.ErrRejected]: nothing was paid under the idEnvio. The page names no other
//     refusal, so a balance too low is one of these. A 500 erro_aplicacao means nothing, and
//     pix retries it as it retries any 409, 429 and 5xx.
//   - Other errors are the Central Bank's problem+json, of type
//     https://pix.bcb.gov.br/api/v2/error/<Tipo> (the page, the lookups' answer 404), whose
//     Tipo becomes the [pix.Error]'s Code. An OAuth error {"error", "error_description"} (RFC
//     6750) has its error as the Code.
//   - A lookup is GET /v2/gn/pix/enviados/id-envio/{idEnvio} (the page, "Consultar Pix enviado
//     através do Identificador da transação"). Its 200 is {"endToEndId", "idEnvio", "valor",
//     "chave", "status", "infoPagador", "horario": {"solicitacao", "liquidacao"},
//     "favorecido": {"chave"}}. There chave is the payer's key, and favorecido.chave the
//     payee's. The status is EM_PROCESSAMENTO (pending), REALIZADO (settled at liquidacao) or
//     NAO_REALIZADO (rejected, for the motivo it may give) (the attributes, status).
//   - A lookup's 404 of Tipo PixEnviadoNaoEncontrado means [pix.ErrNoSettlement]. The page does
//     not say that the 404 closes the idEnvio. The double closes it, as its own API closes a
//     key, and refuses a later PUT under it with 422 pagamento_negado. Against Efí, the 404 is
//     proof only while no PUT under the idEnvio can still arrive. pix's own lookups meet that:
//     Resume looks up only past the key deadline, when no attempt may be in flight.
//   - Efí states no time for which it keeps an idEnvio. KeyTTL is 24 hours, the time PSPs
//     usually keep a key. pix then resends under an idEnvio only until its key deadline, 21.6
//     hours after its first attempt, and looks it up after that.
type Dialect struct {
	// PayerKey is the Pix key of the account that pays, sent as pagador.chave. It is a CPF,
	// CNPJ, phone, e-mail or EVP key, as [pix.Payment.PixKey] is, and Efí refuses one that is
	// not the authenticated account's (400 chave_invalida). Nothing is sent while it is empty
	// or not a Pix key: see [Dialect.Validate].
	PayerKey string
}

var _ pix.Dialect = Dialect{}

// keyTTL is how long Efí is taken to keep an idEnvio (see Dialect).
const keyTTL = 24 * time.Hour

// idEnvioPattern is the format of an idEnvio.
var idEnvioPattern = regexp.MustCompile(`^[a-zA-Z0-9]{1,35}$`)

// NewKey returns a random (version 4) UUID without its hyphens: 32 lower-case hexadecimal
// digits.
func (Dialect) NewKey() string {
	id := uuid.New()
	return hex.EncodeToString(id[:])
}

// CheckKey returns nil if key is an idEnvio, 1 to 35 ASCII letters and digits. Otherwise it
// returns an error wrapping [pix.ErrInvalidPayment], which says that a key with hyphens, such as
// a UUID, fits without them when it does.
func (Dialect) CheckKey(key string) error {
	if idEnvioPattern.MatchString(key) {
		return nil
	}
	hint := ""
	if idEnvioPattern.MatchString(strings.ReplaceAll(key, "-", "")) { // only a key with hyphens fits without them
		hint = "; it would fit without its hyphens, as a UUID does"
	}
	return fmt.Errorf("efi: idEnvio %q is not 1 to 35 ASCII letters and digits%s: %w", key, hint, pix.ErrInvalidPayment)
}

// KeyTTL returns 24 hours (see Dialect).
func (Dialect) KeyTTL() time.Duration { return keyTTL }

// Validate returns nil if d can pay, or the error that Pay returns for every attempt, with
// nothing sent: an error wrapping [pix.ErrInvalidPayment] when PayerKey is empty or not a Pix
// key. Call it when the Client is configured. Lookups do not need PayerKey.
func (d Dialect) Validate() error {
	if d.PayerKey == "" {
		return fmt.Errorf("efi: PayerKey is empty, want the paying account's Pix key: %w", pix.ErrInvalidPayment)
	}
	if !isPixKey(d.PayerKey) {
		return fmt.Errorf("efi: PayerKey %q is not a CPF, CNPJ, phone, e-mail or EVP Pix key: %w", d.PayerKey,
			pix.ErrInvalidPayment)
	}
	return nil
}

// isPixKey reports whether k is a Pix key in one of the five formats. pix owns the formats: a
// payment of one centavo to k is valid exactly when k is one.
func isPixKey(k string) bool {
	return pix.Payment{AmountCents: 1, PixKey: k}.Validate() == nil
}
