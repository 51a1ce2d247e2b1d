package openfinance

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
)

// jwtMediaType is the media type of a signed body, request or answer ([security] item 4).
const jwtMediaType = "application/jwt"

// accept is the Accept header of every request: a signed answer, or an error in JSON ([spec]
// responses).
const accept = jwtMediaType + ", application/json"

// joseHeader is the header of a request's JWS ([signing] Passo 2).
type joseHeader struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
	Typ string `json:"typ"`
}

// requestClaims are the claims of a request's JWS ([security] item 3).
type requestClaims struct {
	Aud  string `json:"aud"`
	Iss  string `json:"iss"`
	Jti  string `json:"jti"`
	Iat  int64  `json:"iat"`
	Data any    `json:"data"`
}

// signed returns data as the body of a request to endpoint: a compact JWS signed with PS256
// by d.Key, with kid d.KeyID and typ JWT in its header ([signing] Passo 2), and the claims aud
// endpoint, iss d.Issuer, a random jti (a UUIDv4) and iat time.Now() in seconds ([security]
// item 3). Every call signs anew, with a new jti and iat: the PSP refuses a jti it has seen
// in 24 hours ([security] item 9). Its error is d.Key's.
func (d *Dialect) signed(endpoint string, data any) (string, error) {
	// Both are strings and structs of strings, which always encode.
	header, _ := json.Marshal(joseHeader{Alg: "PS256", Kid: d.KeyID, Typ: "JWT"})
	payload, _ := json.Marshal(requestClaims{Aud: endpoint, Iss: d.Issuer, Jti: uuid.NewString(),
		Iat: time.Now().Unix(), Data: data})
	input := base64.RawURLEncoding.EncodeToString(header) + "." + base64.RawURLEncoding.EncodeToString(payload)
	digest := sha256.Sum256([]byte(input))
	// PS256 is RSASSA-PSS with SHA-256, its MGF1 too, and a salt as long as the hash (RFC 7518,
	// section 3.5).
	signature, err := d.Key.Sign(rand.Reader, digest[:], &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash,
		Hash: crypto.SHA256})
	if err != nil {
		return "", fmt.Errorf("openfinance: signing with Key: %w", err)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(signature), nil
}

// post returns a POST to u of data, signed, under key. The aud of its claims is u without its
// query: the endpoint ([security] item 3).
func (d *Dialect) post(ctx context.Context, u *url.URL, key string, data any) (*http.Request, error) {
	body, err := d.signed(u.Scheme+"://"+u.Host+u.EscapedPath(), data)
	if err != nil {
		return nil, err
	}
	req := newRequest(ctx, http.MethodPost, u)
	req.Body, req.ContentLength = io.NopCloser(strings.NewReader(body)), int64(len(body))
	req.Header.Set("Content-Type", jwtMediaType)
	req.Header.Set("x-idempotency-key", key)
	return req, nil
}

// below returns the URL of the path elem below base, whose segments are escaped. Its path is
// absolute, as the request line needs: JoinPath leaves relative the path below a base URL
// without one.
func below(base *url.URL, elem ...string) *url.URL {
	root := *base
	if root.Path == "" {
		root.Path = "/"
	}
	return root.JoinPath(elem...)
}

// newRequest returns a request of method to u, without a body, and with the headers of every
// request: Accept, and a fresh x-fapi-interaction-id, which the initiator must send ([spec]
// parameter xFapiInteractionId). It is made as http.NewRequestWithContext makes one, without
// parsing u again: a URL that below made has nothing left to refuse.
func newRequest(ctx context.Context, method string, u *url.URL) *http.Request {
	req := &http.Request{Method: method, URL: u, Header: http.Header{}, Body: http.NoBody}
	req.Header.Set("Accept", accept)
	req.Header.Set("x-fapi-interaction-id", uuid.NewString())
	return req.WithContext(ctx)
}
