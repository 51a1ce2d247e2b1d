package openfinance

import (
	"maps"
	"net/http"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/uuid"
)

// The media types of answers: a signed answer is a JWS (FAPI-BR "Message Content Signing
// Considerations", item 4), other answers plain JSON, as the spec's error responses say.
const (
	jwtContentType  = "application/jwt"
	jsonContentType = "application/json; charset=utf-8"
)

// exchange is one API request being answered. Every answer echoes its x-fapi-interaction-id.
type exchange struct {
	s           *Server
	w           http.ResponseWriter
	r           *http.Request
	interaction string
}

// meta is the spec's Meta: when the answer was made.
type meta struct {
	RequestDateTime string `json:"requestDateTime"`
}

// links is the spec's LinkSingle: the URI of the request answered.
type links struct {
	Self string `json:"self"`
}

// answerClaims are the claims of a signed answer: the body's members, then aud, iss, jti and
// iat (FAPI-BR "Message Content Signing Considerations", item 3).
type answerClaims struct {
	Body jsontext.Value `json:",embed"`
	Aud  string         `json:"aud"`
	Iss  string         `json:"iss"`
	Jti  string         `json:"jti"`
	Iat  int64          `json:"iat"`
}

// signed writes body, a JSON object, as a JWS signed by the Server, with status.
func (x *exchange) signed(status int, body any) {
	b, _ := json.Marshal(body, json.Deterministic(true)) // the answers' types always encode
	claims, _ := json.Marshal(answerClaims{Body: b, Aud: x.s.cfg.ClientOrganisationID, Iss: x.s.cfg.OrganisationID,
		Jti: uuid.NewString(), Iat: time.Now().Unix()})
	jws, err := x.s.signer.Sign(claims)
	if err != nil { // only a broken random source makes PS256 fail
		x.plain(statusError(http.StatusInternalServerError, "the PSP could not sign its answer: "+err.Error()))
		return
	}
	compact, _ := jws.CompactSerialize() // a compact JWS of one signature always serializes
	x.write(status, jwtContentType, []byte(compact), nil)
}

// fail writes e: signed if it is a 422, as the spec's UnprocessableEntity responses are, else
// plain JSON.
func (x *exchange) fail(e *apiError) {
	if e.status == http.StatusUnprocessableEntity {
		x.signed(e.status, e.body(x.meta()))
		return
	}
	x.plain(e)
}

// plain writes e as plain JSON, with its extra header fields.
func (x *exchange) plain(e *apiError) {
	b, _ := json.Marshal(e.body(x.meta()))
	x.write(e.status, jsonContentType, append(b, '\n'), e.header)
}

// write sends an answer with the x-fapi-interaction-id and the extra header fields.
func (x *exchange) write(status int, contentType string, body []byte, extra http.Header) {
	h := x.w.Header()
	maps.Copy(h, extra)
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set(interactionHeader, x.interaction)
	x.w.WriteHeader(status)
	x.w.Write(body) // a failed write means the client has gone: nothing left to tell it
}

// meta is the meta of an answer made now.
func (x *exchange) meta() meta { return meta{stamp(time.Now())} }

// links are the links of an answer to the request.
func (x *exchange) links() links { return links{x.url()} }

// url is the absolute URL of the request's endpoint, without its query: what the aud of a
// signed request must be (FAPI-BR "Message Content Signing Considerations", item 3).
func (x *exchange) url() string {
	scheme := "http"
	if x.r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + x.r.Host + x.r.URL.EscapedPath()
}

// stamp is t as the spec writes date-times: RFC 3339 in UTC, to the second.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
