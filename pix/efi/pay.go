package efi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"pixretry/pix"
)

// sendPath is where a payment is PUT, with its idEnvio appended.
const sendPath = "v2/gn/pix"

// payout is the body of a PUT.
type payout struct {
	Valor      string     `json:"valor"`
	Pagador    pagador    `json:"pagador"`
	Favorecido favorecido `json:"favorecido"`
}

type pagador struct {
	Chave       string `json:"chave"`
	InfoPagador string `json:"infoPagador,omitempty"`
}

type favorecido struct {
	Chave string `json:"chave"`
}

// Pay returns the PUT that pays p under key, from d.PayerKey to p.PixKey. It returns the
// error of [Dialect.Validate] for a d that cannot pay, and pix then sends nothing. It returns
// http.NewRequestWithContext's error for a request it cannot write, such as one of a nil ctx.
func (d Dialect) Pay(ctx context.Context, base *url.URL, key string, p pix.Payment) (*http.Request, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	body, _ := json.Marshal(payout{Valor: valor(p.AmountCents), Pagador: pagador{Chave: d.PayerKey,
		InfoPagador: p.Description}, Favorecido: favorecido{Chave: p.PixKey}}) // strings always encode
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, base.JoinPath(sendPath, key).String(),
		bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return req, nil
}

// sent is the body of a PUT's 201.
type sent struct {
	IDEnvio string `json:"idEnvio"`
	E2EID   string `json:"e2eId"`
	Valor   string `json:"valor"`
	Horario struct {
		Solicitacao string `json:"solicitacao"`
	} `json:"horario"`
	Status string `json:"status"`
}

// Paid reads the answer to a PUT of p. A 201 EM_PROCESSAMENTO is pending, and a 201 REALIZADO
// a replay of a settled payment. Another 201, or one for another valor, breaks the contract:
// the error is a [*pix.Error] of status 201 that also wraps [pix.ErrContract]. Any other
// answer is a [*pix.Error] (see Dialect), which matches ErrContract for a 2xx or a 3xx.
func (Dialect) Paid(a pix.Answer, p pix.Payment) (pix.Found, error) {
	if a.Status != http.StatusCreated {
		return pix.Found{}, decodeError(a)
	}
	f, err := readSent(a.Body)
	if err == nil && f.AmountCents != p.AmountCents {
		err = fmt.Errorf("%w: efi: the 201 is for valor %q, not the %q sent", pix.ErrContract, valor(f.AmountCents),
			valor(p.AmountCents))
	}
	if err != nil {
		return pix.Found{}, fmt.Errorf("%w: %w", &pix.Error{Status: a.Status}, err)
	}
	f.PixKey = p.PixKey
	return f, nil
}

// readSent reads the body of a 201, or returns the error wrapping pix.ErrContract that says
// which member breaks the contract.
func readSent(body []byte) (pix.Found, error) {
	var b sent
	if err := json.Unmarshal(body, &b); err != nil {
		return pix.Found{}, fmt.Errorf("%w: efi: the 201 is not the expected JSON: %v", pix.ErrContract, err)
	}
	if !idEnvioPattern.MatchString(b.IDEnvio) {
		return pix.Found{}, fmt.Errorf("%w: efi: the 201 has idEnvio %q, not 1 to 35 letters and digits",
			pix.ErrContract, b.IDEnvio)
	}
	f := pix.Found{State: sentStates[b.Status], Replayed: b.Status == statusSettled, Key: b.IDEnvio}
	if f.State == 0 {
		return pix.Found{}, fmt.Errorf("%w: efi: the 201 has status %q, want %q or %q", pix.ErrContract, b.Status,
			statusPending, statusSettled)
	}
	var err error
	if f.EndToEndID, err = checkEndToEndID("e2eId", b.E2EID); err != nil {
		return pix.Found{}, err
	}
	if f.AmountCents, err = parseValor(b.Valor); err != nil {
		return pix.Found{}, err
	}
	if f.At, err = parseTime("horario.solicitacao", b.Horario.Solicitacao); err != nil {
		return pix.Found{}, err
	}
	return f, nil
}

// sentStates are the statuses a 201 may carry, and what each means.
var sentStates = map[string]pix.State{statusPending: pix.Pending, statusSettled: pix.Settled}
