package openapitest

import (
	"net/http"
	"strings"
	"testing"

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
