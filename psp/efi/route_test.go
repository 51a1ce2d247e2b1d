package efi_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"pixretry/psp"
	"pixretry/psp/efi"
)

func TestAnotherPathIs404(t *testing.T) {
	for _, path := range []string{"/", psp.PaymentsPath, efi.SendPath, efi.LookupPath, "/v2/gn/pix/abc/qrcode"} {
		s, h := mustFront(t)
		got := serve(h, httptest.NewRequest(http.MethodPut, path, strings.NewReader(payout)))
		wantReply(t, got, http.StatusNotFound, jsonType, `{"nome":"rota_nao_encontrada","mensagem":"no resource at `+path+`"}`+"\n")
		wantRequests(t, s, 0, 0)
	}
}

func TestAnotherMethodIs405(t *testing.T) {
	for _, tc := range []struct{ method, path, allow string }{
		{http.MethodGet, efi.SendPath + "abc", "PUT"},
		{http.MethodPost, efi.SendPath + "abc", "PUT"},
		{http.MethodPut, efi.LookupPath + "abc", "GET"},
		{http.MethodDelete, efi.LookupPath + "abc", "GET"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			_, h := mustFront(t)
			wantReply(t, serve(h, httptest.NewRequest(tc.method, tc.path, nil)), http.StatusMethodNotAllowed, jsonType,
				`{"nome":"metodo_nao_permitido","mensagem":"`+tc.path+` takes `+tc.allow+`"}`+"\n", "Allow", tc.allow)
		})
	}
}

// TestAHeadOfALookupClosesNoKey checks that HEAD, which a GET route would serve, is refused:
// a lookup's 404 would close the idEnvio.
func TestAHeadOfALookupClosesNoKey(t *testing.T) {
	s, h := mustFront(t)
	got := serve(h, httptest.NewRequest(http.MethodHead, efi.LookupPath+"abc", nil))
	if got.status != http.StatusMethodNotAllowed || got.header.Get("Allow") != "GET" {
		t.Errorf("HEAD = %d Allow %q, want 405 Allow GET", got.status, got.header.Get("Allow"))
	}
	if st := s.Stats(); st.Lookups != 0 || st.ClosedKeys != 0 {
		t.Errorf("Stats() = %d lookups, %d closed keys, want none", st.Lookups, st.ClosedKeys)
	}
}
