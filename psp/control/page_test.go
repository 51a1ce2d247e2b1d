package control_test

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"

	"pixretry/psp"
	"pixretry/psp/control"
)

// hostile is text a client chose that would run a script if the page did not escape it.
// Without spaces or a leading quote, it is also a valid Idempotency-Key.
const hostile = `k"><script>alert(1)</script><b>x</b>'&`

// getPage sends GET PagePath with authorization, if any, and parses the page.
func getPage(tb testing.TB, h http.Handler, authorization string) (answer, *html.Node) {
	tb.Helper()
	r := httptest.NewRequest(http.MethodGet, control.PagePath, nil)
	if authorization != "" {
		r.Header.Set("Authorization", authorization)
	}
	w := &plainWriter{header: http.Header{}}
	h.ServeHTTP(w, r)
	a := answer{w.status, w.header, w.body.String()}
	if a.status != http.StatusOK || a.header.Get("Content-Type") != "text/html; charset=utf-8" {
		tb.Fatalf("GET %s = %d %s %s, want 200 text/html; charset=utf-8", control.PagePath, a.status, a.header.Get("Content-Type"), a.body)
	}
	doc, err := html.Parse(strings.NewReader(a.body))
	if err != nil {
		tb.Fatalf("parsing the page: %v", err)
	}
	return a, doc
}

// plainWriter is an http.ResponseWriter that, unlike httptest.ResponseRecorder and net/http,
// does not sniff a missing Content-Type: the page must declare its own.
type plainWriter struct {
	header http.Header
	status int
	body   strings.Builder
}

func (w *plainWriter) Header() http.Header { return w.header }

func (w *plainWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status, w.header = status, w.header.Clone() // later changes are not sent
	}
}

func (w *plainWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}

// find returns the elements under n that match, in document order.
func find(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var found []*html.Node
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && match(d) {
			found = append(found, d)
		}
	}
	return found
}

func attr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

func tag(name string) func(*html.Node) bool { return func(n *html.Node) bool { return n.Data == name } }

// byID returns the element of id under n, or fails tb.
func byID(tb testing.TB, n *html.Node, id string) *html.Node {
	tb.Helper()
	found := find(n, func(n *html.Node) bool { return attr(n, "id") == id })
	if len(found) != 1 {
		tb.Fatalf("the page has %d elements #%s, want 1", len(found), id)
	}
	return found[0]
}

// text is the text under n.
func text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return b.String()
}

// rows are the texts of the cells of each row of table but its header, with the row's
// data-key and data-status first.
func rows(table *html.Node) [][]string {
	var got [][]string
	for _, tr := range find(table, tag("tr"))[1:] {
		row := []string{attr(tr, "data-key"), attr(tr, "data-status")}
		for _, td := range find(tr, tag("td")) {
			row = append(row, text(td))
		}
		got = append(got, row)
	}
	return got
}

// mustWatched is a Server behind its control API holding what the page shows: one settlement
// under a hostile key, a refused payment with a hostile payload, a lookup, and a fault for
// payments and one for lookups.
func mustWatched(tb testing.TB, edits ...func(*control.Options)) bank {
	tb.Helper()
	s := mustBank(tb, edits...)
	wantSettled(tb, pay(s, hostile, `{"valor":"150.00","chave":"pix@example.com","infoPagador":"`+
		strings.ReplaceAll(hostile, `"`, `\"`)+`"}`))
	pay(s, "k2", `{"valor":"1.00","chave":"`+strings.ReplaceAll(hostile, `"`, `\"`)+`"}`)
	lookUp(s, "k3")
	s.Inject(psp.Late(1500*time.Millisecond).ForLookup(), psp.Status(503))
	return s
}

func TestPageShowsTheServer(t *testing.T) {
	s := mustWatched(t)
	st := s.Settlements()[0]
	a, doc := getPage(t, s, "")

	if got, want := text(byID(t, doc, "balance")), "850.00"; got != want {
		t.Errorf("#balance = %q, want %q", got, want)
	}
	stats := map[string]string{}
	for _, td := range find(byID(t, doc, "stats"), func(n *html.Node) bool { return attr(n, "data-stat") != "" }) {
		stats[attr(td, "data-stat")] = text(td)
	}
	wantStats := map[string]string{"requests": "2", "lookups": "1", "shed": "0", "settled": "1", "dropped": "0",
		"keys": "1", "closed_keys": "1", "in_flight": "0", "max_in_flight": "1", "pending": "0", "rejected": "0"}
	if diff := cmp.Diff(wantStats, stats); diff != "" {
		t.Errorf("#stats mismatch (-want +got):\n%s", diff)
	}

	faults := byID(t, doc, "faults")
	var gotFaults []string
	for _, li := range find(faults, tag("li")) {
		gotFaults = append(gotFaults, text(li))
	}
	wantFaults := []string{`{"kind":"status","status":503}`, `{"kind":"late","delay_ms":1500,"target":"lookup"}`}
	if diff := cmp.Diff(wantFaults, gotFaults); diff != "" || attr(faults, "data-count") != "2" {
		t.Errorf("#faults of data-count %s mismatch (-want +got):\n%s", attr(faults, "data-count"), diff)
	}

	wantSettlements := [][]string{{hostile, "", st.SettledAt.Format(time.RFC3339), st.EndToEndID, hostile, "150.00",
		"pix@example.com", hostile}}
	if diff := cmp.Diff(wantSettlements, rows(byID(t, doc, "settlements"))); diff != "" {
		t.Errorf("#settlements mismatch (-want +got):\n%s", diff)
	}

	requests, _ := s.Requests(psp.RequestFilter{})
	var wantJournal [][]string
	for i, status := range []string{"404", "400", "201"} { // newest first
		rq := requests[2-i]
		wantJournal = append(wantJournal, []string{rq.Key, status, fmt.Sprint(rq.Seq),
			rq.Arrived.UTC().Format("15:04:05.000"), rq.Method + " " + rq.Path, rq.Key, fmt.Sprint(rq.Token), "",
			status, fmt.Sprintf("%.1f", float64(rq.Elapsed)/float64(time.Millisecond)), string(rq.Payload)})
	}
	wantJournal[0][10] = `""`                                                                 // the lookup's empty body
	wantJournal[1][10] = `{"valor":"1.00","chave":"k\"><script>alert(1)</script><b>x</b>'&"}` // as GET RequestsPath writes it
	if diff := cmp.Diff(wantJournal, rows(byID(t, doc, "journal"))); diff != "" {
		t.Errorf("#journal mismatch (-want +got):\n%s", diff)
	}

	if b := find(doc, tag("b")); len(b) != 0 || strings.Contains(a.body, "<script>alert") {
		t.Errorf("the hostile text made elements of the page:\n%s", a.body)
	}
	wantOwnScriptOnly(t, a, doc)
}

// wantOwnScriptOnly checks the page's headers, and that its policy lets its one script and one
// style run and nothing else.
func wantOwnScriptOnly(tb testing.TB, a answer, doc *html.Node) {
	tb.Helper()
	scripts, styles := find(doc, tag("script")), find(doc, tag("style"))
	if len(scripts) != 1 || len(styles) != 1 {
		tb.Fatalf("the page has %d scripts and %d styles, want 1 and 1", len(scripts), len(styles))
	}
	hash := func(n *html.Node) string {
		sum := sha256.Sum256([]byte(text(n)))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	want := http.Header{
		"Content-Type": {"text/html; charset=utf-8"},
		"Content-Security-Policy": {"default-src 'none'; script-src " + hash(scripts[0]) + "; style-src " + hash(styles[0]) +
			"; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
		"Cache-Control":          {"no-store"},
		"X-Content-Type-Options": {"nosniff"},
	}
	if diff := cmp.Diff(want, a.header); diff != "" {
		tb.Errorf("the page's header mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(text(scripts[0]), "fetch(") || !strings.Contains(text(styles[0]), "table") {
		tb.Errorf("the script or the style is not the page's own: %q, %q", text(scripts[0]), text(styles[0]))
	}
}

func TestPageWithATokenShowsNothingWithoutIt(t *testing.T) {
	s := mustWatched(t, func(o *control.Options) { o.Token = "ctl-secret" })
	a, doc := getPage(t, s, "")
	main := byID(t, doc, "data")
	if len(find(main, tag("table"))) != 0 || strings.Contains(a.body, "150.00") || strings.Contains(a.body, "alert") ||
		len(find(main, func(n *html.Node) bool { return attr(n, "id") == "locked" })) != 1 {
		t.Errorf("the page without the token shows the Server:\n%s", a.body)
	}
	if got := attr(find(doc, tag("body"))[0], "data-token"); got != "required" {
		t.Errorf("the page's data-token = %q, want required: its script must ask for the token", got)
	}
	wantOwnScriptOnly(t, a, doc)

	for _, authorization := range []string{"Bearer ctl-wrong", "Basic ctl-secret", "Bearer " + token} {
		r := controlRequest(http.MethodGet, control.PagePath, "")
		r.Header.Set("Authorization", authorization)
		wantProblem(t, serve(s, r), http.StatusUnauthorized, "unauthorized")
	}

	_, doc = getPage(t, s, "Bearer ctl-secret")
	if got, want := text(byID(t, doc, "balance")), "850.00"; got != want {
		t.Errorf("#balance with the token = %q, want %q", got, want)
	}
	if got := attr(find(doc, tag("body"))[0], "data-token"); got != "required" {
		t.Errorf("the page's data-token with the token = %q, want required", got)
	}
}

func TestPageWithoutATokenSaysSo(t *testing.T) {
	_, doc := getPage(t, mustWatched(t), "")
	if got := attr(find(doc, tag("body"))[0], "data-token"); got != "none" {
		t.Errorf("the page's data-token = %q, want none", got)
	}
	body := find(doc, tag("body"))[0]
	if got, want := [2]string{attr(body, "data-page"), attr(body, "data-faults")}, [2]string{control.PagePath, control.FaultsPath}; got != want {
		t.Errorf("the page's data-page and data-faults = %q, want %q", got, want)
	}
}

func TestPageTakesGETOnly(t *testing.T) {
	s := mustWatched(t)
	for _, method := range []string{http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		r := controlRequest(method, control.PagePath, `{"faults":[{"kind":"drop"}]}`)
		a := serve(s, r)
		wantProblem(t, a, http.StatusMethodNotAllowed, "method_not_allowed")
		if got := a.header.Get("Allow"); got != "GET" {
			t.Errorf("%s %s: Allow = %q, want GET", method, control.PagePath, got)
		}
	}
	if got := len(s.Faults()); got != 2 {
		t.Errorf("%d faults queued after the refused requests, want the 2 queued before", got)
	}
}

func TestPageShowsInvalidUTF8AsReplacement(t *testing.T) {
	s := mustBank(t)
	r := httptest.NewRequest(http.MethodGet, "/x", nil)
	r.RequestURI = "/x?\xff" + strings.Repeat("a", 200)
	r.Header.Set(psp.IdempotencyKeyHeader, "k\xff")
	serve(s, r)
	_, doc := getPage(t, s, "")
	want := [][]string{{"k\uFFFD", "404", "1", "GET /x?\uFFFD" + strings.Repeat("a", 116) + "…", "k\uFFFD", `""`}}
	var got [][]string
	for _, row := range rows(byID(t, doc, "journal")) {
		got = append(got, []string{row[0], row[1], row[2], row[4], row[5], row[10]})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("#journal mismatch (-want +got):\n%s", diff)
	}
}

// TestPageIsBounded fills the ledger, the journal and the fault queue with the longest texts
// whose every character the page escapes to 5 bytes (&#39;): the page shows the latest 50
// settlements and requests, the first 50 faults, and each text cut to 120 characters.
func TestPageIsBounded(t *testing.T) {
	s := mustBank(t)
	quotes := strings.Repeat("'", 3000)
	for i := range 300 {
		key := fmt.Sprintf("%03d%s", i, quotes)[:255]
		wantSettled(t, pay(s, key, `{"valor":"1.00","chave":"pix@example.com","infoPagador":"`+quotes[:140]+`"}`))
		r := paymentRequest(key, quotes) // not JSON: a 400, its payload kept
		r.RequestURI = psp.PaymentsPath + "?" + quotes
		serve(s, r)
	}
	missing := psp.BadBody("missing")
	missing.Member = "endToEndId"
	s.Inject(slices.Repeat([]psp.Fault{missing.ForLookup()}, control.MaxQueuedFaults)...)
	if requests, dropped := s.Requests(psp.RequestFilter{}); len(requests) < 50 || dropped == 0 {
		t.Fatalf("the journal holds %d requests, %d dropped; want it full", len(requests), dropped)
	}

	a, doc := getPage(t, s, "")
	if got, max := len(a.body), 300_000; got > max { // the bound docs/psp.md gives
		t.Errorf("the page takes %d bytes, want at most %d", got, max)
	}
	settlements, journal := rows(byID(t, doc, "settlements")), rows(byID(t, doc, "journal"))
	if got := [3]int{len(settlements), len(journal), len(find(byID(t, doc, "faults"), tag("li")))}; got != [3]int{50, 50, 50} {
		t.Errorf("the page shows %d settlements, %d requests and %d faults, want 50 of each", got[0], got[1], got[2])
	}
	if got, want := settlements[0][0][:3], "299"; got != want {
		t.Errorf("the first settlement shown is %s, want the latest, %s", got, want)
	}
	if got, want := settlements[49][0][:3], "250"; got != want {
		t.Errorf("the last settlement shown is %s, want %s", got, want)
	}
	for _, text := range []string{settlements[0][0], settlements[0][7], journal[0][0], strings.TrimPrefix(journal[0][4], "POST "), journal[0][10]} {
		if n := utf8.RuneCountInString(text); n != 121 || !strings.HasSuffix(text, "…") {
			t.Errorf("a long text is shown as %q, %d characters; want 120 and an ellipsis", text, n)
		}
	}
}
