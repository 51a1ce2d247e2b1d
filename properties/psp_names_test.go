package properties

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"

	"pixretry/psp"
)

// The names of psp the suite uses beyond its Server, Config, Settlement and fault
// constructors: the problem codes of the contract, the fault kinds a scenario reads back, and
// the helpers of the wire format. They live here alone, so that a change to psp's API lands in
// one file.
const (
	codeInsufficientFunds    = psp.CodeInsufficientFunds
	codeIdempotencyKeyReused = psp.CodeIdempotencyKeyReused
	codeIdempotencyKeyInUse  = psp.CodeIdempotencyKeyInUse
	codeInvalidRequest       = psp.CodeInvalidRequest
	codeInjectedFault        = psp.CodeInjectedFault

	paymentsPath = psp.PaymentsPath

	faultStatus       = psp.FaultStatus
	faultSlow         = psp.FaultSlow
	faultLate         = psp.FaultLate
	faultDrop         = psp.FaultDrop
	faultReset        = psp.FaultReset
	faultDown         = psp.FaultDown
	faultDuplicate    = psp.FaultDuplicate
	faultCommitStatus = psp.FaultCommitStatus
	faultBadBody      = psp.FaultBadBody
	faultRedirect     = psp.FaultRedirect
)

// The breaches a bad_body fault can make.
var breaches = []psp.Breach{psp.BreachNotJSON, psp.BreachShort, psp.BreachCut, psp.BreachAmount, psp.BreachPixKey,
	psp.BreachEndToEndID}

// badBodyWithout is a bad_body fault whose 201 lacks member m.
func badBodyWithout(m string) psp.Fault {
	return psp.Fault{Kind: psp.FaultBadBody, Breach: psp.BreachMissing, Member: m}
}

var (
	formatAmount  = psp.FormatAmount // cents as the contract's valor, "150.00"
	parseAmount   = psp.ParseBalance // the contract's valor as cents
	defaultKeyTTL = psp.DefaultConfig().KeyTTL
)

// validPixKey reports whether the PSP takes k as a chave, asked through the contract: a payment
// of 0.01 to k, posted in process to a fresh psp.Server, settles (201) or is refused with 400
// invalid_request whose only violation is chave. Any other answer is a bug of the suite: it
// panics.
func validPixKey(k string) bool {
	srv, err := psp.NewServer(psp.DefaultConfig())
	if err != nil {
		panic(err)
	}
	body, _ := json.Marshal(map[string]string{"valor": "0.01", "chave": k})
	req := httptest.NewRequest(http.MethodPost, paymentsPath, strings.NewReader(string(body)))
	req.Header.Set("Authorization", "Bearer "+psp.DefaultToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", "pix-key-check")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	var problem struct {
		Code       string `json:"code"`
		Violations []struct {
			Field string `json:"campo"`
		} `json:"violacoes"`
	}
	json.Unmarshal(rec.Body.Bytes(), &problem)
	fields := make([]string, len(problem.Violations))
	for i, v := range problem.Violations {
		fields[i] = v.Field
	}
	refused := problem.Code == codeInvalidRequest && slices.Equal(fields, []string{"chave"})
	switch {
	case rec.Code == http.StatusCreated:
		return true
	case rec.Code == http.StatusBadRequest && refused:
		return false
	}
	panic(fmt.Sprintf("payment to chave %q: the PSP answered %d %s", k, rec.Code, rec.Body))
}
