package efi_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/go-json-experiment/json"

	"pixretry/psp"
	"pixretry/psp/efi"
)

// ExampleNewHandler pays 12.34 under the idEnvio pagamento1 in Efí's dialect, then looks it up.
func ExampleNewHandler() {
	s, _ := psp.NewServer(psp.DefaultConfig())
	defer s.Close()
	h := efi.NewHandler(s)
	send := func(method, path, body string) {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+psp.DefaultToken)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		var answer struct {
			Status string `json:"status"`
		}
		json.Unmarshal(rec.Body.Bytes(), &answer)
		fmt.Println(method, rec.Code, answer.Status)
	}
	send(http.MethodPut, efi.SendPath+"pagamento1",
		`{"valor":"12.34","pagador":{"chave":"`+efi.PayerKey+`"},"favorecido":{"chave":"pix@example.com"}}`)
	send(http.MethodGet, efi.LookupPath+"pagamento1", "")
	// Output:
	// PUT 201 EM_PROCESSAMENTO
	// GET 200 REALIZADO
}
