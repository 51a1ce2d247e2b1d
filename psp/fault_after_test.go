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

func TestCommitStatusHidesTheSettlement(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.Fault{Kind: "commit_status", Status: 502, RetryAfter: 1500 * time.Millisecond}, psp.CommitStatus(504))

	a := pay(s, "k1", validBody)
	p := wantProblem(t, a, 502, "injected_fault")
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
	wantProblem(t, a, 504, "injected_fault")
	if got := a.header.Values("Retry-After"); got != nil {
		t.Errorf("Retry-After = %q, want none", got)
	}
	if a := pay(s, "k1", validBody); a.status != 201 || a.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("third answer = %d replayed %q, want the stored 201", a.status, a.header.Get("Idempotent-Replayed"))
	}
	if n := len(s.Settlements()); n != 1 {
		t.Errorf("%d settlements, want 1", n)
	}
}

func TestCommitStatus2xxKeepsTheBody(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.Fault{Kind: "commit_status", Status: 200, RetryAfter: time.Second}, psp.CommitStatus(202))
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
	if got := second.header.Get("Idempotent-Replayed"); got != "true" {
		t.Errorf("202 over a replay: %s = %q, want true", "Idempotent-Replayed", got)
	}
}

func TestCommitStatusKeepsTheStoredHeaders(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.Fault{Kind: "commit_status", Status: 200, RetryAfter: time.Second})
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
	{psp.BadBody("valor"), func(r map[string]any) { r["valor"] = "150.01" }},
	{psp.BadBody("chave"), func(r map[string]any) { r["chave"] = "0pix@example.com" }},
	{psp.BadBody("end_to_end_id"), func(r map[string]any) { r["endToEndId"] = r["endToEndId"].(string)[:31] }},
	{psp.Fault{Kind: "bad_body", Breach: "missing", Member: "endToEndId"}, func(r map[string]any) { delete(r, "endToEndId") }},
	{psp.Fault{Kind: "bad_body", Breach: "missing", Member: "valor"}, func(r map[string]any) { delete(r, "valor") }},
	{psp.Fault{Kind: "bad_body", Breach: "missing", Member: "chave"}, func(r map[string]any) { delete(r, "chave") }},
	{psp.Fault{Kind: "bad_body", Breach: "missing", Member: "status"}, func(r map[string]any) { delete(r, "status") }},
	{psp.Fault{Kind: "bad_body", Breach: "missing", Member: "horario"}, func(r map[string]any) { delete(r, "horario") }},
}

func TestBadBodyBreaksOneMember(t *testing.T) {
	for _, tc := range brokenBodies {
		t.Run(string(tc.fault.Breach)+tc.fault.Member, func(t *testing.T) {
			s := mustServer(t)
			s.Inject(tc.fault)
			broken := pay(s, "k1", validBody)
			stored := pay(s, "k1", validBody)
			if broken.status != 201 || broken.header.Get("Idempotent-Replayed") != "" {
				t.Fatalf("broken answer = %d replayed %q, want a fresh 201", broken.status, broken.header.Get("Idempotent-Replayed"))
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
	s.Inject(psp.BadBody("not_json"))
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
	s.Inject(psp.BadBody("valor"))
	a := pay(s, "k1", validBody)
	if a.status != 201 || a.header.Get("Idempotent-Replayed") != "true" || a.body == stored.body {
		t.Errorf("answer = %d replayed %q %q, want a replayed 201 with a broken body", a.status, a.header.Get("Idempotent-Replayed"), a.body)
	}
}

func TestBadBodyLeavesOtherAnswersAlone(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.BadBody("not_json"))
	r := paymentRequest("k1", validBody)
	r.Header.Del("Authorization")
	wantProblem(t, serve(s, r), 401, "unauthorized") // consumes the fault
	wantSettled(t, pay(s, "k1", validBody))
}

func TestBadBodyTruncated(t *testing.T) {
	for _, tc := range []struct {
		breach string
		length func(full int) int64
	}{
		{"short", func(full int) int64 { return int64(full) }},
		{"cut", func(int) int64 { return -1 }}, // chunked
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

func TestStatusFaultAt400IsAProblem(t *testing.T) {
	s := mustServer(t)
	s.Inject(psp.Status(400), psp.CommitStatus(599))
	wantProblem(t, pay(s, "k1", validBody), 400, "injected_fault")
	wantProblem(t, pay(s, "k1", validBody), 599, "injected_fault")
}
