package efi

import (
	"net/http"
	"regexp"
)

// PayerKey is the Pix key of the double's one payer. Every payout carries it as pagador.chave,
// as an Efí payout carries a key of the authenticated account.
const PayerKey = "pagador@pixretry.example"

// The paths of the two operations, with the idEnvio appended.
const (
	SendPath   = "/v2/gn/pix/"                   // PUT SendPath+idEnvio pays
	LookupPath = "/v2/gn/pix/enviados/id-envio/" // GET LookupPath+idEnvio looks a payout up
)

// idEnvioPattern is the format of an idEnvio.
var idEnvioPattern = regexp.MustCompile(`^[a-zA-Z0-9]{1,35}$`)

// handler is the Efí front end of next, which serves the double's own API.
type handler struct{ next http.Handler }

// NewHandler returns an http.Handler that serves the double in Efí's dialect: PUT
// SendPath+idEnvio and GET LookupPath+idEnvio, as the package documentation says. Another
// method on those paths gets 405 with Allow, and another path 404. next serves the double's
// own API: a *psp.Server, or a handler in front of one, such as a recorder. The front end
// relays each request to it with [psp.Relay]. It is safe for concurrent use when next is.
func NewHandler(next http.Handler) http.Handler {
	h := handler{next}
	mux := http.NewServeMux()
	mux.HandleFunc("PUT "+SendPath+"{idEnvio}", h.send)
	mux.HandleFunc(SendPath+"{idEnvio}", notAllowed(http.MethodPut))
	mux.HandleFunc("GET "+LookupPath+"{idEnvio}", h.lookup)
	mux.HandleFunc("HEAD "+LookupPath+"{idEnvio}", notAllowed(http.MethodGet)) // a HEAD must not close a key
	mux.HandleFunc(LookupPath+"{idEnvio}", notAllowed(http.MethodGet))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		gnError(http.StatusNotFound, nomeRouteNotFound, "no resource at "+r.URL.Path).write(w)
	})
	return mux
}

// notAllowed answers 405 with Allow: allow.
func notAllowed(allow string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a := gnError(http.StatusMethodNotAllowed, nomeMethodNotAllowed, r.URL.Path+" takes "+allow)
		a.header = http.Header{"Allow": {allow}}
		a.write(w)
	}
}

// idEnvio returns the idEnvio of r's path, or the 400 that refuses it.
func idEnvio(r *http.Request) (string, *answer) {
	id := r.PathValue("idEnvio")
	if !idEnvioPattern.MatchString(id) {
		a := invalidJSON(erro{"pattern", ".params.idEnvio", "must match ^[a-zA-Z0-9]{1,35}$"})
		return "", &a
	}
	return id, nil
}
