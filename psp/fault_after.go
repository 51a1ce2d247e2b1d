package psp

import (
	"encoding/json"
	"maps"
	"net/http"
	"strconv"
	"time"
)

// The faults that break the response contract: a gateway or a buggy release between the PSP's
// books and the client. The first two act after processing, so the PSP may hold a settlement
// that the answer hides.
const (
	// FaultCommitStatus processes the request as usual (a payment may settle and is stored),
	// then answers Status instead of the stored answer: a 5xx is a problem+json (code
	// injected_fault), a 2xx other than 201, 204 and 205 keeps the stored answer's body.
	// Retry-After is sent if RetryAfter is set. A later request with the key gets the stored
	// answer. A 4xx is not offered: the contract makes a 4xx a refusal made before the commit,
	// which no client could tell from a lie.
	FaultCommitStatus FaultKind = "commit_status"
	// FaultBadBody processes the request as usual and, if the answer is a 201 (fresh or a
	// replay), breaks its body as Breach says; any other answer is written as it is.
	FaultBadBody FaultKind = "bad_body"
	// FaultRedirect answers Status (300 to 399) with a Location and no body, before any
	// processing. Nothing is stored.
	FaultRedirect FaultKind = "redirect"
)

// Breach is how a FaultBadBody breaks the body of a 201.
type Breach string

// The breaches.
const (
	// BreachNotJSON replaces the body with an HTML page.
	BreachNotJSON Breach = "not_json"
	// BreachShort sends the whole body's Content-Length and half the body; the connection then
	// closes. The client reads an unexpected EOF.
	BreachShort Breach = "short"
	// BreachCut sends half the body chunked, then closes the connection mid-body. The client
	// reads an unexpected EOF.
	BreachCut Breach = "cut"
	// BreachMissing leaves Member out of the body.
	BreachMissing Breach = "missing"
	// BreachAmount puts another amount in valor: one centavo more.
	BreachAmount Breach = "valor"
	// BreachPixKey puts another Pix key in chave.
	BreachPixKey Breach = "chave"
	// BreachEndToEndID cuts the last character off endToEndId, which breaks its format.
	BreachEndToEndID Breach = "end_to_end_id"
)

// breaches are the known Breach values.
var breaches = map[Breach]bool{
	BreachNotJSON: true, BreachShort: true, BreachCut: true, BreachMissing: true,
	BreachAmount: true, BreachPixKey: true, BreachEndToEndID: true,
}

// receiptMembers are the members of a 201's body that the contract requires: the members a
// BreachMissing may leave out.
var receiptMembers = map[string]bool{"endToEndId": true, "valor": true, "chave": true, "status": true, "horario": true}

// CommitStatus processes the request, then answers code: 200 to 299 but 201, 204 and 205, or
// 500 to 599.
func CommitStatus(code int) Fault { return Fault{Kind: FaultCommitStatus, Status: code} }

// CommitStatusRetryAfter is CommitStatus with a Retry-After of after, in whole seconds rounded
// up.
func CommitStatusRetryAfter(code int, after time.Duration) Fault {
	return Fault{Kind: FaultCommitStatus, Status: code, RetryAfter: after}
}

// BadBody processes the request, then breaks the body of a 201 as b says. For BreachMissing
// use BadBodyWithout.
func BadBody(b Breach) Fault { return Fault{Kind: FaultBadBody, Breach: b} }

// BadBodyWithout processes the request, then leaves member (endToEndId, valor, chave, status
// or horario) out of the body of a 201.
func BadBodyWithout(member string) Fault {
	return Fault{Kind: FaultBadBody, Breach: BreachMissing, Member: member}
}

// Redirect answers code (300 to 399) before any processing.
func Redirect(code int) Fault { return Fault{Kind: FaultRedirect, Status: code} }

// statusAllowed reports whether f's kind may answer f.Status; true for kinds without a status.
func (f Fault) statusAllowed() bool {
	s := f.Status
	switch f.Kind {
	case FaultStatus:
		return s >= 400 && s <= 599
	case FaultCommitStatus:
		return s/100 == 5 || s/100 == 2 && s != 201 && s != 204 && s != 205
	case FaultRedirect:
		return s/100 == 3
	}
	return true
}

// breachAllowed reports whether f's Breach and Member are known; true for other kinds.
func (f Fault) breachAllowed() bool {
	return f.Kind != FaultBadBody || breaches[f.Breach] && (f.Breach != BreachMissing || receiptMembers[f.Member])
}

// faultAnswer is the answer of a status or redirect fault, or the answer a commit_status fault
// gives instead of stored, the processed request's answer.
func faultAnswer(f Fault, stored answer) answer {
	if f.Kind == FaultRedirect {
		return answer{status: f.Status, contentType: "text/plain; charset=utf-8", header: http.Header{"Location": {PaymentsPath}}}
	}
	if f.Status/100 == 2 {
		stored.status = f.Status
		return withRetryAfter(stored, f)
	}
	detail := "fault injected: the PSP answers " + strconv.Itoa(f.Status) + " before any processing"
	if f.Kind == FaultCommitStatus {
		detail = "fault injected: the PSP processed the request, then answered " + strconv.Itoa(f.Status)
	}
	return withRetryAfter(problemAnswer(problem{
		Type:   problemTypePrefix + codeInjectedFault,
		Title:  http.StatusText(f.Status),
		Status: f.Status,
		Detail: detail,
		Code:   codeInjectedFault,
	}), f)
}

// withRetryAfter is a with Retry-After, if f has one, added to a copy of its extra fields.
func withRetryAfter(a answer, f Fault) answer {
	if f.RetryAfter <= 0 {
		return a
	}
	h := http.Header{"Retry-After": {strconv.FormatInt(wholeSeconds(f.RetryAfter), 10)}}
	maps.Copy(h, a.header)
	a.header = h
	return a
}

// misdeliver writes a the way a fault that acts after processing distorts it, and reports
// whether f is such a fault (for a bad_body fault, whether a is a 201).
func misdeliver(w http.ResponseWriter, a answer, rawKey string, f Fault) bool {
	if f.Kind == FaultCommitStatus {
		faultAnswer(f, a).write(w, rawKey)
		return true
	}
	if f.Kind != FaultBadBody || a.status != http.StatusCreated {
		return false
	}
	if f.Breach == BreachShort || f.Breach == BreachCut {
		writeTruncated(w, a, rawKey, f.Breach)
		return true
	}
	a.body = brokenReceipt(a.body, f)
	a.write(w, rawKey)
	return true
}

// writeTruncated writes half of a's body: under the whole body's Content-Length (BreachShort,
// and net/http closes the connection after the short body), or chunked, then closing the
// connection (BreachCut).
func writeTruncated(w http.ResponseWriter, a answer, rawKey string, b Breach) {
	length := ""
	if b == BreachShort {
		length = strconv.Itoa(len(a.body))
	}
	a.writeHeader(w, rawKey, length)
	w.Write(a.body[:len(a.body)/2])
	if b == BreachCut {
		http.NewResponseController(w).Flush()
		hangUp(w, false)
	}
}

// brokenReceipt is body, a receipt this package encoded, broken as f says.
func brokenReceipt(body []byte, f Fault) []byte {
	if f.Breach == BreachNotJSON {
		return []byte("<html><body><h1>201 Created</h1></body></html>\n")
	}
	var r receipt
	json.Unmarshal(body, &r) // body is one of this package's receipts
	switch f.Breach {
	case BreachAmount:
		cents, _ := parseAmount(r.Valor)
		r.Valor = FormatAmount(cents + 1)
	case BreachPixKey:
		r.Chave = "0" + r.Chave
	case BreachEndToEndID:
		r.EndToEndID = r.EndToEndID[:len(r.EndToEndID)-1]
	case BreachMissing:
		var members map[string]json.RawMessage
		json.Unmarshal(body, &members)
		delete(members, f.Member)
		return marshal(members)
	}
	return marshal(r)
}
