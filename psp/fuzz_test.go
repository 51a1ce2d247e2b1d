package psp_test

import (
	"math"
	"strconv"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json"

	"pixretry/psp"
)

// FuzzDecodePayment sends arbitrary bodies as payments and checks the answer against an
// independent reading of the contract: 201 exactly when the body is one JSON object of string
// members valor (a valid amount), chave (a Pix key) and optionally infoPagador (at most 140
// characters), in valid UTF-8; otherwise a 400 naming each violation. Run: go test -fuzz FuzzDecodePayment ./psp
func FuzzDecodePayment(f *testing.F) {
	f.Add(validBody)
	f.Add(`{"valor":"0.01","chave":"+5511987654321"}`)
	f.Add(`{"infoPagador":"","chave":"123e4567-e89b-12d3-a456-426614174000","valor":"9999999999.99"}`)
	f.Add(`{"valor":"1.00","chave":"pix@example.com","valor":"1.00"}`)
	for _, r := range rejections {
		if r.body != "" && len(r.body) < 1024 { // the fuzzer minimizes large inputs very slowly
			f.Add(r.body)
		}
	}
	s := mustServer(f, func(c *psp.Config) { c.BalanceCents = math.MaxInt64 })
	var n atomic.Int64
	f.Fuzz(func(t *testing.T, body string) {
		a := pay(s, "fuzz-"+strconv.FormatInt(n.Add(1), 10), body)
		valid, cents := contractAccepts(body)
		switch {
		case a.status == 201 && valid:
			got := mustDecode[receipt](t, a.body)
			if c, err := psp.ParseBalance(got.Valor); err != nil || c != cents {
				t.Errorf("201 with valor %q for %d cents", got.Valor, cents)
			}
		case a.status == 400 && !valid:
			p := wantProblem(t, a, 400, "invalid_request")
			for _, v := range p.Violations {
				if v.Field == "" || v.Reason == "" {
					t.Errorf("violation %+v lacks a field or a reason", v)
				}
			}
			if len(p.Violations) == 0 {
				t.Errorf("400 without violacoes")
			}
		case a.status == 413 && len(body) > psp.MaxBodyBytes:
		default:
			t.Errorf("body %q: answer %d %s, contract accepts it: %v", body, a.status, a.body, valid)
		}
	})
}

// contractAccepts reads body with encoding/json/v2's own rules (valid UTF-8, no unpaired
// surrogate escape, no repeated name) and the contract's field rules.
func contractAccepts(body string) (bool, int64) {
	var members map[string]any
	if json.Unmarshal([]byte(body), &members) != nil || members == nil {
		return false, 0
	}
	valor, ok1 := members["valor"].(string)
	chave, ok2 := members["chave"].(string)
	info, ok3 := members["infoPagador"].(string)
	_, hasInfo := members["infoPagador"]
	cents, err := psp.ParseBalance(valor)
	return ok1 && ok2 && (ok3 || !hasInfo) && len(members) == 2+boolInt(hasInfo) &&
		err == nil && cents > 0 && psp.ValidPixKey(chave) && utf8.RuneCountInString(info) <= 140, cents
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
