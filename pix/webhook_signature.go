package pix

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// signatureHeader is the header that signs a delivery: t=<unix seconds>,v1=<hex HMAC-SHA256>.
const signatureHeader = "Pix-Signature"

// signatureTolerance is how far from the handler's clock a delivery's t may be, either way. It
// bounds how long a captured delivery can be replayed.
const signatureTolerance = 300 * time.Second

// errSignatureForm is the error of a Pix-Signature header that is absent or not in its form.
var errSignatureForm = errors.New(`pix: Pix-Signature must be "t=<unix seconds>,v1=<hex HMAC-SHA256 of <t>.<body>>"`)

// verify returns nil if header, a delivery's Pix-Signature, signs body under h.Secret at a time
// t within signatureTolerance of h's clock. Otherwise its error says what is wrong.
func (h WebhookHandler) verify(header string, body []byte) error {
	sig, err := parseSignature(header)
	if err != nil {
		return err
	}
	mac := hmac.New(sha256.New, h.Secret)
	mac.Write([]byte(sig.t + "."))
	mac.Write(body)
	if !sig.signs(mac.Sum(nil)) {
		return errors.New("pix: Pix-Signature's v1 does not sign the body under the webhook secret")
	}
	now := time.Now
	if h.Now != nil {
		now = h.Now
	}
	age := now().Sub(time.Unix(sig.secs, 0))
	switch {
	case age > signatureTolerance:
		return fmt.Errorf("pix: Pix-Signature's t=%s is %v ago, more than %v", sig.t, age.Round(time.Second),
			signatureTolerance)
	case age < -signatureTolerance:
		return fmt.Errorf("pix: Pix-Signature's t=%s is %v ahead, more than %v", sig.t, -age.Round(time.Second),
			signatureTolerance)
	}
	return nil
}

// signature is a Pix-Signature header, read.
type signature struct {
	t    string   // as written, which the MAC covers
	secs int64    // t, unix seconds
	v1   [][]byte // the MACs, decoded from hex
}

// parseSignature reads a Pix-Signature header. It has one t, digits that an int64 holds, and
// at least one v1 of hex digits. Members other than t and v1 are ignored.
func parseSignature(header string) (signature, error) {
	var sig signature
	for member := range strings.SplitSeq(header, ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(member), "=")
		switch name {
		case "t":
			secs, err := strconv.ParseUint(value, 10, 63) // no sign, unlike ParseInt
			if sig.t != "" || err != nil {
				return signature{}, errSignatureForm
			}
			sig.t, sig.secs = value, int64(secs)
		case "v1":
			mac, err := hex.DecodeString(value)
			if err != nil || len(mac) == 0 {
				return signature{}, errSignatureForm
			}
			sig.v1 = append(sig.v1, mac)
		}
	}
	if sig.t == "" || len(sig.v1) == 0 {
		return signature{}, errSignatureForm
	}
	return sig, nil
}

// signs reports whether one of the signature's MACs is want, comparing each with hmac.Equal,
// in constant time.
func (sig signature) signs(want []byte) bool {
	found := false
	for _, mac := range sig.v1 {
		found = hmac.Equal(mac, want) || found
	}
	return found
}
