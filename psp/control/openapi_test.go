package control_test

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"

	"pixretry/internal/openapitest"
	"pixretry/psp"
	"pixretry/psp/control"
	"pixretry/psp/efi"
)

// TestControlServesTheOpenAPIDocument: GET OpenAPIPath answers psp/control/openapi.json as
// application/json to anyone, whatever the Host and without the token that the control API
// requires. It takes no other method.
func TestControlServesTheOpenAPIDocument(t *testing.T) {
	want, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	s := mustGuarded(t, withControlToken)
	r := controlRequest("GET", control.OpenAPIPath, "")
	r.Host = "rebound.example"
	a := serve(s, r)
	if a.status != 200 || a.header.Get("Content-Type") != "application/json" ||
		a.header.Get("Content-Length") != strconv.Itoa(len(want)) || a.body != string(want) {
		t.Errorf("GET %s = %d %v, %d bytes; want 200 application/json, the %d bytes of openapi.json",
			control.OpenAPIPath, a.status, a.header, len(a.body), len(want))
	}
	for _, method := range []string{"POST", "HEAD", "PUT", "DELETE"} {
		a := ctl(s, method, control.OpenAPIPath, "")
		wantProblem(t, a, 405, "method_not_allowed")
		if got := a.header.Get("Allow"); got != "GET" {
			t.Errorf("%s %s: Allow = %q, want GET", method, control.OpenAPIPath, got)
		}
	}
}

// TestOpenAPIDocumentListsEveryRoute: the document lists the paths that the double, in the
// dialects pix and efi, and its control API serve, each with the methods its 405 allows. A
// template path is asked for as it is written, which its pattern takes. The operations tagged
// openfinance are left to command psp's TestOpenAPIDocumentListsTheOpenFinanceRoutes: package
// psp/openfinance would bring go-jose into this module.
func TestOpenAPIDocumentListsEveryRoute(t *testing.T) {
	data, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Tags []string `json:"tags"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	documented := map[string]string{}
	for path, item := range doc.Paths {
		var methods []string
		for method, op := range item {
			if !slices.Contains(op.Tags, "openfinance") {
				methods = append(methods, strings.ToUpper(method))
			}
		}
		if methods != nil {
			documented[path] = strings.Join(slices.Sorted(slices.Values(methods)), ", ")
		}
	}
	s := mustBank(t)
	served := map[string]string{}
	for _, path := range []string{psp.PaymentsPath, control.FaultsPath, control.SettlementsPath, control.BalancePath,
		control.ResetPath, control.StatsPath, control.RequestsPath, control.WebhooksPath, control.PagePath,
		control.OpenAPIPath} {
		served[path] = ctl(s, "PATCH", path, "").header.Get("Allow")
	}
	efiBank := mustEfiBank(t)
	for _, path := range []string{efi.SendPath + "{idEnvio}", efi.LookupPath + "{idEnvio}"} {
		served[path] = ctl(efiBank, "PATCH", path, "").header.Get("Allow")
	}
	if diff := cmp.Diff(served, documented); diff != "" {
		t.Errorf("paths and methods mismatch (-served +documented):\n%s", diff)
	}
}

// TestControlPathsAre404WithoutTheControlAPI: the Server alone, which command psp serves when
// the control API is off, answers every control path 404 not_found, as the document says.
func TestControlPathsAre404WithoutTheControlAPI(t *testing.T) {
	s := mustServer(t)
	h := openapitest.Handler(t, s, s)
	for _, path := range []string{control.FaultsPath, control.SettlementsPath, control.BalancePath, control.ResetPath,
		control.StatsPath, control.RequestsPath, control.WebhooksPath, control.PagePath, control.OpenAPIPath} {
		for _, method := range []string{"GET", "POST", "DELETE"} {
			wantProblem(t, ctl(h, method, path, ""), 404, "not_found")
		}
	}
}
