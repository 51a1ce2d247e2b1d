package control_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"

	"pixretry/internal/openapitest"
	"pixretry/psp"
	"pixretry/psp/control"
	"pixretry/psp/webhook"
)

// webhookSecret signs the webhooks of these tests. No answer, page or journal may hold it.
const webhookSecret = "wh-secret-wh-secret-wh-secret-wh"

// mustWebhookBank is a Server whose webhooks go to receiver, in process, behind its control API
// with the Sender as Options.Webhooks, and edits. Run it in a synctest bubble, where the
// deliveries' waits are virtual: t's cleanup closes the Sender.
func mustWebhookBank(t *testing.T, receiver http.Handler, edits ...func(*control.Options)) bank {
	t.Helper()
	sender, err := webhook.New(webhook.Config{URL: "http://receiver.test/pix", Secret: webhook.Secret(webhookSecret),
		Transport: inProcess(receiver)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sender.Close)
	cfg := psp.DefaultConfig()
	cfg.OnEnd = sender.Send
	s, err := psp.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	opts := control.Options{Webhooks: sender}
	for _, edit := range edits {
		edit(&opts)
	}
	h, err := control.NewHandler(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	return bank{s, openapitest.Handler(t, h, s)}
}

// accepting is a receiver that answers every delivery 204, and counts them.
type accepting struct{ got chan string }

func (a accepting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.got <- r.Header.Get(webhook.SignatureHeader)
	w.WriteHeader(http.StatusNoContent)
}

// webhooksOf decodes the answer of GET WebhooksPath.
func webhooksOf(t *testing.T, h http.Handler) (record struct {
	Deliveries []struct {
		ID             string `json:"id"`
		EndToEndID     string `json:"endToEndId"`
		IdempotencyKey string `json:"idempotencyKey"`
		Status         string `json:"status"`
		State          string `json:"state"`
		Attempts       []struct {
			At        string  `json:"at"`
			Status    int     `json:"status"`
			Error     string  `json:"error"`
			ElapsedMS float64 `json:"elapsedMs"`
		} `json:"attempts"`
	} `json:"deliveries"`
	Sent       int64 `json:"sent"`
	Retried    int64 `json:"retried"`
	Duplicated int64 `json:"duplicated"`
	GivenUp    int64 `json:"givenUp"`
	Refused    int64 `json:"refused"`
	Dropped    int64 `json:"dropped"`
}) {
	t.Helper()
	a := ctl(h, "GET", control.WebhooksPath, "")
	if a.status != 200 {
		t.Fatalf("GET %s = %d %s, want 200", control.WebhooksPath, a.status, a.body)
	}
	if err := json.Unmarshal([]byte(a.body), &record, json.RejectUnknownMembers(true)); err != nil {
		t.Fatalf("GET %s: %v in %s", control.WebhooksPath, err, a.body)
	}
	return record
}

// TestControlReadsWebhooks: a payment that settles is delivered, a duplicate fault posted to
// FaultsPath sends the next twice with one id, and GET WebhooksPath lists both copies with their
// tries and counts them.
func TestControlReadsWebhooks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rc := accepting{make(chan string, 10)}
		s := mustWebhookBank(t, rc)
		wantNoContent(t, ctl(s, "POST", control.FaultsPath, `{"faults":[{"kind":"duplicate","target":"webhook"}]}`))
		wantSettled(t, pay(s, "k1", validBody))
		synctest.Wait()
		if len(rc.got) != 2 {
			t.Fatalf("the receiver got %d deliveries, want 2", len(rc.got))
		}
		got := webhooksOf(t, s)
		if len(got.Deliveries) != 2 || got.Deliveries[0].ID != got.Deliveries[1].ID || got.Sent != 2 || got.Duplicated != 1 {
			t.Fatalf("GET %s = %+v, want two copies of one delivery, sent and duplicated", control.WebhooksPath, got)
		}
		d, settled := got.Deliveries[0], s.Settlements()[0]
		if d.EndToEndID != settled.EndToEndID || d.IdempotencyKey != "k1" || d.Status != "REALIZADO" ||
			d.State != "delivered" || len(d.Attempts) != 1 || d.Attempts[0].Status != 204 || d.Attempts[0].Error != "" {
			t.Errorf("delivery %+v, want k1's settlement delivered at its first try", d)
		}
	})
}

// TestControlWebhookFaults: POST FaultsPath queues webhook faults for the Sender, GET FaultsPath
// gives them back after the Server's, and DELETE FaultsPath and ResetPath clear them.
func TestControlWebhookFaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustWebhookBank(t, accepting{make(chan string, 10)})
		body := `{"faults":[{"kind":"delay","duration_ms":1500,"target":"webhook"},{"kind":"drop"},` +
			`{"kind":"fail","times":3,"target":"webhook"},{"kind":"reorder","target":"webhook"},` +
			`{"kind":"duplicate","target":"webhook"}]}`
		wantNoContent(t, ctl(s, "POST", control.FaultsPath, body))
		want := `{"faults":[{"kind":"drop"},{"kind":"delay","duration_ms":1500,"target":"webhook"},` +
			`{"kind":"fail","times":3,"target":"webhook"},{"kind":"reorder","target":"webhook"},` +
			`{"kind":"duplicate","target":"webhook"}]}` + "\n"
		if a := ctl(s, "GET", control.FaultsPath, ""); a.status != 200 || a.body != want {
			t.Errorf("GET %s = %d %s, want 200 %s", control.FaultsPath, a.status, a.body, want)
		}
		for _, clear := range []struct{ method, path string }{{"DELETE", control.FaultsPath}, {"POST", control.ResetPath}} {
			wantNoContent(t, ctl(s, "POST", control.FaultsPath, body))
			wantNoContent(t, ctl(s, clear.method, clear.path, ""))
			if a := ctl(s, "GET", control.FaultsPath, ""); a.body != `{"faults":[]}`+"\n" {
				t.Errorf("after %s %s: GET %s = %s, want no fault", clear.method, clear.path, control.FaultsPath, a.body)
			}
		}
	})
}

// TestControlRefusesBadWebhookFaults: a webhook fault takes exactly its kind's members, and
// needs a Sender; 400 queues none.
func TestControlRefusesBadWebhookFaults(t *testing.T) {
	for _, tc := range []struct{ name, fault, reason string }{
		{"an unknown kind", `{"kind":"drop","target":"webhook"}`,
			`unknown kind "drop" for "target":"webhook": the kinds are delay, duplicate, fail and reorder`},
		{"a missing duration", `{"kind":"delay","target":"webhook"}`,
			`kind "delay" with "target":"webhook" takes "duration_ms" (milliseconds, 0 to 3600000)`},
		{"a duration too long", `{"kind":"delay","duration_ms":3600001,"target":"webhook"}`,
			"duration_ms 3600001 exceeds the maximum 3600000"},
		{"no times", `{"kind":"fail","target":"webhook"}`, `kind "fail" with "target":"webhook" takes "times" (1 to 100)`},
		{"zero times", `{"kind":"fail","times":0,"target":"webhook"}`,
			`kind "fail" with "target":"webhook" takes "times" (1 to 100)`},
		{"too many times", `{"kind":"fail","times":101,"target":"webhook"}`,
			`kind "fail" with "target":"webhook" takes "times" (1 to 100)`},
		{"a member of another kind", `{"kind":"duplicate","duration_ms":5,"target":"webhook"}`,
			`kind "duplicate" with "target":"webhook" takes no parameters`},
		{"a member of reorder", `{"kind":"reorder","times":1,"target":"webhook"}`,
			`kind "reorder" with "target":"webhook" takes no parameters`},
		{"an unknown member", `{"kind":"reorder","after_ms":5,"target":"webhook"}`,
			`unknown member "after_ms": kind "reorder" with "target":"webhook" takes no parameters`},
		{"an unknown member of an unknown kind", `{"kind":"bogus","after_ms":5,"target":"webhook"}`,
			`unknown member "after_ms": the members of a fault with "target":"webhook" are kind, duration_ms (delay) ` +
				`and times (fail)`},
		{"a fractional times", `{"kind":"fail","times":1.5,"target":"webhook"}`, `member "times" is 1.5, want a whole number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := mustWebhookBank(t, accepting{make(chan string, 1)})
				p := wantProblem(t, ctl(s, "POST", control.FaultsPath, `{"faults":[{"kind":"drop"},`+tc.fault+`]}`), 400,
					"invalid_request")
				wantViolations(t, p.Violations, []psp.Violation{{Field: "faults[1]", Reason: "psp: invalid fault: " + tc.reason}})
				if a := ctl(s, "GET", control.FaultsPath, ""); a.body != `{"faults":[]}`+"\n" {
					t.Errorf("GET %s = %s, want none queued", control.FaultsPath, a.body)
				}
			})
		})
	}
	t.Run("no Sender", func(t *testing.T) {
		s := mustBank(t)
		p := wantProblem(t, ctl(s, "POST", control.FaultsPath, `{"faults":[{"kind":"reorder","target":"webhook"}]}`), 400,
			"invalid_request")
		wantViolations(t, p.Violations, []psp.Violation{{Field: "faults", Reason: `1 with "target":"webhook", but no ` +
			"webhooks are sent: command psp sends them with -webhook URL -webhook-secret-file FILE"}})
	})
}

// TestControlWebhookFaultsShareTheQueueBound: the faults queued for the webhooks count against
// MaxQueuedFaults with the Server's, and so does each fault of a body, whatever its queue.
func TestControlWebhookFaultsShareTheQueueBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustWebhookBank(t, accepting{make(chan string, 1)})
		wantNoContent(t, ctl(s, "POST", control.FaultsPath,
			`{"faults":[{"kind":"reorder","target":"webhook"},{"kind":"duplicate","target":"webhook"}]}`))
		s.Inject(drops(control.MaxQueuedFaults - 3)...)
		body := `{"faults":[{"kind":"drop"},{"kind":"reorder","target":"webhook"}]}`
		p := wantProblem(t, ctl(s, "POST", control.FaultsPath, body), 400, "invalid_request")
		wantViolations(t, p.Violations, []psp.Violation{{Field: "faults",
			Reason: fmt.Sprintf("%d queued, room for 1 more, 2 given", control.MaxQueuedFaults-1)}})
	})
}

// TestControlWebhooksShowHowLongATryTook: an attempt's elapsedMs is its time in milliseconds.
func TestControlWebhooksShowHowLongATryTook(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			time.Sleep(1500 * time.Millisecond)
			w.WriteHeader(http.StatusNoContent)
		})
		s := mustWebhookBank(t, slow)
		wantSettled(t, pay(s, "k1", validBody))
		time.Sleep(2 * time.Second)
		got := webhooksOf(t, s)
		if len(got.Deliveries) != 1 || len(got.Deliveries[0].Attempts) != 1 || got.Deliveries[0].Attempts[0].ElapsedMS != 1500 {
			t.Errorf("GET %s = %+v, want one delivery tried once for 1500 ms", control.WebhooksPath, got)
		}
	})
}

// TestControlWebhooksNeedASender: without Options.Webhooks, GET WebhooksPath answers 404.
func TestControlWebhooksNeedASender(t *testing.T) {
	p := wantProblem(t, ctl(mustBank(t), "GET", control.WebhooksPath, ""), 404, "not_found")
	if !strings.Contains(p.Detail, "-webhook URL") {
		t.Errorf("detail %q, want it to say how to send webhooks", p.Detail)
	}
}

// TestControlWebhooksAreGuarded: GET WebhooksPath passes the checks of every control request.
func TestControlWebhooksAreGuarded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := mustWebhookBank(t, accepting{make(chan string, 1)}, withControlToken)
		r := controlRequest("GET", control.WebhooksPath, "")
		r.Host = "psp.test"
		wantProblem(t, serve(s, r), 401, "unauthorized")
		r.Header.Set("Authorization", "Bearer ctl")
		r.Host = "evil.example"
		wantProblem(t, serve(s, r), 403, control.CodeHostNotAllowed)
		r.Host = "psp.test"
		if a := serve(s, r); a.status != 200 {
			t.Errorf("GET %s with the token = %d %s, want 200", control.WebhooksPath, a.status, a.body)
		}
		a := ctl(s, "PATCH", control.WebhooksPath, "")
		if a.status != 405 || a.header.Get("Allow") != "GET" {
			t.Errorf("PATCH %s = %d, Allow %q; want 405, GET", control.WebhooksPath, a.status, a.header.Get("Allow"))
		}
	})
}

// TestControlNeverShowsTheWebhookSecret: after deliveries of each end, no answer of the control
// API, the page included, nor the journal, holds the secret.
func TestControlNeverShowsTheWebhookSecret(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rc := accepting{make(chan string, 10)}
		s := mustWebhookBank(t, rc)
		wantNoContent(t, ctl(s, "POST", control.FaultsPath, `{"faults":[{"kind":"fail","times":1,"target":"webhook"}]}`))
		wantSettled(t, pay(s, "k1", validBody))
		synctest.Wait()
		for _, path := range []string{control.WebhooksPath, control.PagePath, control.RequestsPath, control.FaultsPath,
			control.StatsPath, control.OpenAPIPath} {
			if a := ctl(s, "GET", path, ""); a.status != 200 || strings.Contains(a.body, webhookSecret) {
				t.Errorf("GET %s = %d, holds the secret: %t", path, a.status, strings.Contains(a.body, webhookSecret))
			}
		}
	})
}

// TestDecodeAllFaults: DecodeAllFaults puts each fault in its queue; DecodeFaults refuses a
// webhook fault, naming where it starts.
func TestDecodeAllFaults(t *testing.T) {
	data := []byte(`{"faults":[{"kind":"drop"},` + "\n" + `  {"kind":"fail","times":2,"target":"webhook"},` +
		`{"kind":"fail","times":100,"target":"webhook"}]}`)
	got, err := control.DecodeAllFaults(data)
	want := control.Faults{Server: []psp.Fault{psp.Drop()}, Webhooks: []webhook.Fault{webhook.Fail(2), webhook.Fail(100)}}
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Errorf("DecodeAllFaults() error = %v, mismatch (-want +got):\n%s", err, diff)
	}
	_, err = control.DecodeFaults(data)
	bad, ok := errors.AsType[*control.FaultsError](err)
	if !ok || bad.Line != 2 || bad.Column != 3 || bad.Field != "faults[1]" || !errors.Is(err, psp.ErrInvalidFault) {
		t.Errorf("DecodeFaults() error = %v, want a *FaultsError at 2:3 for faults[1]", err)
	}
	wantWhy := `control: line 2, column 3: faults[1]: psp: invalid fault: "target":"webhook": this reader queues ` +
		"payment and lookup faults only"
	if err == nil || err.Error() != wantWhy {
		t.Errorf("DecodeFaults() error = %v, want %s", err, wantWhy)
	}
	got, err = control.DecodeAllFaults([]byte(`{"faults":[{"kind":"drop"},{"kind":"fail","times":101,"target":"webhook"}]}`))
	bad, ok = errors.AsType[*control.FaultsError](err)
	if !ok || bad.Line != 1 || bad.Column != 28 || bad.Field != "faults[1]" || got.Server != nil || got.Webhooks != nil {
		t.Errorf("DecodeAllFaults(times 101) = %+v, %v; want no faults and a *FaultsError at 1:28 for faults[1]", got, err)
	}
}
