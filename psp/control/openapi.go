package control

import (
	_ "embed"
	"net/http"
	"strconv"
)

// OpenAPIPath is where NewHandler serves the OpenAPI 3.1 document of the payments API and the
// control API, psp/control/openapi.json in the repository, as application/json. Reading it
// takes no token and no particular Host: the document is the same for every PSP, is no secret,
// and reading it changes nothing.
const OpenAPIPath = "/openapi.json"

//go:embed openapi.json
var openAPI []byte

// getOpenAPI writes the document.
func getOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(openAPI)))
	w.Write(openAPI) // a failed write means the client has gone: nothing left to tell it
}
