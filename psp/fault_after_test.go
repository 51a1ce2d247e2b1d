package psp_test

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"pixretry/psp"
)

func TestFaultAfterJSON(t *testing.T) {
	tests := []struct {
		fault psp.Fault
		json  string
	}{
		{psp.CommitStatus(502), `{"kind":"commit_status","status":502}`},
		{psp.CommitStatus(500), `{"kind":"commit_status","status":500}`},
		{psp.CommitStatus(599), `{"kind":"commit_status","status":599}`},
		{psp.CommitStatus(200), `{"kind":"commit_status","status":200}`},
		{psp.CommitStatus(202), `{"kind":"commit_status","status":202}`},
		{psp.CommitStatus(299), `{"kind":"commit_status","status":299}`},
		{psp.CommitStatusRetryAfter(504, 2*time.Second), `{"kind":"commit_status","status":504,"retry_after_s":2}`},
		{psp.BadBody(psp.BreachNotJSON), `{"kind":"bad_body","breach":"not_json"}`},
		{psp.BadBody(psp.BreachShort), `{"kind":"bad_body","breach":"short"}`},
		{psp.BadBody(psp.BreachCut), `{"kind":"bad_body","breach":"cut"}`},
		{psp.BadBody(psp.BreachAmount), `{"kind":"bad_body","breach":"valor"}`},
		{psp.BadBody(psp.BreachPixKey), `{"kind":"bad_body","breach":"chave"}`},
		{psp.BadBody(psp.BreachEndToEndID), `{"kind":"bad_body","breach":"end_to_end_id"}`},
		{psp.BadBodyWithout("horario"), `{"kind":"bad_body","breach":"missing","member":"horario"}`},
		{psp.BadBodyWithout("endToEndId"), `{"kind":"bad_body","breach":"missing","member":"endToEndId"}`},
		{psp.Redirect(307), `{"kind":"redirect","status":307}`},
		{psp.Redirect(300), `{"kind":"redirect","status":300}`},
		{psp.Redirect(399), `{"kind":"redirect","status":399}`},
	}
	for _, tt := range tests {
		t.Run(tt.json, func(t *testing.T) {
			got, err := json.Marshal(tt.fault)
			if err != nil || string(got) != tt.json {
				t.Errorf("json.Marshal(%+v) = %s, %v; want %s", tt.fault, got, err, tt.json)
			}
			var back psp.Fault
			if err := json.Unmarshal([]byte(tt.json), &back); err != nil || back != tt.fault {
				t.Errorf("json.Unmarshal(%s) = %+v, %v; want %+v", tt.json, back, err, tt.fault)
			}
		})
	}
}

func TestFaultAfterConstructors(t *testing.T) {
	got := []psp.Fault{
		psp.CommitStatus(503), psp.CommitStatusRetryAfter(504, time.Second), psp.BadBody(psp.BreachAmount),
		psp.BadBodyWithout("valor"), psp.Redirect(302),
	}
	want := []psp.Fault{
		{Kind: psp.FaultCommitStatus, Status: 503},
		{Kind: psp.FaultCommitStatus, Status: 504, RetryAfter: time.Second},
		{Kind: psp.FaultBadBody, Breach: psp.BreachAmount},
		{Kind: psp.FaultBadBody, Breach: psp.BreachMissing, Member: "valor"},
		{Kind: psp.FaultRedirect, Status: 302},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("constructors mismatch (-want +got):\n%s", diff)
	}
}

func TestInvalidFaultsAfter(t *testing.T) {
	for name, f := range map[string]psp.Fault{
		"commit_status 199":              psp.CommitStatus(199),
		"commit_status 201":              psp.CommitStatus(201),
		"commit_status 204":              psp.CommitStatus(204),
		"commit_status 205":              psp.CommitStatus(205),
		"commit_status 300":              psp.CommitStatus(300),
		"commit_status 422":              psp.CommitStatus(422),
		"commit_status 499":              psp.CommitStatus(499),
		"commit_status 600":              psp.CommitStatus(600),
		"commit_status with a duration":  {Kind: psp.FaultCommitStatus, Status: 503, Duration: time.Second},
		"redirect 299":                   psp.Redirect(299),
		"redirect 400":                   psp.Redirect(400),
		"redirect with retry after":      {Kind: psp.FaultRedirect, Status: 307, RetryAfter: time.Second},
		"bad_body without a breach":      {Kind: psp.FaultBadBody},
		"bad_body unknown breach":        psp.BadBody("gzip"),
		"bad_body missing, no member":    psp.BadBody(psp.BreachMissing),
		"bad_body missing infoPagador":   psp.BadBodyWithout("infoPagador"),
		"bad_body valor with a member":   {Kind: psp.FaultBadBody, Breach: psp.BreachAmount, Member: "valor"},
		"bad_body with a status":         {Kind: psp.FaultBadBody, Breach: psp.BreachCut, Status: 503},
		"status with a breach":           {Kind: psp.FaultStatus, Status: 503, Breach: psp.BreachCut},
		"drop with a member":             {Kind: psp.FaultDrop, Member: "valor"},
		"status 302 (that is redirect)":  psp.Status(302),
		"commit_status negative retry":   psp.CommitStatusRetryAfter(503, -time.Second),
		"redirect without a status code": {Kind: psp.FaultRedirect},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := json.Marshal(f); !errors.Is(err, psp.ErrInvalidFault) {
				t.Errorf("json.Marshal(%+v) error = %v, want %v", f, err, psp.ErrInvalidFault)
			}
		})
	}
	for _, in := range []string{
		`{"kind":"bad_body"}`, `{"kind":"bad_body","breach":"missing"}`,
		`{"kind":"bad_body","breach":"valor","member":"valor"}`, `{"kind":"bad_body","breach":5}`,
		`{"kind":"redirect"}`, `{"kind":"redirect","status":307,"retry_after_s":1}`,
		`{"kind":"commit_status","status":201}`, `{"kind":"drop","member":"valor"}`,
	} {
		var f psp.Fault
		if err := json.Unmarshal([]byte(in), &f); !errors.Is(err, psp.ErrInvalidFault) {
			t.Errorf("json.Unmarshal(%s) error = %v, want %v", in, err, psp.ErrInvalidFault)
		}
	}
}

func TestCommitStatusHidesTheSettlement(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.CommitStatusRetryAfter(502, 1500*time.Millisecond), psp.CommitStatus(504))

	a := pay(s, "k1", validBody)
	p := wantProblem(t, a, 502, psp.CodeInjectedFault)
	if !strings.Contains(p.Detail, "processed") {
		t.Errorf("detail = %q, want it to say the request was processed", p.Detail)
	}
	if got := a.header.Get("Retry-After"); got != "2" {
		t.Errorf("Retry-After = %q, want 2 (1.5s rounded up)", got)
	}
	if n := len(s.Settlements()); n != 1 {
		t.Fatalf("%d settlements behind the 502, want 1", n)
	}
	a = pay(s, "k1", validBody) // the replay, hidden again
	wantProblem(t, a, 504, psp.CodeInjectedFault)
	if got := a.header.Values("Retry-After"); got != nil {
		t.Errorf("Retry-After = %q, want none", got)
	}
	if a := pay(s, "k1", validBody); a.status != 201 || a.header.Get(psp.ReplayedHeader) != "true" {
		t.Errorf("third answer = %d replayed %q, want the stored 201", a.status, a.header.Get(psp.ReplayedHeader))
	}
	if n := len(s.Settlements()); n != 1 {
		t.Errorf("%d settlements, want 1", n)
	}
}

func TestCommitStatus2xxKeepsTheBody(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.CommitStatusRetryAfter(200, time.Second), psp.CommitStatus(202))
	first := pay(s, "k1", validBody)
	second := pay(s, "k1", validBody)
	stored := pay(s, "k1", validBody)
	for _, tc := range []struct {
		a          answer
		status     int
		retryAfter string
	}{{first, 200, "1"}, {second, 202, ""}} {
		if tc.a.status != tc.status || tc.a.body != stored.body || tc.a.header.Get("Retry-After") != tc.retryAfter {
			t.Errorf("answer = %d %q Retry-After %q, want %d %q Retry-After %q",
				tc.a.status, tc.a.body, tc.a.header.Get("Retry-After"), tc.status, stored.body, tc.retryAfter)
		}
	}
	if got := second.header.Get(psp.ReplayedHeader); got != "true" {
		t.Errorf("202 over a replay: %s = %q, want true", psp.ReplayedHeader, got)
	}
}

func TestCommitStatusKeepsTheStoredHeaders(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.CommitStatusRetryAfter(200, time.Second))
	r := paymentRequest("k1", validBody)
	r.Header.Del("Authorization")
	a := serve(s, r) // a 401 made a 200
	if a.status != 200 || a.header.Get("WWW-Authenticate") == "" || a.header.Get("Retry-After") != "1" {
		t.Errorf("answer = %d, header %v; want 200 with WWW-Authenticate and Retry-After 1", a.status, a.header)
	}
}

// brokenBodies are the bad_body faults whose answer is whole: what each must change in the
// stored receipt.
var brokenBodies = []struct {
	fault psp.Fault
	edit  func(r map[string]any)
}{
	{psp.BadBody(psp.BreachAmount), func(r map[string]any) { r["valor"] = "150.01" }},
	{psp.BadBody(psp.BreachPixKey), func(r map[string]any) { r["chave"] = "0pix@example.com" }},
	{psp.BadBody(psp.BreachEndToEndID), func(r map[string]any) { r["endToEndId"] = r["endToEndId"].(string)[:31] }},
	{psp.BadBodyWithout("endToEndId"), func(r map[string]any) { delete(r, "endToEndId") }},
	{psp.BadBodyWithout("valor"), func(r map[string]any) { delete(r, "valor") }},
	{psp.BadBodyWithout("chave"), func(r map[string]any) { delete(r, "chave") }},
	{psp.BadBodyWithout("status"), func(r map[string]any) { delete(r, "status") }},
	{psp.BadBodyWithout("horario"), func(r map[string]any) { delete(r, "horario") }},
}

func TestBadBodyBreaksOneMember(t *testing.T) {
	for _, tc := range brokenBodies {
		t.Run(string(tc.fault.Breach)+tc.fault.Member, func(t *testing.T) {
			s := mustServer(t)
			s.Inject(tc.fault)
			broken := pay(s, "k1", validBody)
			stored := pay(s, "k1", validBody)
			if broken.status != 201 || broken.header.Get(psp.ReplayedHeader) != "" {
				t.Fatalf("broken answer = %d replayed %q, want a fresh 201", broken.status, broken.header.Get(psp.ReplayedHeader))
			}
			want := mustDecode[map[string]any](t, stored.body)
			tc.edit(want)
			if diff := cmp.Diff(want, mustDecode[map[string]any](t, broken.body)); diff != "" {
				t.Errorf("broken body mismatch (-want +got):\n%s", diff)
			}
			if n := len(s.Settlements()); n != 1 {
				t.Errorf("%d settlements, want 1", n)
			}
		})
	}
}

func TestBadBodyNotJSON(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.BadBody(psp.BreachNotJSON))
	a := pay(s, "k1", validBody)
	if a.status != 201 || json.Valid([]byte(a.body)) || !strings.Contains(a.body, "<html>") {
		t.Errorf("answer = %d %q, want a 201 with an HTML body", a.status, a.body)
	}
	wantSettled(t, pay(s, "k2", validBody))
	if n := len(s.Settlements()); n != 2 {
		t.Errorf("%d settlements, want 2", n)
	}
}

func TestBadBodyBreaksAReplay(t *testing.T) {
	s := mustServer(t)
	stored := pay(s, "k1", validBody)
	s.Inject(psp.BadBody(psp.BreachAmount))
	a := pay(s, "k1", validBody)
	if a.status != 201 || a.header.Get(psp.ReplayedHeader) != "true" || a.body == stored.body {
		t.Errorf("answer = %d replayed %q %q, want a replayed 201 with a broken body", a.status, a.header.Get(psp.ReplayedHeader), a.body)
	}
}

func TestBadBodyLeavesOtherAnswersAlone(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.BadBody(psp.BreachNotJSON))
	r := paymentRequest("k1", validBody)
	r.Header.Del("Authorization")
	wantProblem(t, serve(s, r), 401, psp.CodeUnauthorized) // consumes the fault
	wantSettled(t, pay(s, "k1", validBody))
}

func TestBadBodyTruncated(t *testing.T) {
	for _, tc := range []struct {
		breach psp.Breach
		length func(full int) int64
	}{
		{psp.BreachShort, func(full int) int64 { return int64(full) }},
		{psp.BreachCut, func(int) int64 { return -1 }}, // chunked
	} {
		t.Run(string(tc.breach), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := mustServer(t)
				srv := mustPipe(t, s)
				s.Inject(psp.BadBody(tc.breach))
				resp, err := post(t.Context(), srv.client, srv.URL, "k1", validBody)
				if err != nil {
					t.Fatalf("POST error = %v, want the 201's header", err)
				}
				defer resp.Body.Close()
				got, err := io.ReadAll(resp.Body)
				stored := mustPost(t, srv.client, srv.URL, "k1", validBody).body
				if resp.StatusCode != 201 || !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Errorf("answer = %d, read error %v; want 201 and %v", resp.StatusCode, err, io.ErrUnexpectedEOF)
				}
				if string(got) != stored[:len(stored)/2] || resp.ContentLength != tc.length(len(stored)) {
					t.Errorf("read %q with Content-Length %d, want %q with %d",
						got, resp.ContentLength, stored[:len(stored)/2], tc.length(len(stored)))
				}
				if n := len(s.Settlements()); n != 1 {
					t.Errorf("%d settlements, want 1", n)
				}
			})
		})
	}
}

func TestRedirectStrikesFirst(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.Redirect(307))
	r := paymentRequest("k1", `not even JSON`)
	a := serve(s, r)
	if a.status != 307 || a.header.Get("Location") != psp.PaymentsPath || a.body != "" {
		t.Errorf("answer = %d Location %q %q, want 307 to %s with no body", a.status, a.header.Get("Location"), a.body, psp.PaymentsPath)
	}
	wantSettled(t, pay(s, "k1", validBody)) // nothing was stored
}
