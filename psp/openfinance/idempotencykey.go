package openfinance

import (
	"fmt"
	"net/http"
	"strings"
)

// maxKeyLen is the longest x-idempotency-key, in characters (4.1.0.yml, XIdempotencyKey).
const maxKeyLen = 40

// idempotencyKey reads the x-idempotency-key of r: one header of 1 to 40 characters, the first
// and the last not a space, as the spec's pattern ^(?!\s)(.*)(\S)$ says. The double takes the
// characters of printable ASCII only, space included, so that the psp.Server can hold the key
// (see coreKey).
func idempotencyKey(r *http.Request) (string, *apiError) {
	values := r.Header.Values(keyHeader)
	if len(values) == 0 || values[0] == "" && len(values) == 1 {
		return "", errorf(http.StatusBadRequest, codeNotInformed, "the header %s is required", keyHeader)
	}
	key := values[0]
	printable := strings.IndexFunc(key, func(c rune) bool { return c < ' ' || c > '~' }) < 0
	if len(values) > 1 || len(key) > maxKeyLen || !printable || key[0] == ' ' || key[len(key)-1] == ' ' {
		return "", errorf(http.StatusBadRequest, codeInvalidParameter, "the header %s must be one value of 1 to %d "+
			"printable ASCII characters, the first and the last not a space", keyHeader, maxKeyLen)
	}
	return key, nil
}

// coreKey is key as the psp.Server's Idempotency-Key holds it: its spaces, percent signs and
// double quotes percent-encoded, since the Server's keys hold no space and read a leading
// double quote as a quoted string. Two keys never share a coreKey, and a key of letters,
// digits and hyphens, such as a UUID, is its own coreKey.
func coreKey(key string) string {
	var b strings.Builder
	for _, c := range []byte(key) {
		if c == ' ' || c == '%' || c == '"' {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
