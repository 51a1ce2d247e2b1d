package psp

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The header fields and bounds of a payment request. The Server echoes the Idempotency-Key, as
// sent, on every answer once it has been found valid. A replayed answer says so in
// Idempotent-Replayed.
const (
	IdempotencyKeyHeader = "Idempotency-Key"     // the client's key (IETF Idempotency-Key draft)
	replayedHeader       = "Idempotent-Replayed" // "true" on an answer replayed from the key store
	MaxBodyBytes         = 65536                 // the largest body, in bytes (64 KiB)
	maxInfoPagadorLen    = 140                   // the longest infoPagador, in characters (code points)
)

// keyPattern is 1 to 255 visible ASCII characters.
var keyPattern = regexp.MustCompile(`^[\x21-\x7E]{1,255}$`)

// payment is a validated payment request. It is comparable, and two requests with equal
// values are the same payment: it is the fingerprint the key store compares. The amount is
// held in cents, so "0150.00" and "150.00" are the same payment. The text is the one the JSON
// means, so "caf\u00e9" and "café" are the same payment.
type payment struct {
	cents int64
	chave string
	info  string
}

// bearerToken returns the bearer token of h if it is one of the accepted tokens, as configured
// (so stored keys do not keep the header alive).
func (s *Server) bearerToken(h http.Header) (string, *failure) {
	i := s.tokenIndex(h)
	if i < 0 {
		f := fail(codeUnauthorized, "a known bearer token is required in Authorization")
		f.header = http.Header{"Www-Authenticate": {`Bearer realm="psp"`}}
		return "", f
	}
	return s.cfg.Tokens[i], nil
}

// tokenIndex is the index in Config.Tokens of the bearer token of h, or -1 if h carries none or
// an unknown one.
func (s *Server) tokenIndex(h http.Header) int {
	scheme, token, _ := strings.Cut(h.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") { // the scheme is case-insensitive (RFC 9110)
		return -1
	}
	return slices.Index(s.cfg.Tokens, strings.TrimLeft(token, " "))
}

// idempotencyKey reads the Idempotency-Key of h: the value as sent (to echo it) and the key it
// means (see parseKey). There must be exactly one such header.
func idempotencyKey(h http.Header) (raw, key string, f *failure) {
	values := h.Values(IdempotencyKeyHeader)
	if len(values) == 0 {
		return "", "", invalid(codeIdempotencyKeyMissing, Violation{IdempotencyKeyHeader, "required"})
	}
	key, ok := parseKey(values[0])
	if len(values) > 1 || !ok {
		return "", "", invalid(codeIdempotencyKeyInvalid, Violation{IdempotencyKeyHeader,
			"must be one header of 1 to 255 characters from 0x21 to 0x7E, or that quoted as a structured-field string"})
	}
	return values[0], key, nil
}

// parseKey returns the key that value, one Idempotency-Key header, means, and whether it means
// one. A value starting with a double quote is a structured-field string (RFC 8941): `"abc"`
// means abc, `"a\"b"` means a"b. The key must be 1 to 255 characters from 0x21 to 0x7E.
func parseKey(value string) (key string, ok bool) {
	key = value
	if m := sfString.FindStringSubmatch(value); m != nil {
		key = sfUnescape.Replace(m[1])
	} else if strings.HasPrefix(value, `"`) {
		return "", false // a broken structured-field string: a bad escape, no closing quote or more after it
	}
	return key, keyPattern.MatchString(key)
}

// keyOrAsSent is the key that header, the Idempotency-Key as received, means, or header itself
// if it means none: the one form of a key in the journal and its filter.
func keyOrAsSent(header string) string {
	if key, ok := parseKey(header); ok {
		return key
	}
	return header
}

// sfString is a structured-field string (RFC 8941): in double quotes, with \" and \\ the only
// escapes. Its submatch is the content, whose escapes sfUnescape reads.
var (
	sfString   = regexp.MustCompile(`^"((?:[^"\\]|\\["\\])*)"$`)
	sfUnescape = strings.NewReplacer(`\"`, `"`, `\\`, `\`)
)

// readPayment reads and validates the body of a payment request: Content-Type application/json
// (charset utf-8 if any), at most MaxBodyBytes, a valid payment. It returns the body as far as
// it read it.
func readPayment(w http.ResponseWriter, r *http.Request) (payment, []byte, *failure) {
	contentType := r.Header.Get("Content-Type")
	mediaType, params, err := mime.ParseMediaType(contentType)
	if charset, ok := params["charset"]; err != nil || mediaType != jsonContentType ||
		ok && !strings.EqualFold(charset, "utf-8") {
		return payment{}, nil, fail(codeUnsupportedMediaType, "Content-Type must be application/json, got %q", contentType)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge {
		return payment{}, body, fail(codePayloadTooLarge, "the body must be at most %d bytes", MaxBodyBytes)
	}
	if err != nil {
		return payment{}, body, invalid(codeInvalidRequest, Violation{"body", "could not be read: " + err.Error()})
	}
	p, f := decodePayment(body)
	return p, body, f
}

// paymentJSON is a payment body with its members undecoded, the unknown ones together.
type paymentJSON struct {
	Valor       jsontext.Value `json:"valor"`
	Chave       jsontext.Value `json:"chave"`
	InfoPagador jsontext.Value `json:"infoPagador"`
	Unknown     jsontext.Value `json:",embed"`
}

// decodePayment decodes and validates a payment body. The body must be one JSON object, valid
// as RFC 8259 and RFC 7493 say (valid UTF-8, no unpaired surrogate escape, no repeated name),
// or it is one violation of "body". Otherwise every violation is reported: unknown members by
// name, then valor, chave and infoPagador.
func decodePayment(body []byte) (payment, *failure) {
	var pj paymentJSON
	err := json.Unmarshal(body, &pj)
	if syntax, ok := errors.AsType[*jsontext.SyntacticError](err); ok {
		return payment{}, invalid(codeInvalidRequest, Violation{"body", "is not valid JSON: " + notJSON(syntax)})
	}
	if err != nil || jsontext.Value(body).Kind() != '{' {
		return payment{}, invalid(codeInvalidRequest, Violation{"body", "must be a JSON object"})
	}
	var unknown map[string]jsontext.Value
	json.Unmarshal(pj.Unknown, &unknown) // an object's members, or nil for none
	var bad []Violation
	for _, name := range slices.Sorted(maps.Keys(unknown)) {
		bad = append(bad, Violation{cmp.Or(name, `""`), unknownMember}) // "" shows an empty name
	}
	valor, bad := readString(bad, "valor", pj.Valor, true)
	chave, bad := readString(bad, "chave", pj.Chave, true)
	info, bad := readString(bad, "infoPagador", pj.InfoPagador, false)
	if len(bad) > 0 {
		return payment{}, invalid(codeInvalidRequest, bad...)
	}
	cents, _ := ParseBalance(valor) // valorViolation has accepted it
	return payment{cents: cents, chave: chave, info: info}, nil
}

// unknownMember is the reason of a member a payment does not have.
const unknownMember = "unknown member: a payment has valor, chave and infoPagador"

// notJSON says why a body is not JSON, and at which byte, in the words of JSON: the cause
// that package jsontext found, without its wrapping, which names the package.
func notJSON(syntax *jsontext.SyntacticError) string {
	why := syntax.Err.Error()
	switch {
	case errors.Is(syntax.Err, io.ErrUnexpectedEOF):
		why = "it ends too soon"
	case errors.Is(syntax.Err, jsontext.ErrDuplicateName):
		why = "member " + strconv.Quote(syntax.JSONPointer.LastToken()) + " is repeated"
	}
	return fmt.Sprintf("%s, at byte %d", why, syntax.ByteOffset)
}

// readString returns the text of the member name, whose value is raw (nil if absent), and bad
// with a violation appended if it is missing but required, is not a JSON string or is not a
// good value of the member.
func readString(bad []Violation, name string, raw jsontext.Value, required bool) (string, []Violation) {
	var s string
	reason := "must be a JSON string"
	switch {
	case raw == nil && !required:
		return "", bad
	case raw == nil:
		reason = "required"
	case raw.Kind() == '"':
		json.Unmarshal(raw, &s) // a valid JSON string
		reason = textViolation(name, s)
	}
	if reason != "" {
		bad = append(bad, Violation{name, reason})
	}
	return s, bad
}

// textViolation returns why s is not a good value of the member name, or "".
func textViolation(name, s string) string {
	cents, err := ParseBalance(s)
	switch {
	case name == "valor" && err != nil:
		return `must match ^\d{1,10}\.\d{2}$, as in "150.00"`
	case name == "valor" && cents == 0:
		return "must be greater than zero"
	case name == "chave" && !validPixKey(s):
		return "must be a Pix key: CPF (11 digits), CNPJ (14 digits), phone (+ and up to 15 digits), " +
			"e-mail (lower case, at most 77 characters) or EVP (lower-case UUID)"
	case name == "infoPagador" && utf8.RuneCountInString(s) > maxInfoPagadorLen:
		return "must be at most 140 characters"
	}
	return ""
}

// ParseBalance converts an amount in the valor format of the HTTP contract to cents. The format
// is 1 to 10 ASCII digits, a dot and exactly 2 digits (`^\d{1,10}\.\d{2}$`), so "150.00" is
// 15000. Leading zeros are allowed, and "0.00" is 0. Any other string is an error.
func ParseBalance(s string) (cents int64, err error) {
	reais, centavos, _ := strings.Cut(s, ".")
	if len(reais) < 1 || len(reais) > 10 || len(centavos) != 2 || strings.Trim(reais+centavos, "0123456789") != "" {
		return 0, fmt.Errorf("psp: amount %q is not 1 to 10 digits, a dot and 2 digits", s)
	}
	return strconv.ParseInt(reais+centavos, 10, 64) // at most 12 digits: no overflow
}

// FormatAmount writes cents in the valor format, so 15000 is "150.00" and 5 is "0.05". A
// negative amount gets a leading minus sign, which ParseBalance does not accept.
func FormatAmount(cents int64) string {
	sign, abs := "", uint64(cents)
	if cents < 0 {
		sign, abs = "-", -abs // unsigned negation is exact even for math.MinInt64
	}
	return fmt.Sprintf("%s%d.%02d", sign, abs/100, abs%100)
}

// maxEmailKeyLen is the longest e-mail Pix key, in bytes.
const maxEmailKeyLen = 77

// The Pix key formats of the Central Bank's DICT. Check digits of CPF and CNPJ are not
// verified: the simulator checks the shape a client must send, not the registry.
var (
	cpfPattern   = regexp.MustCompile(`^\d{11}$`)
	cnpjPattern  = regexp.MustCompile(`^\d{14}$`)
	phonePattern = regexp.MustCompile(`^\+[1-9]\d{1,14}$`)
	emailPattern = regexp.MustCompile("^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?" +
		`(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$`)
	evpPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// validPixKey reports whether k is a Pix key in one of the five formats. They are CPF (11
// digits), CNPJ (14 digits), phone in E.164 ("+5511987654321"), e-mail (lower case, at most 77
// characters) and EVP (a random key, a lower-case UUID). Digits are ASCII digits.
func validPixKey(k string) bool {
	return cpfPattern.MatchString(k) || cnpjPattern.MatchString(k) ||
		phonePattern.MatchString(k) || evpPattern.MatchString(k) ||
		len(k) <= maxEmailKeyLen && emailPattern.MatchString(k)
}
