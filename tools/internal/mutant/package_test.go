package mutant

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tokenFile has, in f, two identical comparisons and a long one.
const tokenFile = `package p

func f(a, b int) bool {
	if a < b {
		return a == b
	}
	return a == b
}

func long(aaaaaaaaaa, bbbbbbbbbb, cccccccccc, dddddddddd int) bool {
	return aaaaaaaaaa+bbbbbbbbbb+cccccccccc+dddddddddd+aaaaaaaaaa+bbbbbbbbbb > cccccccccc+dddddddddd+aaaaaaaaaa+bbbbbbbbbb+cccccccccc
}
`

func mustPackage(t *testing.T, files map[string]string, find Finder, skip func(string) bool) *Package {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "p")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Load(dir, find, skip)
	if err != nil {
		t.Fatalf("Load() error = %v", err)
	}
	return p
}

func TestTokensNameEachMutantOnceAndKeepItsPlace(t *testing.T) {
	p := mustPackage(t, map[string]string{"p.go": tokenFile, "p_test.go": "package p\n"}, Tokens, nil)
	prefix := p.Dir + "/p.go:"
	for _, want := range []string{
		"f:CONDITIONALS_NEGATION:a «<» b", "f:CONDITIONALS_BOUNDARY:a «<» b",
		"f:CONDITIONALS_NEGATION:a «==» b", "f:CONDITIONALS_NEGATION:a «==» b#2",
		"long:CONDITIONALS_BOUNDARY:...cccccc+dddddddddd+aaaaaaaaaa+bbbbbbbbbb «>» cccccccccc+dddddddddd+aaaaaaaaaa+bbbbbb...",
	} {
		found := false
		for _, m := range p.Mutants {
			found = found || m.ID == prefix+want
		}
		if !found {
			t.Errorf("no mutant %s%s", prefix, want)
		}
	}
	m, ok := p.At("p.go", 7, 11, "CONDITIONALS_NEGATION")
	if !ok || m.ID != prefix+"f:CONDITIONALS_NEGATION:a «==» b#2" || string(m.Apply(p.Sources["p.go"]))[m.Start:m.Start+2] != "!=" {
		t.Errorf("At(7:11) = %+v, %v; want the second ==, made !=", m, ok)
	}
	if _, ok := p.At("p.go", 7, 12, "CONDITIONALS_NEGATION"); ok {
		t.Error("At() a column with no operator found one")
	}
	// A line added above moves every position and no ID.
	moved := mustPackage(t, map[string]string{"p.go": strings.Replace(tokenFile, "package p\n", "package p\n\n// f.\n", 1)},
		Tokens, nil)
	for i, m := range moved.Mutants {
		if rest, want := strings.TrimPrefix(m.ID, moved.Dir), strings.TrimPrefix(p.Mutants[i].ID, p.Dir); rest != want {
			t.Errorf("mutant %d: ID %s after a line was added, want %s", i, rest, want)
		}
	}
}

func TestLoadSkipsAndDropsTwins(t *testing.T) {
	files := map[string]string{
		"a.go": "package p\n\nfunc g(x int) int {\n\tswitch x {\n\tcase 1:\n\t\tx++\n\t}\n\treturn x\n}\n",
		"b.go": "package p\n\nvar s = \"b\"\n",
	}
	p := mustPackage(t, files, Extended, func(path string) bool { return strings.HasSuffix(path, "/b.go") })
	if _, ok := p.Sources["b.go"]; ok {
		t.Error("Load() read a skipped file")
	}
	ops := map[string]int{}
	for _, m := range p.Mutants {
		ops[m.Op]++
	}
	// Removing the case's one statement empties the case: one mutant, not two.
	if ops[OpRemove] != 1 || ops[OpEmptyCase] != 0 {
		t.Errorf("Load() made %v, want one remove-stmt and no empty-case twin", ops)
	}
}

func TestReadReportRefusesWhatProvesNothing(t *testing.T) {
	for name, text := range map[string]string{
		"not JSON":        "{",
		"no mutant":       `{"files":[],"mutants_total":0}`,
		"a total too big": `{"files":[{"file_name":"a.go","mutations":[{"status":"KILLED"}]}],"mutants_total":2}`,
	} {
		path := filepath.Join(t.TempDir(), "r.json")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadReport(path); err == nil {
			t.Errorf("%s: ReadReport() error = nil, want one", name)
		}
	}
	if _, err := ReadReport(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("ReadReport() of a missing report = nil error")
	}
}
