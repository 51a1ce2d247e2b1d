package main

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-jose/go-jose/v4"

	"pixretry/pix"
	ofpsp "pixretry/psp/openfinance"
)

// serving is h with GET path answered status and body instead.
func serving(h http.Handler, path string, status int, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != path {
			h.ServeHTTP(w, r)
			return
		}
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	})
}

// publicAsClientKey is h serving its public keys (JWKSPath) at ClientKeyPath too.
func publicAsClientKey(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == ofpsp.ClientKeyPath {
			r.URL.Path = ofpsp.JWKSPath
		}
		h.ServeHTTP(w, r)
	})
}

// privateKeySet is a JWK Set of n copies of a private RSA key of bits, under the kid "k".
func privateKeySet(t *testing.T, bits, n int) string {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		t.Fatal(err)
	}
	var set jose.JSONWebKeySet
	for range n {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: key, KeyID: "k", Algorithm: "PS256", Use: "sig"})
	}
	body, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// An Open Finance PSP that hands out no usable keys stops the demo before any payment, with an
// error that says which keys and why.
func TestDemoNeedsTheKeysTheOpenFinancePSPHandsOut(t *testing.T) {
	small, two := privateKeySet(t, 1024, 1), privateKeySet(t, 2048, 2)
	tests := []struct {
		name  string
		psp   func(http.Handler) http.Handler
		wants string // the error, with URL for the PSP's base URL
	}{
		{"no client key", func(h http.Handler) http.Handler {
			return serving(h, ofpsp.ClientKeyPath, http.StatusNotFound, "")
		}, "demo: fetching keys: GET URL/_psp/openfinance/client-key.json: status 404, want 200"},
		{"keys that are no JWK Set", func(h http.Handler) http.Handler {
			return serving(h, ofpsp.JWKSPath, http.StatusOK, "[]")
		}, "demo: fetching keys: GET URL/_psp/openfinance/jwks.json: not a JWK Set: " +
			"json: cannot unmarshal array into Go value of type jose.JSONWebKeySet"},
		{"an empty JWK Set", func(h http.Handler) http.Handler {
			return serving(h, ofpsp.JWKSPath, http.StatusOK, `{"keys":[]}`)
		}, "demo: fetching keys: GET URL/_psp/openfinance/jwks.json: the JWK Set holds no key"},
		{"a public client key", publicAsClientKey,
			"demo: URL/_psp/openfinance/client-key.json holds 1 keys, want one private key"},
		{"two client keys", func(h http.Handler) http.Handler {
			return serving(h, ofpsp.ClientKeyPath, http.StatusOK, two)
		}, "demo: URL/_psp/openfinance/client-key.json holds 2 keys, want one private key"},
		{"a client key too small", func(h http.Handler) http.Handler {
			return serving(h, ofpsp.ClientKeyPath, http.StatusOK, small)
		}, "demo: the keys of the PSP at URL: openfinance: invalid Dialect: Key has 1024 bits, want 2048 or more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := mustPSPIn(t, openfinanceDialect, tt.psp)
				out, err := runDemoIn(t, openfinanceDialect, p, 1, false)
				if want := strings.ReplaceAll(tt.wants, "URL", p.URL); fmt.Sprint(err) != want {
					t.Errorf("demo() error = %v, want %s", err, want)
				}
				if st := p.Stats(); out != "" || st.Requests != 0 {
					t.Errorf("output %q, %d payment requests; want neither", out, st.Requests)
				}
			})
		})
	}
}

// A consent the PSP refuses stops the demo at the scenario whose payment needed it, before the
// payment is sent.
func TestDemoStopsWithoutAConsent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		refuse := func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == ofpsp.ConsentsPath {
					http.Error(w, "no consents today", http.StatusServiceUnavailable)
					return
				}
				h.ServeHTTP(w, r)
			})
		}
		p := mustPSPIn(t, openfinanceDialect, refuse)
		_, err := runDemoIn(t, openfinanceDialect, p, 1, false)
		want := "demo: scenario 1 (the PSP answers on the first attempt): pix: PSP answered 503"
		pe, ok := errors.AsType[*pix.Error](err)
		if fmt.Sprint(err) != want || !ok || pe.StatusCode() != http.StatusServiceUnavailable || p.Stats().Requests != 0 {
			t.Errorf("demo() error = %v, %d payment requests; want %q, a *pix.Error of 503, and none",
				err, p.Stats().Requests, want)
		}
	})
}

// The keys live beside the control API, so the demo fetches them with the control token, for a
// PSP that guards them with it. Without the token, the PSP refuses them.
func TestDemoFetchesTheKeysWithTheControlToken(t *testing.T) {
	for _, token := range []string{"ctl", ""} {
		t.Run(fmt.Sprintf("token %q", token), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				guard := func(h http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if strings.HasPrefix(r.URL.Path, "/_psp/openfinance/") && r.Header.Get("Authorization") != "Bearer ctl" {
							http.Error(w, "unauthorized", http.StatusUnauthorized)
							return
						}
						h.ServeHTTP(w, r)
					})
				}
				p := mustPSPIn(t, openfinanceDialect, guard)
				var out strings.Builder
				err := demo(t.Context(), &target{BaseURL: p.URL, Dialect: openfinanceDialect, Token: p.Token,
					ControlToken: token, Seed: 1, Transport: p.Transport(), Out: &out})
				time.Sleep(lateBy) // scenario 3's late answer, as runDemo waits it out
				want := "<nil>"
				if token == "" {
					want = "demo: fetching keys: GET " + p.URL + "/_psp/openfinance/client-key.json: status 401, want 200"
				}
				if got := fmt.Sprint(err); got != want {
					t.Errorf("demo() error = %s, want %s\noutput:\n%s", got, want, out.String())
				}
			})
		})
	}
}
