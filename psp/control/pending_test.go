package control_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-json-experiment/json"
	"golang.org/x/net/html"

	"pixretry/internal/openapitest"
	"pixretry/psp"
	"pixretry/psp/control"
)

// mustPendingBank is mustBank with a Server of DefaultConfig changed by edit, closed when the
// test ends. Make it inside the bubble that uses it: its pending payments end on its timer.
func mustPendingBank(tb testing.TB, edit func(*psp.Config)) bank {
	tb.Helper()
	cfg := psp.DefaultConfig()
	edit(&cfg)
	s, err := psp.NewServer(cfg)
	if err != nil {
		tb.Fatalf("NewServer() error = %v", err)
	}
	tb.Cleanup(s.Close)
	h, err := control.NewHandler(s, control.Options{})
	if err != nil {
		tb.Fatalf("NewHandler() error = %v", err)
	}
	return bank{s, openapitest.Handler(tb, h, s)}
}

// paymentStatus is what a JSON answer about a payment says of it.
type paymentStatus struct {
	Status string `json:"status"`
	Motivo string `json:"motivo"`
}

// wantPaymentStatus checks that a is an application/json answer of status, replayed or not,
// whose body says the payment status paymentStatus, and returns its motivo.
func wantPaymentStatus(tb testing.TB, a answer, status int, replayed bool, want string) string {
	tb.Helper()
	var got paymentStatus
	if err := json.Unmarshal([]byte(a.body), &got); err != nil ||
		a.status != status || got.Status != want || (a.header.Get("Idempotent-Replayed") == "true") != replayed {
		tb.Fatalf("answer = %d %v %s, want %d, replayed %v, status %s", a.status, a.header, a.body, status, replayed, want)
	}
	return got.Motivo
}

// TestPendingAnswersMatchTheDocument walks a payment a pending fault, queued over the control
// API, leaves pending, then one of each end, through openapitest: 202 to the payment, its
// replay and its lookup; then 201 and 200 REALIZADO, or 422 payment_rejected and 200
// NAO_REALIZADO with a motivo.
func TestPendingAnswersMatchTheDocument(t *testing.T) {
	for _, then := range []string{"settled", "rejected"} {
		t.Run(then, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := mustPendingBank(t, func(*psp.Config) {})
				wantNoContent(t, ctl(b, "POST", control.FaultsPath,
					`{"faults":[{"kind":"pending","after_ms":1500,"then":"`+then+`"}]}`))
				wantPaymentStatus(t, pay(b, "k1", validBody), 202, false, "EM_PROCESSAMENTO")
				wantPaymentStatus(t, pay(b, "k1", validBody), 202, true, "EM_PROCESSAMENTO")
				wantPaymentStatus(t, lookUp(b, "k1"), 202, false, "EM_PROCESSAMENTO")
				time.Sleep(1500 * time.Millisecond)
				if then == "settled" {
					wantPaymentStatus(t, pay(b, "k1", validBody), 201, true, "REALIZADO")
					wantPaymentStatus(t, lookUp(b, "k1"), 200, false, "REALIZADO")
					return
				}
				wantProblem(t, pay(b, "k1", validBody), 422, "payment_rejected")
				if got := wantPaymentStatus(t, lookUp(b, "k1"), 200, false, "NAO_REALIZADO"); got == "" {
					t.Errorf("the lookup of a rejected payment has no motivo")
				}
			})
		})
	}
}

// TestRejectedRangeAnswersMatchTheDocument: a valor in Config's rejected range is accepted,
// then rejected at once; a valor outside it settles at once.
func TestRejectedRangeAnswersMatchTheDocument(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustPendingBank(t, func(c *psp.Config) { c.RejectFromCents, c.RejectToCents = 1001, 2000 })
		body := `{"valor":"15.00","chave":"pix@example.com"}`
		wantPaymentStatus(t, pay(b, "k1", body), 202, false, "EM_PROCESSAMENTO")
		wantProblem(t, pay(b, "k1", body), 422, "payment_rejected")
		wantPaymentStatus(t, lookUp(b, "k1"), 200, false, "NAO_REALIZADO")
		wantSettled(t, pay(b, "k2", validBody))
	})
}

// TestStatsCountPendingAndRejected: GET StatsPath, the Client's Stats and the page count the
// payments pending now and those rejected; the journal keeps the 202 and the fault's kind.
func TestStatsCountPendingAndRejected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustPendingBank(t, func(c *psp.Config) { c.CompleteAfter = time.Minute })
		b.Inject(psp.Pending(time.Second, "rejected"))
		pay(b, "rejected", validBody)
		pay(b, "pending", validBody)
		time.Sleep(time.Second)
		wantJSON(t, ctl(b, http.MethodGet, control.StatsPath, ""), `{"requests":2,"shed":0,"settled":0,"dropped":0,`+
			`"keys":2,"in_flight":0,"max_in_flight":1,"lookups":0,"closed_keys":0,"pending":1,"rejected":1}`)
		got, err := controlOf(b).Stats(context.Background())
		if err != nil || got.Pending != 1 || got.Rejected != 1 {
			t.Errorf("Client.Stats() = %+v, %v; want 1 pending and 1 rejected", got, err)
		}
		_, doc := getPage(t, b, "")
		for stat, want := range map[string]string{"pending": "1", "rejected": "1"} {
			cell := find(doc, func(n *html.Node) bool { return attr(n, "data-stat") == stat })
			if len(cell) != 1 || text(cell[0]) != want {
				t.Errorf("the page's %s stat = %d cells, want one that says %s", stat, len(cell), want)
			}
		}
		journal := ctl(b, http.MethodGet, control.RequestsPath+"?status=202", "")
		if !strings.Contains(journal.body, `"fault":"pending","status":202`) || !strings.Contains(journal.body, `"count":2`) {
			t.Errorf("GET %s?status=202 = %s, want both payments, one of them with fault pending", control.RequestsPath,
				journal.body)
		}
	})
}

// TestControlReadsAPendingFaultAsPOSTTakesIt: GET FaultsPath answers a queued pending fault in
// its JSON form.
func TestControlReadsAPendingFaultAsPOSTTakesIt(t *testing.T) {
	b := mustBank(t)
	body := `{"faults":[{"kind":"pending","after_ms":250,"then":"rejected"}]}`
	wantNoContent(t, ctl(b, "POST", control.FaultsPath, body))
	wantJSON(t, ctl(b, http.MethodGet, control.FaultsPath, ""), body)
}
