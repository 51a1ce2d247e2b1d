package control_test

import (
	"testing"

	"pixretry/psp"
	"pixretry/psp/control"
)

// changes are the control requests that change state, each with a check that it did not.
var changes = []struct {
	method, path, body string
	unchanged          func(bank) bool // after a refusal; the Server holds one settlement and one fault
}{
	{"POST", control.FaultsPath, `{"faults":[{"kind":"drop"}]}`, func(s bank) bool {
		return pay(s, "k2", validBody).status == 503 && pay(s, "k3", validBody).status == 201 // only the queued 503
	}},
	{"DELETE", control.FaultsPath, "", func(s bank) bool { return pay(s, "k2", validBody).status == 503 }},
	{"POST", control.ResetPath, "", func(s bank) bool { return len(s.Settlements()) == 1 }},
}

// reads are the control requests that change nothing.
var reads = []string{control.FaultsPath, control.SettlementsPath, control.BalancePath, control.StatsPath, control.RequestsPath,
	control.PagePath}

// mustGuarded is a Server with the control API on, changed by edits, holding one settlement and
// one queued 503.
func mustGuarded(tb testing.TB, edits ...func(*control.Options)) bank {
	tb.Helper()
	s := mustBank(tb, edits...)
	wantSettled(tb, pay(s, "k1", validBody))
	s.Inject(psp.Status(503))
	return s
}

// TestControlChangesNeedJSON: a request that changes state with a Content-Type other than
// application/json is refused, and so is one with a body and no Content-Type.
func TestControlChangesNeedJSON(t *testing.T) {
	types := map[string]string{
		"no Content-Type":     "",
		"text/plain":          "text/plain",
		"an HTML form":        "application/x-www-form-urlencoded",
		"a multipart form":    "multipart/form-data; boundary=x",
		"another charset":     "application/json; charset=latin1",
		"JSON with a suffix":  "application/problem+json",
		"a malformed type":    "application/json;;",
		"JSON in the subtype": "text/json",
	}
	for _, c := range changes {
		for name, contentType := range types {
			if contentType == "" && c.body == "" {
				continue // TestControlBodylessChangesNeedNoContentType
			}
			t.Run(c.method+" "+c.path+" with "+name, func(t *testing.T) {
				s := mustGuarded(t)
				r := controlRequest(c.method, c.path, c.body)
				r.Header.Set("Content-Type", contentType)
				wantProblem(t, serve(s, r), 415, "unsupported_media_type")
				if !c.unchanged(s) {
					t.Errorf("%s %s with %s changed the Server", c.method, c.path, name)
				}
			})
		}
	}
}

// TestControlBodylessChangesNeedNoContentType: a request that changes state without a body may
// leave Content-Type out, as curl -X POST does, unless a browser says it comes from another
// origin: a page elsewhere cannot reset the PSP with a simple cross-site request.
func TestControlBodylessChangesNeedNoContentType(t *testing.T) {
	for _, c := range changes {
		if c.body != "" {
			continue
		}
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			s := mustGuarded(t)
			r := controlRequest(c.method, c.path, "")
			r.Header.Del("Content-Type")
			wantNoContent(t, serve(s, r))
		})
		crossOrigin := map[string]map[string]string{
			"Sec-Fetch-Site cross-site": {"Sec-Fetch-Site": "cross-site"},
			"Sec-Fetch-Site same-site":  {"Sec-Fetch-Site": "same-site"},
			"another Origin":            {"Origin": "https://evil.example"},
		}
		for name, header := range crossOrigin {
			t.Run(c.method+" "+c.path+" from "+name, func(t *testing.T) {
				s := mustGuarded(t)
				r := controlRequest(c.method, c.path, "")
				r.Header.Del("Content-Type")
				for field, value := range header {
					r.Header.Set(field, value)
				}
				wantProblem(t, serve(s, r), 415, "unsupported_media_type")
				if !c.unchanged(s) {
					t.Errorf("%s %s from %s changed the Server", c.method, c.path, name)
				}
			})
		}
	}
	t.Run("the PSP's own page", func(t *testing.T) {
		s := mustGuarded(t)
		r := controlRequest("POST", control.ResetPath, "")
		r.Header.Del("Content-Type")
		r.Header.Set("Sec-Fetch-Site", "same-origin")
		r.Header.Set("Origin", "http://example.com") // httptest's Host
		wantNoContent(t, serve(s, r))
	})
}

func TestControlReadsNeedNoContentType(t *testing.T) {
	s := mustGuarded(t)
	for _, path := range reads {
		if a := ctl(s, "GET", path, ""); a.status != 200 {
			t.Errorf("GET %s without Content-Type = %d %s, want 200", path, a.status, a.body)
		}
	}
}

func TestControlTokenIsRequired(t *testing.T) {
	withToken := func(o *control.Options) { o.Token = "ctl-secret" }
	refused := map[string]string{
		"no Authorization":  "",
		"a wrong token":     "Bearer ctl-wrong",
		"a longer token":    "Bearer ctl-secret2",
		"a payment token":   "Bearer " + token,
		"another scheme":    "Basic ctl-secret",
		"no token":          "Bearer",
		"the token in case": "Bearer CTL-SECRET",
	}
	for name, authorization := range refused {
		t.Run(name, func(t *testing.T) {
			for _, c := range changes {
				s := mustGuarded(t, withToken)
				r := controlRequest(c.method, c.path, c.body)
				r.Header.Set("Authorization", authorization)
				a := serve(s, r)
				wantProblem(t, a, 401, "unauthorized")
				if got, want := a.header.Get("WWW-Authenticate"), `Bearer realm="psp-control"`; got != want {
					t.Errorf("%s %s: WWW-Authenticate = %q, want %q", c.method, c.path, got, want)
				}
				if !c.unchanged(s) {
					t.Errorf("%s %s with %s changed the Server", c.method, c.path, name)
				}
			}
			s := mustGuarded(t, withToken)
			for _, path := range reads {
				if path == control.PagePath && authorization == "" {
					continue // the page without data (TestPageWithATokenShowsNothingWithoutIt)
				}
				r := controlRequest("GET", path, "")
				r.Header.Set("Authorization", authorization)
				wantProblem(t, serve(s, r), 401, "unauthorized")
			}
		})
	}
	t.Run("the token", func(t *testing.T) {
		s := mustGuarded(t, withToken)
		for _, path := range reads {
			r := controlRequest("GET", path, "")
			r.Header.Set("Authorization", "bearer ctl-secret") // the scheme in any case
			if a := serve(s, r); a.status != 200 {
				t.Errorf("GET %s with the token = %d %s, want 200", path, a.status, a.body)
			}
		}
		r := controlRequest("POST", control.ResetPath, "")
		r.Header.Set("Authorization", "Bearer ctl-secret")
		wantNoContent(t, serve(s, r))
		wantSettled(t, pay(s, "k1", validBody)) // payments need the payment token only
	})
}

func TestControlHostIsChecked(t *testing.T) {
	withHosts := func(o *control.Options) { o.Hosts = []string{"127.0.0.1:8080", "localhost:8080"} }
	for _, host := range []string{"evil.example:8080", "evil.example", "localhost:8081", "127.0.0.1", ""} {
		t.Run("Host "+host, func(t *testing.T) {
			withToken := func(o *control.Options) { o.Token = "ctl" }
			for _, c := range changes {
				s := mustGuarded(t, withHosts, withToken)
				r := controlRequest(c.method, c.path, c.body)
				r.Host = host // and no token: the Host is checked first
				wantProblem(t, serve(s, r), 403, control.CodeHostNotAllowed)
				if !c.unchanged(s) {
					t.Errorf("%s %s for Host %q changed the Server", c.method, c.path, host)
				}
			}
			s := mustGuarded(t, withHosts, withToken)
			for _, path := range reads {
				r := controlRequest("GET", path, "")
				r.Host = host
				wantProblem(t, serve(s, r), 403, control.CodeHostNotAllowed)
			}
			r := paymentRequest("k9", validBody)
			r.Host = host
			wantProblem(t, serve(s, r), 503, "injected_fault") // payments are not checked: the queued fault answers
			r = paymentRequest("k9", validBody)
			r.Host = host
			wantSettled(t, serve(s, r))
		})
	}
	for _, host := range []string{"127.0.0.1:8080", "LOCALHOST:8080"} {
		t.Run("Host "+host, func(t *testing.T) {
			s := mustGuarded(t, withHosts)
			r := controlRequest("POST", control.ResetPath, "")
			r.Host = host
			wantNoContent(t, serve(s, r))
		})
	}
}

// TestControlChecksInOrder shows which refusal a request with several faults gets: the Host,
// then the token, then the Content-Type.
func TestControlChecksInOrder(t *testing.T) {
	s := mustGuarded(t, func(o *control.Options) { o.Token, o.Hosts = "ctl", []string{"psp.test"} })
	r := controlRequest("POST", control.ResetPath, "")
	r.Header.Set("Origin", "https://evil.example") // a body-less change needs Content-Type from another origin
	r.Host, r.Header["Content-Type"] = "psp.test", nil
	wantProblem(t, serve(s, r), 401, "unauthorized")
	r.Header.Set("Authorization", "Bearer ctl")
	wantProblem(t, serve(s, r), 415, "unsupported_media_type")
	r.Header.Set("Content-Type", "application/json")
	wantNoContent(t, serve(s, r))
}

func TestControlWithoutGuardsServesAnyHost(t *testing.T) {
	s := mustGuarded(t)
	r := controlRequest("POST", control.ResetPath, "")
	r.Host = "evil.example"
	r.Header.Set("Authorization", "Bearer anything")
	wantNoContent(t, serve(s, r))
}
