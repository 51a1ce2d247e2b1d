package main

import (
	"strconv"
	"strings"
	"testing"

	"pixretry/tools/internal/mutant"
)

const schemaSource = `package p

type Kind string

func f(k Kind, ok bool) (Kind, bool) {
	if ok {
		k = "a"
	} else {
		k = Kind("b")
	}
	return k, true
}
`

// The schema wraps each mutated span, nested spans inside out, so that with every switch off
// it is the source, and with one on it is that mutant.
func TestSchemaWrapsEveryMutantOfAFile(t *testing.T) {
	ms, err := mutant.Extended("p.go", []byte(schemaSource))
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, len(ms))
	for i := range ms {
		all[i] = i
	}
	conv := map[int]string{strings.Index(schemaSource, `"a"`): "Kind", strings.Index(schemaSource, `"b"`): ""}
	got := string(schemaOf([]byte(schemaSource), ms, all, conv))
	n := func(op, text string) string {
		for i, m := range ms {
			if m.Op == op && m.Text == text {
				return strconv.Itoa(i)
			}
		}
		t.Fatalf("no %s mutant of %s", op, text)
		return ""
	}
	for _, want := range []string{
		"{ if mutantOn(" + n(mutant.OpZeroBody, "body") + ") { var zero0 Kind; var zero1 bool; return zero0, zero1 }; ",
		"if (!mutantOn(" + n(mutant.OpIfFalse, "ok") + ") && ((mutantOn(" + n(mutant.OpIfTrue, "ok") + ") || (ok)))) {",
		"if !mutantOn(" + n(mutant.OpRemove, `k = "a"`) + `) { k = Kind(mutantString(` + n(mutant.OpEmptyString, `"a"`) + `, "a")) }`,
		"else { if !mutantOn(" + n(mutant.OpEmptyElse, `else k = Kind("b")`) + ") {",
		`k = Kind(mutantString(` + n(mutant.OpEmptyString, `"b"`) + `, "b"))`,
		"return k, (true != mutantOn(" + n(mutant.OpFlipBool, "true") + "))",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("schema lacks %q:\n%s", want, got)
		}
	}
}
