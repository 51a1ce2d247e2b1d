package openfinance

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"pixretry/psp"
)

// nativePayment is the psp.Server's own request for a payment under key: POST
// psp.PaymentsPath with the header fields of from (see nativeRequest), the key as coreKey makes
// it, and the body {"valor","chave","infoPagador"} built from p, read through mark. Its context
// hands the Server p's endToEndId (psp.WithEndToEndID), the one the client made, so that the
// ledger holds the id the answers carry.
func nativePayment(from *http.Request, key string, p paymentItem, mark *readMark) *http.Request {
	body, _ := json.Marshal(struct {
		Valor       string `json:"valor"`
		Chave       string `json:"chave"`
		InfoPagador string `json:"infoPagador,omitzero"`
	}{p.amount, p.proxy, p.remittance})
	mark.r = bytes.NewReader(body)
	r := nativeRequest(from, http.MethodPost, psp.PaymentsPath, mark)
	r = r.WithContext(psp.WithEndToEndID(r.Context(), p.endToEndID))
	r.ContentLength = int64(len(body))
	r.Header.Set(psp.IdempotencyKeyHeader, coreKey(key))
	r.Header.Set("Content-Type", "application/json")
	return r
}

// nativeLookup is the psp.Server's own status lookup of key: GET psp.PaymentsPath with the
// header fields of from (see nativeRequest).
func nativeLookup(from *http.Request, key string) *http.Request {
	query := url.Values{psp.LookupParam: {coreKey(key)}}.Encode()
	return nativeRequest(from, http.MethodGet, psp.PaymentsPath+"?"+query, nil)
}

// nativeRequest is a request to the psp.Server in from's context. It carries every header
// field of from, as through a gateway, so that Authorization, traceparent and any other field
// of the caller's reach the Server, but those the Server translates or owns
// (ownHeaders).
func nativeRequest(from *http.Request, method, target string, body io.Reader) *http.Request {
	r, _ := http.NewRequestWithContext(from.Context(), method, target, body) // method and target are valid
	r.Header = from.Header.Clone()
	for _, name := range ownHeaders {
		r.Header.Del(name)
	}
	return r
}

// ownHeaders are the header fields of a request that the Server does not relay: the body's
// Content-Type and Content-Length, since it relays a body of its own; x-idempotency-key, which
// it relays as the Idempotency-Key (coreKey), and an Idempotency-Key of the caller's, which the
// API does not have; and x-fapi-interaction-id, which only its answer echoes.
var ownHeaders = []string{"Content-Type", "Content-Length", keyHeader, psp.IdempotencyKeyHeader, interactionHeader}

// readMark is a request body that notes whether the psp.Server read it. The Server reads a
// payment's body only once it has checked the token and the key, and before it commits: a
// request whose body it never read was not processed (psp/control/openapi.json, the order of
// processing).
type readMark struct {
	r    io.Reader
	read bool
}

func (m *readMark) Read(p []byte) (int, error) {
	m.read = true
	return m.r.Read(p)
}

// native is an answer of the psp.Server, decoded: a problem's code, detail and violations, or
// a receipt's members.
type native struct {
	psp.Relayed
	problem *psp.Problem // nil unless the body is a problem
	receipt *receipt     // nil unless the body is a JSON object without a code: a receipt
}

// receipt is the body of the psp.Server's 201, 202 and lookup 200. A member is nil when the
// body lacks it, as a bad_body fault may leave it.
type receipt struct {
	Valor   *string `json:"valor"`
	Chave   *string `json:"chave"`
	Status  *string `json:"status"`
	Horario *string `json:"horario"`
	Motivo  string  `json:"motivo"`
}

// decode reads a's body as a problem or a receipt.
func decode(a psp.Relayed) native {
	n := native{Relayed: a}
	var members map[string]jsontext.Value
	switch {
	case json.Unmarshal(a.Body, &members) != nil:
	case members["code"] != nil:
		n.problem = new(psp.Problem)
		json.Unmarshal(a.Body, n.problem)
	default:
		n.receipt = new(receipt)
		json.Unmarshal(a.Body, n.receipt)
	}
	return n
}

// code is n's problem code, or "" if n is not a problem.
func (n native) code() string {
	if n.problem == nil {
		return ""
	}
	return n.problem.Code
}

// updated is when the receipt says its payment last changed status, its horario, or the zero
// time if it does not say.
func (r *receipt) updated() time.Time {
	if r.Horario == nil {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339Nano, *r.Horario)
	return t
}
