package openfinance

import (
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"

	"github.com/google/uuid"
)

// The header fields of a request the Server reads, besides Authorization.
const (
	interactionHeader = "x-fapi-interaction-id" // a UUID the answer echoes (4.1.0.yml, xFapiInteractionId)
	keyHeader         = "x-idempotency-key"     // the idempotency key (4.1.0.yml, XIdempotencyKey)
)

// maxBodyBytes is the largest body of a signed request, in bytes: a payment's JWS takes about
// 2 KiB.
const maxBodyBytes = 65536

// uuidPattern is the spec's pattern of an x-fapi-interaction-id.
var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// newExchange starts answering r. It echoes r's x-fapi-interaction-id, or, when r has none or
// a malformed one, makes one up and returns the 400 the spec asks for (xFapiInteractionId).
func (s *Server) newExchange(w http.ResponseWriter, r *http.Request) (*exchange, *apiError) {
	x := &exchange{s: s, w: w, r: r, interaction: r.Header.Get(interactionHeader)}
	switch {
	case x.interaction == "":
		x.interaction = uuid.NewString()
		return x, errorf(http.StatusBadRequest, codeNotInformed, "the header %s is required", interactionHeader)
	case !uuidPattern.MatchString(x.interaction):
		x.interaction = uuid.NewString()
		return x, errorf(http.StatusBadRequest, codeInvalidParameter, "the header %s must be a UUID", interactionHeader)
	}
	return x, nil
}

// bearer is the bearer token of r's Authorization. Whether the psp.Server accepts it is the
// Server's to say, when a request is relayed to it.
func bearer(r *http.Request) (string, *apiError) {
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimLeft(token, " ")
	if !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", errorf(http.StatusUnauthorized, codeUnauthorized, "a bearer token is required in Authorization")
	}
	return token, nil
}

// readBody reads the body of a signed request, at most maxBodyBytes.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, *apiError) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge {
		return nil, errorf(http.StatusBadRequest, codeInvalidParameter, "the body must be at most %d bytes", maxBodyBytes)
	}
	if err != nil {
		return nil, errorf(http.StatusBadRequest, codeInvalidParameter, "the body could not be read: %v", err)
	}
	return body, nil
}
