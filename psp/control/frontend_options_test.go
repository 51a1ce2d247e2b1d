package control_test

import (
	"io"
	"net/http"
	"testing"

	"pixretry/psp/control"
)

// TestOptionsPathsPassTheGuard: a path of Options.Paths answers a GET through its handler,
// after the Host and token checks of every control request, and 405 to any other method.
func TestOptionsPathsPassTheGuard(t *testing.T) {
	const extra = "/_psp/extra/keys.json"
	keys := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "the keys") })
	h, err := control.NewHandler(mustServer(t), control.Options{Token: "ctl", Hosts: []string{"psp.test"},
		Paths: map[string]http.Handler{extra: keys}})
	if err != nil {
		t.Fatal(err)
	}
	request := func(method, host, auth string) *http.Request {
		r := controlRequest(method, extra, "")
		r.Host = host
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		return r
	}
	if a := serve(h, request(http.MethodGet, "psp.test", "Bearer ctl")); a.status != http.StatusOK || a.body != "the keys" {
		t.Errorf("GET %s = %d %q, want 200 and the handler's body", extra, a.status, a.body)
	}
	wantProblem(t, serve(h, request(http.MethodGet, "psp.test", "")), http.StatusUnauthorized, "unauthorized")
	wantProblem(t, serve(h, request(http.MethodGet, "rebound.example", "Bearer ctl")), http.StatusForbidden,
		control.CodeHostNotAllowed)
	a := serve(h, request(http.MethodPost, "psp.test", "Bearer ctl"))
	wantProblem(t, a, http.StatusMethodNotAllowed, "method_not_allowed")
	if got := a.header.Get("Allow"); got != http.MethodGet {
		t.Errorf("POST %s: Allow = %q, want GET", extra, got)
	}
	r := request(http.MethodGet, "psp.test", "Bearer ctl")
	r.URL.Path = extra + "/more" // not a path of Paths: the Server's
	wantProblem(t, serve(h, r), http.StatusNotFound, "not_found")
}

// TestOptionsPathsMustBeNew: a path of Options.Paths that the control API serves itself is an
// error of NewHandler.
func TestOptionsPathsMustBeNew(t *testing.T) {
	_, err := control.NewHandler(mustServer(t), control.Options{
		Paths: map[string]http.Handler{control.ResetPath: http.NotFoundHandler()}})
	if want := "control: Options.Paths: /_psp/reset is a path of the control API"; err == nil || err.Error() != want {
		t.Errorf("NewHandler() error = %v, want %q", err, want)
	}
}

// TestOptionsOnResetRunsAfterTheServersReset: a POST to ResetPath calls Options.OnReset once,
// when the Server has already forgotten its settlements.
func TestOptionsOnResetRunsAfterTheServersReset(t *testing.T) {
	s := mustServer(t)
	wantSettled(t, pay(s, "k1", validBody))
	var settled []int // len(Settlements()) at each call of OnReset
	h, err := control.NewHandler(s, control.Options{OnReset: func() { settled = append(settled, len(s.Settlements())) }})
	if err != nil {
		t.Fatal(err)
	}
	wantNoContent(t, serve(h, controlRequest(http.MethodPost, control.ResetPath, "")))
	if len(settled) != 1 || settled[0] != 0 {
		t.Errorf("OnReset saw the settlements %v, want one call that saw [0]", settled)
	}
}
