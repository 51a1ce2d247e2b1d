package openapitest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"pixretry/psp/efi"
)

func TestFits(t *testing.T) {
	const template = "/v2/gn/pix/{idEnvio}"
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"/v2/gn/pix/abc", true},
		{"/v2/gn/pix/{idEnvio}", true},
		{"/v2/gn/pix/", false},
		{"/v2/gn/pix", false},
		{"/v2/gn/pix/abc/qrcode", false},
		{"/v3/gn/pix/abc", false},
	} {
		if got := fits(template, tc.path); got != tc.want {
			t.Errorf("fits(%q, %q) = %v, want %v", template, tc.path, got, tc.want)
		}
	}
}

// TestFitsTakesOnlyAWholeSegmentForAName: a segment that holds a template expression but is not
// one whole is compared as it is written.
func TestFitsTakesOnlyAWholeSegmentForAName(t *testing.T) {
	for _, tc := range []struct {
		template, path string
		want           bool
	}{
		{"/reports/{year}.csv", "/reports/2024.csv", false},
		{"/reports/{year}.csv", "/reports/{year}.csv", true},
		{"/reports/v{n}", "/reports/v2", false},
		{"/reports/v{n}", "/reports/v{n}", true},
	} {
		if got := fits(tc.template, tc.path); got != tc.want {
			t.Errorf("fits(%q, %q) = %v, want %v", tc.template, tc.path, got, tc.want)
		}
	}
}

// TestPathPrefersALiteralPath: a path the document lists as it is wins over a template that
// fits it, however the document's map of paths is ranged over.
func TestPathPrefersALiteralPath(t *testing.T) {
	d := &document{spec: &openapi3.T{Paths: openapi3.NewPaths(
		openapi3.WithPath("/things/{id}", &openapi3.PathItem{Summary: "one thing"}),
		openapi3.WithPath("/things/mine", &openapi3.PathItem{Summary: "my things"}),
	)}}
	for range 100 { // a map's order changes from one range to the next
		if got, item := d.path("/things/mine"); got != "/things/mine" || item == nil || item.Summary != "my things" {
			t.Fatalf("path(/things/mine) = %q, %v, want /things/mine, my things", got, item)
		}
	}
	if got, item := d.path("/things/yours"); got != "/things/{id}" || item == nil || item.Summary != "one thing" {
		t.Errorf("path(/things/yours) = %q, %v, want /things/{id}, one thing", got, item)
	}
	if got, item := d.path("/others/mine"); got != "" || item != nil {
		t.Errorf("path(/others/mine) = %q, %v, want none", got, item)
	}
}

// TestHandlerFindsATemplatedPath: an answer to a path that a template of the document stands for
// is checked against the template's operation, and counted under it.
func TestHandlerFindsATemplatedPath(t *testing.T) {
	s, _ := mustDouble(t)
	var f failures
	checked := Handler(&f, efi.NewHandler(s), s)
	seen := row{Operation: "PUT /v2/gn/pix/{idEnvio}", Response: "201", Status: http.StatusCreated}
	before := countOf(seen)
	payout := `{"valor":"1.00","pagador":{"chave":"` + efi.PayerKey + `"},"favorecido":{"chave":"pix@example.com"}}`
	if got := serve(checked, request("PUT", efi.SendPath+"abc", "", payout)); got != http.StatusCreated {
		t.Fatalf("PUT = %d, want 201", got)
	}
	if got := countOf(seen) - before; got != 1 || len(f.msgs) > 0 {
		t.Errorf("Handler counted %d answers at %v and failed %q, want 1 and no failure", got, seen, f.msgs)
	}
	var wrong failures
	serve(Handler(&wrong, answering(201, `{}`, "Content-Type", "application/json"), nil),
		request("PUT", efi.SendPath+"abc", "", payout))
	if len(wrong.msgs) != 1 || !strings.Contains(wrong.msgs[0], "PUT /v2/gn/pix/{idEnvio} answered 201") {
		t.Errorf("Handler failed %q, want the template's operation named", wrong.msgs)
	}
}
