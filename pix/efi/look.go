package efi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"pixretry/pix"
)

// lookupPath is where a payment is looked up, with its idEnvio appended.
const lookupPath = "v2/gn/pix/enviados/id-envio"

// tipoNotFound is the Tipo of a lookup's 404: no payment under the idEnvio.
const tipoNotFound = "PixEnviadoNaoEncontrado"

// Look returns the GET that looks up the payment under key. It needs neither ref nor
// PayerKey, and never fails for want of them.
func (Dialect) Look(ctx context.Context, base *url.URL, key string, _ pix.Ref) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, http.MethodGet, base.JoinPath(lookupPath, key).String(), nil)
}

// found is the body of a lookup's 200.
type found struct {
	EndToEndID  string `json:"endToEndId"`
	IDEnvio     string `json:"idEnvio"`
	Valor       string `json:"valor"`
	Chave       string `json:"chave"`
	Status      string `json:"status"`
	InfoPagador string `json:"infoPagador"`
	Motivo      string `json:"motivo"`
	Horario     struct {
		Solicitacao string `json:"solicitacao"`
		Liquidacao  string `json:"liquidacao"`
	} `json:"horario"`
	Favorecido struct {
		Chave string `json:"chave"`
	} `json:"favorecido"`
}

// Seen reads the answer to a lookup. A 200 says the payment is pending, settled or rejected.
// A 404 of Tipo PixEnviadoNaoEncontrado is an error wrapping [pix.ErrNoSettlement] and the
// [*pix.Error] (see Dialect). A 200 that breaks the contract is a [*pix.Error] of status 200
// that also wraps [pix.ErrContract], and any other answer is a [*pix.Error].
func (Dialect) Seen(a pix.Answer, _ pix.Ref) (pix.Found, error) {
	if a.Status != http.StatusOK {
		e := decodeError(a)
		if e.Status == http.StatusNotFound && e.Code == tipoNotFound {
			return pix.Found{}, fmt.Errorf("%w: %w", pix.ErrNoSettlement, e)
		}
		return pix.Found{}, e
	}
	f, err := readFound(a.Body)
	if err != nil {
		return pix.Found{}, fmt.Errorf("%w: %w", &pix.Error{Status: a.Status}, err)
	}
	return f, nil
}

// readFound reads the body of a lookup's 200, or returns the error wrapping pix.ErrContract
// that says which member breaks the contract. The payer's chave is checked to be a Pix key,
// not to be PayerKey: an account may hold several keys, and pay with any of them.
func readFound(body []byte) (pix.Found, error) {
	var b found
	if err := json.Unmarshal(body, &b); err != nil {
		return pix.Found{}, fmt.Errorf("%w: efi: the lookup's 200 is not the expected JSON: %v", pix.ErrContract, err)
	}
	switch {
	case !idEnvioPattern.MatchString(b.IDEnvio):
		return pix.Found{}, fmt.Errorf("%w: efi: the lookup's 200 has idEnvio %q, not 1 to 35 letters and digits",
			pix.ErrContract, b.IDEnvio)
	case !isPixKey(b.Chave) || !isPixKey(b.Favorecido.Chave):
		return pix.Found{}, fmt.Errorf("%w: efi: the lookup's 200 has chave %q and favorecido.chave %q, not two Pix keys",
			pix.ErrContract, b.Chave, b.Favorecido.Chave)
	}
	f := pix.Found{State: lookupStates[b.Status], PixKey: b.Favorecido.Chave, Description: b.InfoPagador,
		Reason: b.Motivo, Key: b.IDEnvio}
	if f.State == 0 {
		return pix.Found{}, fmt.Errorf("%w: efi: the lookup's 200 has status %q, want %q, %q or %q", pix.ErrContract,
			b.Status, statusPending, statusSettled, statusRejected)
	}
	var err error
	if f.EndToEndID, err = checkEndToEndID("endToEndId", b.EndToEndID); err != nil {
		return pix.Found{}, err
	}
	if f.AmountCents, err = parseValor(b.Valor); err != nil {
		return pix.Found{}, err
	}
	member, at := "horario.solicitacao", b.Horario.Solicitacao
	if f.State == pix.Settled {
		member, at = "horario.liquidacao", b.Horario.Liquidacao
	}
	if f.At, err = parseTime(member, at); err != nil {
		return pix.Found{}, err
	}
	return f, nil
}

// lookupStates are the statuses a lookup's 200 may carry, and what each means.
var lookupStates = map[string]pix.State{statusPending: pix.Pending, statusSettled: pix.Settled,
	statusRejected: pix.Rejected}
