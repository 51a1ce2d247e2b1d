package mutant

import (
	"slices"
	"strings"
	"testing"
)

const extendedSource = `package p

import "strings"

type T struct {
	Name string ` + "`json:\"name\"`" + `
}

const greeting = "hi"

func (t *T) Check(s string) (bool, error) {
	defer t.reset()
	if err := t.validate(); err != nil {
		return false, err
	} else {
		t.Name = s
	}
	switch s {
	case "":
		return true, nil
	}
	return strings.HasPrefix(s, greeting), nil
}

func named() (n int) {
	n++
	return
}
`

// mutantsOf returns the source's mutants by function, operator and text.
func mutantsOf(t *testing.T) map[string]Mutant {
	t.Helper()
	ms, err := Extended("p.go", []byte(extendedSource))
	if err != nil {
		t.Fatalf("Extended() error = %v", err)
	}
	got := map[string]Mutant{}
	for _, m := range ms {
		key := m.Func + ":" + m.Op + ":" + m.Text
		if _, dup := got[key]; dup {
			t.Errorf("Mutant %s made twice", key)
		}
		got[key] = m
	}
	return got
}

func TestMutantsMakesEachOperator(t *testing.T) {
	got := mutantsOf(t)
	cases := map[string]string{
		"T.Check:zero-body:body":                "{ var zero0 bool; var zero1 error; return zero0, zero1 }",
		"T.Check:remove-stmt:defer t.reset()":   "",
		"T.Check:if-true:err != nil":            "true || (err != nil)",
		"T.Check:if-false:err != nil":           "false && (err != nil)",
		"T.Check:remove-stmt:return false, err": "",
		"T.Check:empty-else:else t.Name = s":    "{}",
		"T.Check:remove-stmt:t.Name = s":        "",
		"T.Check:remove-stmt:return true, nil":  "",
		"T.Check:flip-bool:true":                "false",
		"T.Check:flip-bool:false":               "true",
		`greeting:empty-string:"hi"`:            `""`,
		"named:zero-body:body":                  "{ return }",
		"named:remove-stmt:n++":                 "",
		"T.Check:empty-case:return true, nil":   "",
	}
	for key, want := range cases {
		m, ok := got[key]
		if !ok {
			t.Errorf("no Mutant %s, want one", key)
			continue
		}
		if m.With != want {
			t.Errorf("Mutant %s replaces its span with %q, want %q", key, m.With, want)
		}
	}
}

// A return at a function's top level is its last way out: removing it does not compile, or
// changes nothing. Imports and struct tags are no values, and "" is already empty. A
// declaration's removal never compiles.
func TestMutantsSkipsWhatCannotBeAMutant(t *testing.T) {
	for key := range mutantsOf(t) {
		for _, never := range []string{
			"remove-stmt:return strings.HasPrefix", "remove-stmt:return\x00", `"strings"`, "json:",
			"remove-stmt:err :=", `empty-string:""`,
		} {
			if strings.Contains(key+"\x00", never) {
				t.Errorf("Mutant %s made, want none matching %q", key, never)
			}
		}
	}
}

// Each Mutant changes only its span: every line before it is unchanged, so that positions in
// a report stay true.
func TestMutantsKeepEveryOtherByte(t *testing.T) {
	ms, err := Extended("p.go", []byte(extendedSource))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		got := string(m.Apply([]byte(extendedSource)))
		want := extendedSource[:m.Start] + m.With + extendedSource[m.End:]
		if got != want {
			t.Errorf("%s: apply() = %q, want %q", m.Op, got, want)
		}
		if !strings.HasPrefix(got, extendedSource[:m.Start]) || !strings.HasSuffix(got, extendedSource[m.End:]) {
			t.Errorf("%s changed bytes outside its span", m.Op)
		}
	}
	ops := map[string]bool{}
	for _, m := range ms {
		ops[m.Op] = true
	}
	for _, op := range []string{OpRemove, OpIfTrue, OpIfFalse, OpEmptyElse, OpEmptyCase, OpZeroBody, OpFlipBool, OpEmptyString} {
		if !ops[op] {
			t.Errorf("no %s mutant in the source, want one", op)
		}
	}
	if slices.ContainsFunc(ms, func(m Mutant) bool { return m.Op == OpTrueBody }) {
		t.Error("a true-body Mutant of a function with two results, want none")
	}
}

func TestMutantsTrueBodyForABoolFunction(t *testing.T) {
	ms, err := Extended("p.go", []byte("package p\n\nfunc ok(n int) bool {\n\treturn n > 0\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var withs []string
	for _, m := range ms {
		if m.Op == OpTrueBody || m.Op == OpZeroBody {
			withs = append(withs, m.With)
		}
	}
	if want := []string{"{ return true }", "{ var zero0 bool; return zero0 }"}; !slices.Equal(withs, want) {
		t.Errorf("body mutants = %q, want %q", withs, want)
	}
}
