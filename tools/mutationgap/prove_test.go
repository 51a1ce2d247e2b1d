package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// signGo has a switch whose case conditions gremlins reports NOT COVERED: at 5:9 the `<` of
// x < 0, which the fixture's property checks, and at 7:9 the `>` of x > 0, whose boundary (x == 0)
// it never tries. At 13:45, a `+` of strings, which does not build as `-`.
const signGo = `package sign

func Sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

func Name(s string) string { return "sign " + s }
`

// mustProverModule writes a module with package sign, package other (which the properties do
// not build on) and a property test of sign, and returns its root.
func mustProverModule(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod":         "module pixretry\n\ngo 1.26\n",
		"sign/sign.go":   signGo,
		"other/other.go": "package other\n\nfunc Less(a, b int) bool { return a < b }\n",
		"properties/sign_test.go": "package properties\n\nimport (\n\t\"testing\"\n\n\t\"pixretry/sign\"\n)\n\n" +
			"func TestSign(t *testing.T) {\n\tif sign.Sign(-2) != -1 || sign.Sign(3) != 1 {\n\t\tt.Fatal(\"wrong sign\")\n\t}\n}\n",
	}
	for name, text := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestProverSettlesNotCoveredMutants(t *testing.T) {
	root := mustProverModule(t)
	p, err := newProver(context.Background(), root)
	if err != nil {
		t.Fatalf("newProver() = %v", err)
	}
	ms := []reported{
		{id: "negated <", status: "NOT COVERED", file: "sign/sign.go", line: 5, column: 9, typ: "CONDITIONALS_NEGATION"},
		{id: "> to >=", status: "NOT COVERED", file: "sign/sign.go", line: 7, column: 9, typ: "CONDITIONALS_BOUNDARY"},
		{id: "gremlins' kill", status: "KILLED", file: "sign/sign.go", line: 7, column: 9, typ: "CONDITIONALS_NEGATION"},
		{id: "not built on", status: "NOT COVERED", file: "other/other.go", line: 3, column: 37,
			typ: "CONDITIONALS_BOUNDARY"},
	}
	if err := p.settle(context.Background(), ms); err != nil {
		t.Fatalf("settle() = %v", err)
	}
	want := []string{provenKilled, provenLived, "KILLED", "NOT COVERED"}
	for i, m := range ms {
		if m.status != want[i] {
			t.Errorf("mutant %q: status %q, want %q", m.id, m.status, want[i])
		}
	}
}

func TestProverRefusesAMutantItCannotReproduce(t *testing.T) {
	p, err := newProver(context.Background(), mustProverModule(t))
	if err != nil {
		t.Fatalf("newProver() = %v", err)
	}
	ms := []reported{{id: "no operator there", status: "NOT COVERED", file: "sign/sign.go", line: 3, column: 1,
		typ: "CONDITIONALS_NEGATION"}}
	if err := p.settle(context.Background(), ms); err == nil {
		t.Errorf("settle() of a position with no operator = nil, want an error; status %q", ms[0].status)
	}
}

// With proofs, a mutant both reports leave NOT COVERED counts: as killed by the full suite once
// it builds, and as a gap when the properties let it live.
func TestRunWithProofsComparesNotCoveredMutants(t *testing.T) {
	root := mustProverModule(t)
	p, err := newProver(context.Background(), root)
	if err != nil {
		t.Fatalf("newProver() = %v", err)
	}
	dir := t.TempDir()
	report := `{"files":[{"file_name":"sign.go","mutations":[` +
		`{"type":"CONDITIONALS_NEGATION","status":"NOT COVERED","line":5,"column":9},` +
		`{"type":"CONDITIONALS_BOUNDARY","status":"NOT COVERED","line":7,"column":9},` +
		`{"type":"CONDITIONALS_NEGATION","status":"KILLED","line":7,"column":9},` +
		`{"type":"ARITHMETIC_BASE","status":"%s","line":13,"column":45}]}]}`
	// gremlins reports KILLED a mutant that does not build when a test runs its line (the
	// full suite here), NOT COVERED when none does (the properties): it is no gap.
	for name, unbuilt := range map[string]string{"sign.json": "KILLED", "properties-sign.json": "NOT COVERED"} {
		if err := os.WriteFile(filepath.Join(dir, name), fmt.Appendf(nil, report, unbuilt), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	if err := run(dir, root, "", p, []string{"sign"}, &out); err != nil {
		t.Fatalf("run() = %v", err)
	}
	for _, want := range []string{
		"sign: the properties alone kill 2 of 4 mutants (1 of them proven through -overlay; 1 lived, 0 timed out, " +
			"0 not covered, 1 not viable)\n",
		"  sign/sign.go:Sign:CONDITIONALS_BOUNDARY:x «>» 0 LIVED (proven)\n",
		"sign: the full suite kills 3; the properties alone kill 2 of those (1 gaps)\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, &out)
		}
	}
}

// A mutant the properties let live is killed by the property tests beside its package, and a
// package the properties do not build on is proven by its own property tests alone.
func TestProverRunsThePropertyTestsBesideAPackage(t *testing.T) {
	root := mustProverModule(t)
	for name, text := range map[string]string{
		"sign/property_sign_test.go": "package sign_test\n\nimport (\n\t\"testing\"\n\n\t\"pixretry/sign\"\n)\n\n" +
			"func TestSignOfZero(t *testing.T) {\n\tif sign.Sign(0) != 0 {\n\t\tt.Fatal(\"zero has a sign\")\n\t}\n}\n",
		"other/property_other_test.go": "package other\n\nimport \"testing\"\n\n" +
			"func TestLessIsStrict(t *testing.T) {\n\tif Less(1, 1) {\n\t\tt.Fatal(\"1 < 1\")\n\t}\n}\n",
		// A test of its own package, not a property: it would kill the mutant of sign.Name.
		"sign/name_test.go": "package sign\n\nimport \"testing\"\n\n" +
			"func TestName(t *testing.T) {\n\tif Name(\"x\") != \"sign x\" {\n\t\tt.Fatal(Name(\"x\"))\n\t}\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p, err := newProver(context.Background(), root)
	if err != nil {
		t.Fatalf("newProver() = %v", err)
	}
	ms := []reported{
		{id: "> to >=", status: "NOT COVERED", file: "sign/sign.go", line: 7, column: 9, typ: "CONDITIONALS_BOUNDARY"},
		{id: "not built on", status: "NOT COVERED", file: "other/other.go", line: 3, column: 37,
			typ: "CONDITIONALS_BOUNDARY"},
	}
	if err := p.settle(context.Background(), ms); err != nil {
		t.Fatalf("settle() = %v", err)
	}
	for i, want := range []string{provenKilled, provenKilled} {
		if ms[i].status != want {
			t.Errorf("mutant %q: status %q, want %q", ms[i].id, ms[i].status, want)
		}
	}
	if got, want := p.local["sign"].Run, "^(TestSignOfZero)$"; got != want {
		t.Errorf("sign's property runner runs %q, want %q: only the property_*_test.go files", got, want)
	}
}
