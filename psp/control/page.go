package control

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"

	"pixretry/psp"
)

// PagePath is the page that watches the Server: its stats and balance, its fault queue, its
// latest settlements and the latest requests of its journal, refreshed every second, with a
// form that queues faults. The control API's checks hold for it, but one: with Options.Token,
// a GET without Authorization gets the page without data, which asks for the token and sends
// it with every request it makes.
const PagePath = "/_psp/"

// The most of each list the page shows, whatever the Server holds, and the most characters of
// any text a client chose (a key, a path, a payload), so that the page stays small.
const (
	pageSettlements = 50
	pageRequests    = 50
	pageFaults      = 50
	pageTextMax     = 120
)

var (
	//go:embed page.html
	pageFiles embed.FS
	//go:embed page.js
	pageScript string
	//go:embed page.css
	pageStyle string

	pageTemplate = template.Must(template.ParseFS(pageFiles, "page.html"))
	// pagePolicy lets the page run its own script and style and nothing else: no other script,
	// no frame around it, no form posted by the browser. Its script may fetch from the PSP.
	pagePolicy = fmt.Sprintf("default-src 'none'; script-src '%s'; style-src '%s'; connect-src 'self'; "+
		"base-uri 'none'; form-action 'none'; frame-ancestors 'none'", sha256Source(pageScript), sha256Source(pageStyle))
)

// sha256Source is the Content-Security-Policy source that allows an inline text.
func sha256Source(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// page is what page.html shows.
type page struct {
	TokenRequired        bool
	PagePath, FaultsPath string
	Script               template.JS
	Style                template.CSS
	Data                 *pageData // nil for a shell request: nothing of the Server
}

// pageData is the Server as the page shows it. Lists are newest first, but the faults, which
// are in the order requests will consume them.
type pageData struct {
	Stats          psp.Stats
	Balance        string
	Faults         []string // the JSON form of each of the first queued faults
	FaultCount     int      // all the faults queued
	Settlements    []pageSettlement
	Requests       []pageRequest
	JournalCount   int
	JournalDropped int64
}

type pageSettlement struct {
	EndToEndID, Key, Valor, Chave, InfoPagador, Horario string
}

type pageRequest struct {
	Seq                        uint64
	Arrived, Method, Path, Key string
	Token                      int
	Fault                      string
	Status                     int
	InFlight, Replayed         bool
	Elapsed, Payload           string
}

// shell reports whether r asks for the page without the token that Options.Token requires: it
// then gets the page without data, not 401, so that a browser can load it and ask for the token.
func (h *handler) shell(r *http.Request) bool {
	return h.opts.Token != "" && r.URL.Path == PagePath && r.Header.Get("Authorization") == ""
}

// getPage writes the page: with the Server's data, or without for a shell request.
func (h *handler) getPage(w http.ResponseWriter, r *http.Request) {
	p := page{TokenRequired: h.opts.Token != "", PagePath: PagePath, FaultsPath: FaultsPath,
		Script: template.JS(pageScript), Style: template.CSS(pageStyle)}
	if !h.shell(r) {
		p.Data = h.pageData()
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", pagePolicy)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	pageTemplate.Execute(w, p) // it fails only on a failed write: the client has gone
}

// pageData reads the Server for the page, at most the page's counts of each list.
func (h *handler) pageData() *pageData {
	stats := h.srv.Stats()
	faults := h.srv.Faults()
	requests, dropped := h.srv.Requests(psp.RequestFilter{})
	d := &pageData{Stats: stats, Balance: psp.FormatAmount(stats.BalanceCents), FaultCount: len(faults),
		JournalCount: len(requests), JournalDropped: dropped}
	for _, f := range faults[:min(len(faults), pageFaults)] {
		text, _ := json.Marshal(wire(f)) // a queued fault is valid
		d.Faults = append(d.Faults, string(text))
	}
	for _, st := range slices.Backward(h.srv.LatestSettlements(pageSettlements)) {
		d.Settlements = append(d.Settlements, pageSettlement{st.EndToEndID, cut(st.IdempotencyKey),
			psp.FormatAmount(st.AmountCents), cut(st.PixKey), cut(st.Description), st.SettledAt.Format(time.RFC3339)})
	}
	for _, rq := range slices.Backward(requests[max(0, len(requests)-pageRequests):]) {
		d.Requests = append(d.Requests, pageRequest{Seq: rq.Seq, Arrived: rq.Arrived.UTC().Format("15:04:05.000"),
			Method: cut(rq.Method), Path: cut(rq.Path), Key: cut(rq.Key), Token: rq.Token, Fault: rq.Fault,
			Status: rq.Status, InFlight: rq.InFlight, Replayed: rq.Replayed,
			Elapsed: fmt.Sprintf("%.1f", float64(rq.Elapsed)/float64(time.Millisecond)),
			Payload: cut(string(payloadJSON(rq.Payload)))})
	}
	return d
}

// cut is s with invalid UTF-8 replaced, cut to pageTextMax characters and an ellipsis.
func cut(s string) string {
	n := 0
	for i := range s {
		if n == pageTextMax {
			return strings.ToValidUTF8(s[:i], "\uFFFD") + "…"
		}
		n++
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
