package openfinance

import (
	"cmp"
	"net/http"
	"slices"

	"github.com/go-json-experiment/json/jsontext"
)

// The statuses of a payment the double shows (4.1.0.yml, EnumPaymentStatusType), by the
// psp.Server's. A payment the Server holds pending has passed its checks and has its valor held
// until it settles: ACCP, "all checks done, ready for settlement". PDNG, "held for analysis",
// would promise a cancellation (PATCH) the double does not serve.
var paymentStatuses = map[string]string{
	"REALIZADO":        "ACSC",
	"EM_PROCESSAMENTO": "ACCP",
	"NAO_REALIZADO":    "RJCT",
}

const (
	paymentRejected = "RJCT"
	// rejectedByPSP is the rejectionReason code of a payment the psp.Server rejected: refused by
	// the account holder (4.1.0.yml, EnumRejectionReasonType), its detail the Server's motivo.
	rejectedByPSP = "PAGAMENTO_RECUSADO_DETENTORA"
	// debtorDefault is the payer's account of a consent that names none: the psp.Server's one
	// payer.
	debtorDefault = `{"ispb":"12345678","issuer":"0001","number":"1234567890","accountType":"CACC"}`
)

// paymentView is a payment as v4 shows it: an item of ResponseCreatePixPayment's data, or
// ResponsePixPayment's data. A member the psp.Server's answer lacks, as a bad_body fault may
// leave it, is left out.
type paymentView struct {
	PaymentID                 string         `json:"paymentId"`
	EndToEndID                string         `json:"endToEndId"`
	ConsentID                 string         `json:"consentId"`
	CreationDateTime          string         `json:"creationDateTime"`
	StatusUpdateDateTime      string         `json:"statusUpdateDateTime,omitzero"`
	Proxy                     string         `json:"proxy,omitzero"`
	IbgeTownCode              string         `json:"ibgeTownCode,omitzero"`
	Status                    string         `json:"status,omitzero"`
	RejectionReason           *reason        `json:"rejectionReason,omitzero"`
	LocalInstrument           string         `json:"localInstrument"`
	CnpjInitiator             string         `json:"cnpjInitiator"`
	Payment                   amountView     `json:"payment"`
	TransactionIdentification string         `json:"transactionIdentification,omitzero"`
	RemittanceInformation     string         `json:"remittanceInformation,omitzero"`
	CreditorAccount           account        `json:"creditorAccount"`
	DebtorAccount             jsontext.Value `json:"debtorAccount"`
	AuthorisationFlow         string         `json:"authorisationFlow,omitzero"`
}

type amountView struct {
	Amount   string `json:"amount,omitzero"`
	Currency string `json:"currency"`
}

// createdBody is the body of POST /pix/payments's 201, the spec's ResponseCreatePixPayment;
// readBody that of GET /pix/payments/{paymentId}'s 200, ResponsePixPayment.
type (
	createdBody struct {
		Data  []paymentView `json:"data"`
		Links links         `json:"links"`
		Meta  meta          `json:"meta"`
	}
	paymentBody struct {
		Data  paymentView `json:"data"`
		Links links       `json:"links"`
		Meta  meta        `json:"meta"`
	}
)

// observe notes the status update and the motivo of rejection n tells of p.
func (p *payment) observe(n native) {
	switch {
	case n.receipt != nil:
		if t := n.receipt.updated(); !t.IsZero() {
			p.updated = t
		}
		if n.receipt.Motivo != "" {
			p.motivo = n.receipt.Motivo
		}
	case n.problem != nil && n.code() == "payment_rejected" && p.motivo == "":
		p.motivo = n.problem.Detail
	}
}

// view is p as n, the psp.Server's answer about it, shows it. Without a receipt (a replay of a
// rejected payment, or a lookup that finds no payment under its key) p is rejected.
func (p *payment) view(n native) paymentView {
	debtor := p.debtor
	if debtor == nil {
		debtor = jsontext.Value(debtorDefault)
	}
	v := paymentView{PaymentID: p.id, EndToEndID: p.item.endToEndID, ConsentID: p.item.consentID,
		CreationDateTime: stamp(p.created), StatusUpdateDateTime: stamp(p.updated), Proxy: p.item.proxy,
		IbgeTownCode: p.item.townCode, Status: paymentRejected, LocalInstrument: p.item.localInstrument,
		CnpjInitiator: p.item.cnpjInitiator, Payment: amountView{p.item.amount, p.item.currency},
		TransactionIdentification: p.item.transactionID, RemittanceInformation: p.item.remittance,
		CreditorAccount: p.item.creditorAccount, DebtorAccount: debtor, AuthorisationFlow: p.item.authorisationFlow}
	if r := n.receipt; r != nil {
		v.Status, v.Payment.Amount, v.Proxy = paymentStatuses[deref(r.Status)], deref(r.Valor), deref(r.Chave)
		if t := r.updated(); t.IsZero() {
			v.StatusUpdateDateTime = ""
		} else {
			v.StatusUpdateDateTime = stamp(t)
		}
	}
	if v.Status == paymentRejected {
		v.RejectionReason = &reason{rejectedByPSP, cmp.Or(p.motivo, "the PSP rejected the payment and no longer says why")}
	}
	return v
}

// reply is the answer about p that n, the psp.Server's answer, makes: to POST /pix/payments
// when created is true, a 201, else to GET /pix/payments/{paymentId}, a 200. The status of a
// 2xx the double did not ask for, as a commit_status fault makes, is kept.
func (p *payment) reply(n native, created bool) reply {
	v := p.view(n)
	status, expected := http.StatusOK, []int{http.StatusOK, http.StatusAccepted, http.StatusNotFound}
	if created {
		status, expected = http.StatusCreated, []int{http.StatusCreated, http.StatusAccepted, http.StatusUnprocessableEntity}
	}
	if !slices.Contains(expected, n.Status) {
		status = n.Status
	}
	return reply{status: status, view: &v, created: created}
}

// deref is *s, or "" if s is nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
