package efi

import (
	"net/http"
	"net/url"

	"pixretry/psp"
)

// enviado is the body of a lookup's 200.
type enviado struct {
	EndToEndID  string      `json:"endToEndId,omitempty"`
	IDEnvio     string      `json:"idEnvio"`
	Valor       string      `json:"valor,omitempty"`
	Chave       string      `json:"chave"` // the payer's key
	Status      string      `json:"status,omitempty"`
	Motivo      string      `json:"motivo,omitempty"`
	InfoPagador string      `json:"infoPagador,omitempty"`
	Horario     horario     `json:"horario,omitempty"`
	Favorecido  *favorecido `json:"favorecido,omitempty"`
}

// favorecido is who a payout pays.
type favorecido struct {
	Chave string `json:"chave"`
}

// lookup is GET LookupPath+idEnvio: it checks idEnvio, then looks it up through the core and
// translates its answer (see lookupAnswer).
func (h handler) lookup(w http.ResponseWriter, r *http.Request) {
	id, refusal := idEnvio(r)
	if refusal != nil {
		refusal.write(w)
		return
	}
	target := psp.PaymentsPath + "?" + url.Values{psp.LookupParam: {id}}.Encode()
	if a, ok := psp.Relay(h.next, w, relayed(r, http.MethodGet, target, nil)); ok {
		lookupAnswer(r, id, a).write(w)
	}
}

// lookupAnswer is the Efí answer to a lookup of id of the core's answer a: 200 with the
// payout's status, REALIZADO, NAO_REALIZADO with a motivo, or EM_PROCESSAMENTO. The core's
// lookup has two statuses of 2xx, 200 and the 202 of a pending payout, and no fault that sends
// another (commit_status does not target lookups): Efí answers both with 200.
func lookupAnswer(r *http.Request, id string, a psp.Relayed) answer {
	return translate(r, a, func(rc receipt) answer {
		body := enviado{EndToEndID: rc.EndToEndID, IDEnvio: id, Valor: rc.Valor, Chave: PayerKey,
			Status: rc.Status, Motivo: rc.Motivo, InfoPagador: rc.InfoPagador,
			Horario: horario{Solicitacao: efiTime(rc.Horario)}}
		if rc.Status == statusSettled {
			body.Horario.Liquidacao = body.Horario.Solicitacao
		}
		if rc.Chave != "" {
			body.Favorecido = &favorecido{rc.Chave}
		}
		return jsonAnswer(http.StatusOK, body)
	})
}
