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
	got := string(schemaOf([]byte(schemaSource), ms, all, conv, 0))
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

const tokenSource = `package p

func g(a, b int, ok bool) int {
	for a < b && ok {
		a += 2
		b--
		break
	}
	return -a * b
}
`

// gremlins' mutants of a token switch the whole expression or statement, rendered with each
// token, and their operands keep their own schemata.
func TestSchemaSwitchesEveryTokenOfAFile(t *testing.T) {
	ms, err := bothFamilies("p.go", []byte(tokenSource))
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, len(ms))
	for i := range ms {
		all[i] = i
	}
	conv := map[int]string{strings.Index(tokenSource, "-a"): "int", strings.Index(tokenSource, "* b"): "int"}
	got := string(schemaOf([]byte(tokenSource), ms, all, conv, 100))
	n := func(op, text string) string {
		for i, m := range ms {
			if m.Op == op && m.Text == text {
				return strconv.Itoa(100 + i)
			}
		}
		t.Fatalf("no %s mutant of %s", op, text)
		return ""
	}
	less := "(mutantOn(" + n("CONDITIONALS_BOUNDARY", "a «<» b") + ") && (a <= b) || !mutantOn(" +
		n("CONDITIONALS_BOUNDARY", "a «<» b") + ") && (mutantOn(" + n("CONDITIONALS_NEGATION", "a «<» b") +
		") && (a >= b) || !mutantOn(" + n("CONDITIONALS_NEGATION", "a «<» b") + ") && (a < b)))"
	for _, want := range []string{
		"for (mutantOn(" + n("INVERT_LOGICAL", "a < b «&&» ok") + ") && (" + less + " || ok) || !mutantOn(" +
			n("INVERT_LOGICAL", "a < b «&&» ok") + ") && (" + less + " && ok)) {",
		"if mutantOn(" + n("INVERT_ASSIGNMENTS", "a «+=» 2") + ") { a -= 2 } else if mutantOn(" +
			n("REMOVE_SELF_ASSIGNMENTS", "a «+=» 2") + ") { a = 2 } else { a += 2 }",
		"if mutantOn(" + n("INCREMENT_DECREMENT", "b«--»") + ") { b++ } else { b-- }",
		"if mutantOn(" + n("INVERT_LOOPCTRL", "«break»") + ") { continue } else { break }",
		"return func() int { if mutantOn(" + n("ARITHMETIC_BASE", "-a «*» b") + ") { return ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("schema lacks %q:\n%s", want, got)
		}
	}
	if want := "if mutantOn(" + n("INVERT_NEGATIVES", "«-»a") + ") { return +a }; return -a }()"; !strings.Contains(got, want) {
		t.Errorf("schema lacks %q:\n%s", want, got)
	}
}
