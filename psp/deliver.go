package psp

import (
	"maps"
	"net/http"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// faultAnswer is the answer of a status or redirect fault, or the answer a commit_status fault
// gives instead of stored, the processed request's answer.
func faultAnswer(f Fault, stored answer) answer {
	a := stored
	switch {
	case f.Kind == FaultRedirect:
		return answer{status: f.Status, contentType: "text/plain; charset=utf-8",
			header: http.Header{"Location": {PaymentsPath}}}
	case f.Status/100 == 2:
		a.status = f.Status
	case f.Kind == FaultCommitStatus:
		a = problemAnswer(f.Status, CodeInjectedFault,
			"fault injected: the PSP processed the request, then answered "+strconv.Itoa(f.Status), nil)
	default:
		a = problemAnswer(f.Status, CodeInjectedFault,
			"fault injected: the PSP answers "+strconv.Itoa(f.Status)+" before any processing", nil)
	}
	if f.RetryAfter > 0 {
		h := http.Header{"Retry-After": {strconv.FormatInt(wholeSeconds(f.RetryAfter), 10)}}
		maps.Copy(h, a.header)
		a.header = h
	}
	return a
}

// misdeliver writes a with its body broken as breach says, if a is a 201; else as it is.
func misdeliver(w http.ResponseWriter, a answer, rawKey string, breach Breach, member string) {
	half := a.body[:len(a.body)/2]
	switch {
	case a.status != http.StatusCreated:
		a.write(w, rawKey)
	case breach == BreachShort: // net/http closes the connection after the short body
		a.writeHeader(w, rawKey, strconv.Itoa(len(a.body)))
		w.Write(half)
	case breach == BreachCut:
		a.writeHeader(w, rawKey, "")
		w.Write(half)
		http.NewResponseController(w).Flush()
		hangUp(w, false)
	case breach == BreachNotJSON:
		a.body = []byte("<html><body><h1>201 Created</h1></body></html>\n")
		a.write(w, rawKey)
	default:
		a.body = brokenReceipt(a.body, breach, member)
		a.write(w, rawKey)
	}
}

// brokenReceipt is body, a receipt this package encoded, with a member broken or left out.
func brokenReceipt(body []byte, breach Breach, member string) []byte {
	var r receipt
	json.Unmarshal(body, &r) // body is one of this package's receipts
	switch breach {
	case BreachAmount:
		cents, _ := ParseBalance(r.Valor)
		r.Valor = FormatAmount(cents + 1)
	case BreachPixKey:
		r.Chave = "0" + r.Chave
	case BreachEndToEndID:
		r.EndToEndID = r.EndToEndID[:len(r.EndToEndID)-1]
	case BreachMissing:
		var members map[string]jsontext.Value
		json.Unmarshal(body, &members)
		delete(members, member)
		return marshal(members)
	}
	return marshal(r)
}
