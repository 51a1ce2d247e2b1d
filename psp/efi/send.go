package efi

import (
	"bytes"
	"io"
	"net/http"

	"pixretry/psp"
)

// sent is the body of a PUT's 201.
type sent struct {
	IDEnvio string  `json:"idEnvio"`
	E2EID   string  `json:"e2eId,omitempty"`
	Valor   string  `json:"valor,omitempty"`
	Horario horario `json:"horario,omitempty"`
	Status  string  `json:"status,omitempty"`
}

// nativePayment is the body of the core's payment.
type nativePayment struct {
	Valor       string `json:"valor"`
	Chave       string `json:"chave"`
	InfoPagador string `json:"infoPagador,omitempty"`
}

// send is PUT SendPath+idEnvio: it checks idEnvio and the body, then pays under idEnvio through
// the core and translates its answer (see sendAnswer).
func (h handler) send(w http.ResponseWriter, r *http.Request) {
	id, refusal := idEnvio(r)
	var p payout
	if refusal == nil {
		p, refusal = readPayout(w, r)
	}
	if refusal != nil {
		refusal.write(w)
		return
	}
	body := marshal(nativePayment{p.valor, p.chave, p.info})
	native := relayed(r, http.MethodPost, psp.PaymentsPath, bytes.NewReader(body))
	native.Header.Set("Content-Type", "application/json")
	native.Header.Set(psp.IdempotencyKeyHeader, id)
	if a, ok := psp.Relay(h.next, w, native); ok {
		sendAnswer(r, id, a).write(w)
	}
}

// sendAnswer is the Efí answer to a PUT under id of the core's answer a. A payment accepted
// answers 201 with status EM_PROCESSAMENTO, as Efí does, even when it settled at once; a replay
// answers its current status, REALIZADO or EM_PROCESSAMENTO. A 2xx that a commit_status fault
// sends keeps its status.
func sendAnswer(r *http.Request, id string, a psp.Relayed) answer {
	return translate(r, a, func(rc receipt) answer {
		body := sent{IDEnvio: id, E2EID: rc.EndToEndID, Valor: rc.Valor,
			Horario: horario{Solicitacao: efiTime(rc.Horario)}, Status: rc.Status}
		if body.Status != "" && a.Header.Get(replayedHeader) != "true" {
			body.Status = statusPending
		}
		status := a.Status
		if status == http.StatusAccepted {
			status = http.StatusCreated
		}
		return jsonAnswer(status, body)
	})
}

// relayed is the core's request for r: method, target and body, with r's context and every
// header field of r but those the front end translates: the body's Content-Type and
// Content-Length, which it rewrites, and the Idempotency-Key, which idEnvio sets. So
// Authorization, traceparent and any other field of the caller's reach the core, as through a
// gateway.
func relayed(r *http.Request, method, target string, body io.Reader) *http.Request {
	native, _ := http.NewRequestWithContext(r.Context(), method, target, body) // a valid method and target
	native.Header = r.Header.Clone()
	for _, name := range translatedHeaders {
		native.Header.Del(name)
	}
	return native
}

// translatedHeaders are the header fields of a request that the front end does not pass on.
var translatedHeaders = []string{"Content-Type", "Content-Length", psp.IdempotencyKeyHeader}
