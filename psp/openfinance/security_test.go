package openfinance_test

import (
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"testing/synctest"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-json-experiment/json"
	"github.com/google/uuid"

	"pixretry/psp"
	"pixretry/psp/openfinance"
)

func TestInteractionID(t *testing.T) {
	for _, tc := range []struct {
		name, value, code, detail string
	}{
		{"missing", "", "PARAMETRO_NAO_INFORMADO", "the header x-fapi-interaction-id is required"},
		{"not a UUID", "d78fc4e5-37ca-4da3-adf2-9b082bf9228", "PARAMETRO_INVALIDO",
			"the header x-fapi-interaction-id must be a UUID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := mustBank(t, nil)
				for _, r := range []*http.Request{
					signedRequest(openfinance.PaymentsPath, "k1", claimsFor(openfinance.PaymentsPath, nil)),
					request(http.MethodGet, openfinance.ConsentsPath+"/urn:x:y", ""),
				} {
					r.Header.Set("x-fapi-interaction-id", tc.value)
					a := b.serve(r)
					wantError(t, r.Method+" "+r.URL.Path, a, http.StatusBadRequest, tc.code, tc.detail)
					if got := a.header.Get("x-fapi-interaction-id"); uuid.Validate(got) != nil || got == tc.value {
						t.Errorf("x-fapi-interaction-id = %q, want a UUID made up", got)
					}
				}
			})
		})
	}
}

func TestBearerTokenRequired(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		for _, r := range []*http.Request{
			signedRequest(openfinance.ConsentsPath, "k1", claimsFor(openfinance.ConsentsPath, consentData())),
			signedRequest(openfinance.PaymentsPath, "k1", claimsFor(openfinance.PaymentsPath, nil)),
			request(http.MethodGet, openfinance.ConsentsPath+"/urn:x:y", ""),
			request(http.MethodGet, openfinance.PaymentsPath+"/p1", ""),
		} {
			for _, auth := range []string{"", "Basic dGVzdA==", "Bearer "} {
				r.Header.Set("Authorization", auth)
				wantError(t, r.Method+" "+r.URL.Path+" with "+auth, b.serve(r), http.StatusUnauthorized,
					"UNAUTHORIZED", "a bearer token is required in Authorization")
			}
		}
	})
}

func TestTokenThePSPRefuses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		r := signedRequest(openfinance.ConsentsPath, "c1", claimsFor(openfinance.ConsentsPath, consentData()))
		r.Header.Set("Authorization", "Bearer unknown")
		consent := b.serve(r).claims["data"].(map[string]any)["consentId"].(string)
		r = signedRequest(openfinance.PaymentsPath, "k1", claimsFor(openfinance.PaymentsPath, paymentData(consent)))
		r.Header.Set("Authorization", "Bearer unknown")
		a := b.serve(r)
		wantError(t, "POST payment", a, http.StatusUnauthorized, "UNAUTHORIZED",
			"a known bearer token is required in Authorization")
		if got, want := a.header.Get("WWW-Authenticate"), `Bearer realm="psp"`; got != want {
			t.Errorf("WWW-Authenticate = %q, want %q", got, want)
		}
	})
}

func TestContentTypeMustBeJWT(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		for _, ct := range []string{"application/json", "", "application/jwt; charset"} {
			r := signedRequest(openfinance.PaymentsPath, "k1", claimsFor(openfinance.PaymentsPath, nil))
			r.Header.Set("Content-Type", ct)
			wantError(t, "POST with Content-Type "+ct, b.serve(r), http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE",
				`Content-Type must be application/jwt, got "`+ct+`"`)
		}
	})
}

func TestIdempotencyKeyFormat(t *testing.T) {
	const invalid = "the header x-idempotency-key must be one value of 1 to 40 printable ASCII characters, " +
		"the first and the last not a space"
	for _, tc := range []struct {
		name   string
		values []string
		detail string // "" for a key accepted
	}{
		{"40 characters", []string{strings.Repeat("k", 40)}, ""},
		{"a space inside", []string{"a b"}, ""},
		{"a tilde", []string{"~!"}, ""},
		{"missing", nil, "the header x-idempotency-key is required"},
		{"empty", []string{""}, "the header x-idempotency-key is required"},
		{"41 characters", []string{strings.Repeat("k", 41)}, invalid},
		{"a leading space", []string{" k"}, invalid},
		{"a trailing space", []string{"k "}, invalid},
		{"a tab", []string{"a\tb"}, invalid},
		{"a tab first", []string{"\tk"}, invalid},
		{"not ASCII", []string{"chave-é"}, invalid},
		{"a DEL", []string{"a\x7f"}, invalid},
		{"two headers", []string{"k1", "k2"}, invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := mustBank(t, nil)
				r := signedRequest(openfinance.ConsentsPath, "", claimsFor(openfinance.ConsentsPath, consentData()))
				r.Header.Del("x-idempotency-key")
				for _, v := range tc.values {
					r.Header.Add("x-idempotency-key", v)
				}
				a := b.serve(r)
				switch {
				case tc.detail == "" && a.status != http.StatusCreated:
					t.Errorf("POST consents = %d %s, want 201", a.status, a.body)
				case tc.detail == "":
				case tc.values == nil || tc.values[0] == "":
					wantError(t, "POST consents", a, http.StatusBadRequest, "PARAMETRO_NAO_INFORMADO", tc.detail)
				default:
					wantError(t, "POST consents", a, http.StatusBadRequest, "PARAMETRO_INVALIDO", tc.detail)
				}
			})
		})
	}
}

func TestKeysThePSPCannotHoldAreEncoded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		for key, want := range map[string]string{`a b`: `a%20b`, `50%`: `50%25`, `"q"`: `%22q%22`, `q"`: `q%22`} {
			consent := b.mustConsent(consentData())
			paymentID(t, b.pay(key, paymentData(consent)))
			settled := b.core.LatestSettlements(1)
			if got := settled[0].IdempotencyKey; got != want {
				t.Errorf("key %q: the PSP holds %q, want %q", key, got, want)
			}
		}
	})
}

func TestBodyUnreadable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		r := request(http.MethodPost, openfinance.PaymentsPath, strings.Repeat("a", 65537))
		r.Header.Set("x-idempotency-key", "k1")
		wantError(t, "POST a body of 65537 bytes", b.serve(r), http.StatusBadRequest, "PARAMETRO_INVALIDO",
			"the body must be at most 65536 bytes")
		r = request(http.MethodPost, openfinance.PaymentsPath, strings.Repeat("a", 65536))
		r.Header.Set("x-idempotency-key", "k1")
		wantError(t, "POST a body of 65536 bytes", b.serve(r), http.StatusBadRequest, "BAD_SIGNATURE",
			"the body is not a JWS in compact serialization")
		r = request(http.MethodPost, openfinance.PaymentsPath, "x")
		r.Header.Set("x-idempotency-key", "k1")
		r.Body = io.NopCloser(iotest.ErrReader(errors.New("broken")))
		wantError(t, "POST a body that breaks", b.serve(r), http.StatusBadRequest, "PARAMETRO_INVALIDO",
			"the body could not be read: broken")
	})
}

func TestSignatureRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		claims := claimsFor(openfinance.PaymentsPath, nil)
		foreign := jose.JSONWebKey{Key: otherKey, KeyID: "client-1"}
		for _, tc := range []struct {
			name, body, detail string
		}{
			{"not a JWS", "hello", "the body is not a JWS in compact serialization"},
			{"a JWS in JSON", `{"payload":"e30","signatures":[]}`, "the body is not a JWS in compact serialization"},
			{"RS256", sign(claims, jose.RS256, clientJWK()), `the JWS must be signed with PS256, not "RS256"`},
			{"no kid", sign(claims, jose.PS256, jose.JSONWebKey{Key: clientKey}), `the JWS's kid "" names no key the PSP trusts`},
			{"an unknown kid", sign(claims, jose.PS256, jose.JSONWebKey{Key: clientKey, KeyID: "client-2"}),
				`the JWS's kid "client-2" names no key the PSP trusts`},
			{"another key", sign(claims, jose.PS256, foreign), `the JWS's signature does not verify with the key "client-1"`},
			{"a payload changed", tampered(sign(claims, jose.PS256, clientJWK())),
				`the JWS's signature does not verify with the key "client-1"`},
		} {
			r := request(http.MethodPost, openfinance.PaymentsPath, tc.body)
			r.Header.Set("x-idempotency-key", "k1")
			wantError(t, tc.name, b.serve(r), http.StatusBadRequest, "BAD_SIGNATURE", tc.detail)
		}
		if st := b.core.Stats(); st.Requests != 0 {
			t.Errorf("Stats().Requests = %d, want 0", st.Requests)
		}
	})
}

// tampered is jws with its payload replaced, its signature kept.
func tampered(jws string) string {
	parts := strings.Split(jws, ".")
	return parts[0] + ".e30." + parts[2]
}

func TestClaimsRefused(t *testing.T) {
	const endpoint = "http://" + host + openfinance.PaymentsPath
	for _, tc := range []struct {
		name   string
		edit   func(map[string]any)
		detail string // "" for claims accepted: the payment is refused later for its data
	}{
		{"aud an array holding the endpoint", func(c map[string]any) { c["aud"] = []any{"x", endpoint} }, ""},
		{"iat 60 s ahead", func(c map[string]any) { c["iat"] = time.Now().Unix() + 60 }, ""},
		{"iat 60 s behind", func(c map[string]any) { c["iat"] = time.Now().Unix() - 60 }, ""},
		{"iat with a fraction", func(c map[string]any) { c["iat"] = float64(time.Now().Unix()) + 0.5 }, ""},
		{"no aud", func(c map[string]any) { delete(c, "aud") }, `aud must be "` + endpoint + `", the endpoint's URL`},
		{"aud another endpoint", func(c map[string]any) { c["aud"] = "http://" + host + openfinance.ConsentsPath },
			`aud must be "` + endpoint + `", the endpoint's URL`},
		{"aud an array without it", func(c map[string]any) { c["aud"] = []any{"x"} },
			`aud must be "` + endpoint + `", the endpoint's URL`},
		{"no iss", func(c map[string]any) { delete(c, "iss") }, `iss must be "pixretry-initiator", the initiator's organisationId`},
		{"iss another", func(c map[string]any) { c["iss"] = "someone" }, `iss must be "pixretry-initiator", the initiator's organisationId`},
		{"iat 61 s ahead", func(c map[string]any) { c["iat"] = time.Now().Unix() + 61 },
			"iat must be a NumericDate within 1m0s of the PSP's clock, 946684800"},
		{"iat 61 s behind", func(c map[string]any) { c["iat"] = time.Now().Unix() - 61 },
			"iat must be a NumericDate within 1m0s of the PSP's clock, 946684800"},
		{"iat 60.5 s ahead", func(c map[string]any) { c["iat"] = float64(time.Now().Unix()) + 60.5 },
			"iat must be a NumericDate within 1m0s of the PSP's clock, 946684800"},
		{"iat a string", func(c map[string]any) { c["iat"] = "946684800" },
			"iat must be a NumericDate within 1m0s of the PSP's clock, 946684800"},
		{"iat huge", func(c map[string]any) { c["iat"] = 1e300 },
			"iat must be a NumericDate within 1m0s of the PSP's clock, 946684800"},
		{"no iat", func(c map[string]any) { delete(c, "iat") },
			"iat must be a NumericDate within 1m0s of the PSP's clock, 946684800"},
		{"no jti", func(c map[string]any) { delete(c, "jti") }, "jti must be a non-empty string"},
		{"jti empty", func(c map[string]any) { c["jti"] = "" }, "jti must be a non-empty string"},
		{"jti a number", func(c map[string]any) { c["jti"] = 7 }, "jti must be a non-empty string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := mustBank(t, nil)
				claims := claimsFor(openfinance.PaymentsPath, nil)
				delete(claims, "data")
				tc.edit(claims)
				a := b.serve(signedRequest(openfinance.PaymentsPath, "k1", claims))
				if tc.detail == "" {
					wantError(t, "POST payment", a, http.StatusUnprocessableEntity, "PARAMETRO_NAO_INFORMADO", "data is required")
				} else {
					wantError(t, "POST payment", a, http.StatusForbidden, "INVALID_CLIENT", tc.detail)
				}
			})
		})
	}
}

func TestClaimsNotAnObject(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		r := request(http.MethodPost, openfinance.PaymentsPath, signPayload("[1]", jose.PS256, clientJWK()))
		r.Header.Set("x-idempotency-key", "k1")
		wantError(t, "POST payment", b.serve(r), http.StatusForbidden, "INVALID_CLIENT",
			"the JWS's payload is not a JSON object of claims")
	})
}

func TestJTIRefusedWithin24Hours(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		consent := b.mustConsent(consentData())
		claims := claimsFor(openfinance.PaymentsPath, paymentData(consent))
		jti := claims["jti"].(string)
		paymentID(t, b.serve(signedRequest(openfinance.PaymentsPath, "k1", claims)))
		reused := claimsFor(openfinance.ConsentsPath, consentData())
		reused["jti"] = jti
		time.Sleep(24*time.Hour - time.Second)
		reused["iat"] = time.Now().Unix()
		wantError(t, "POST consents with a jti of 23h59m59s ago", b.serve(signedRequest(openfinance.ConsentsPath, "c1", reused)),
			http.StatusForbidden, "INVALID_CLIENT", `jti "`+jti+`" was used within 24h0m0s`)
		time.Sleep(time.Second)
		reused["iat"] = time.Now().Unix()
		if a := b.serve(signedRequest(openfinance.ConsentsPath, "c1", reused)); a.status != http.StatusCreated {
			t.Errorf("POST consents with a jti of 24h ago = %d %s, want 201", a.status, a.body)
		}
	})
}

func TestJTIStoreBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, func(_ *psp.Config, c *openfinance.Config) { c.MaxJTIs = 2 })
		first := claimsFor(openfinance.ConsentsPath, consentData())
		b.serve(signedRequest(openfinance.ConsentsPath, "c1", first))
		time.Sleep(time.Hour)
		b.post(openfinance.ConsentsPath, "c2", consentData())
		wantError(t, "POST consents with a third jti", b.post(openfinance.ConsentsPath, "c3", consentData()),
			529, "SITE_IS_OVERLOADED", "the PSP holds 2 jtis, its limit, and none has expired; retry later")
		first["iat"] = time.Now().Unix()
		wantError(t, "POST consents with a jti held", b.serve(signedRequest(openfinance.ConsentsPath, "c1", first)),
			http.StatusForbidden, "INVALID_CLIENT", `jti "`+first["jti"].(string)+`" was used within 24h0m0s`)
		time.Sleep(23 * time.Hour) // the first jti expires
		if a := b.post(openfinance.ConsentsPath, "c3", consentData()); a.status != http.StatusCreated {
			t.Errorf("POST consents once a jti expired = %d %s, want 201", a.status, a.body)
		}
		wantError(t, "POST consents with a fourth jti", b.post(openfinance.ConsentsPath, "c4", consentData()),
			529, "SITE_IS_OVERLOADED", "the PSP holds 2 jtis, its limit, and none has expired; retry later")
	})
}

func TestAudOverTLSIsHTTPS(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		claims := claimsFor(openfinance.ConsentsPath, consentData())
		for _, aud := range []string{"https://" + host + openfinance.ConsentsPath, "http://" + host + openfinance.ConsentsPath} {
			claims["aud"], claims["jti"] = aud, uuid.NewString()
			r := signedRequest(openfinance.ConsentsPath, "c1", claims)
			r.TLS = &tls.ConnectionState{}
			a := b.serve(r)
			if strings.HasPrefix(aud, "https:") && a.status != http.StatusCreated {
				t.Errorf("POST consents over TLS for aud %s = %d %s, want 201", aud, a.status, a.body)
			}
			if strings.HasPrefix(aud, "http:") {
				wantError(t, "POST consents over TLS for aud "+aud, a, http.StatusForbidden, "INVALID_CLIENT",
					`aud must be "https://`+host+openfinance.ConsentsPath+`", the endpoint's URL`)
			}
		}
	})
}

// TestBearerTokenAfterSeveralSpaces: Authorization may hold spaces between Bearer and the
// token.
func TestBearerTokenAfterSeveralSpaces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		id := b.mustConsent(consentData())
		r := request(http.MethodGet, openfinance.ConsentsPath+"/"+id, "")
		r.Header.Set("Authorization", "Bearer   "+token)
		if a := b.serve(r); a.status != http.StatusOK {
			t.Errorf("GET consent with three spaces = %d %s, want 200", a.status, a.body)
		}
	})
}

// TestAPathThatOnlyBeginsLikeOneIs404: a path that continues a served one without a slash
// names no resource.
func TestAPathThatOnlyBeginsLikeOneIs404(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		for _, path := range []string{openfinance.ConsentsPath + "x", openfinance.PaymentsPath + "x"} {
			wantError(t, "GET "+path, b.get(path), http.StatusNotFound, "NOT_FOUND", "no resource at "+path)
		}
	})
}

// TestAnswersNameTheDefaultOrganisations: with a zero Config, the double signs as
// pixretry-psp, for pixretry-initiator.
func TestAnswersNameTheDefaultOrganisations(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := mustBank(t, nil)
		a := b.serve(signedRequest(openfinance.ConsentsPath, "k1", claimsFor(openfinance.ConsentsPath, consentData())))
		sig, err := jose.ParseSignedCompact(a.body, []jose.SignatureAlgorithm{jose.PS256})
		if err != nil {
			t.Fatalf("POST consents = %d %s: %v", a.status, a.body, err)
		}
		var claims struct {
			Iss string `json:"iss"`
			Aud string `json:"aud"`
		}
		json.Unmarshal(sig.UnsafePayloadWithoutVerification(), &claims)
		if claims.Iss != "pixretry-psp" || claims.Aud != "pixretry-initiator" {
			t.Errorf("iss, aud = %q, %q, want pixretry-psp, pixretry-initiator", claims.Iss, claims.Aud)
		}
	})
}
