package mutant

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestTokensMatchGremlinsDryRun holds Tokens to gremlins itself. testdata/gremlinsfixture has
// every token that each of gremlins' eleven mutators mutates, in function bodies, a method, a
// closure, switch cases, constant, variable and type declarations and a generated file, and a
// few tokens that no mutator mutates. gremlins' dry run of it must list exactly the mutants
// that Load makes with Tokens.
func TestTokensMatchGremlinsDryRun(t *testing.T) {
	gremlins := mustGremlins(t)
	dir := t.TempDir() // gremlins runs the fixture's tests there, and leaves the source tree alone
	if err := os.CopyFS(dir, os.DirFS("testdata/gremlinsfixture")); err != nil {
		t.Fatal(err)
	}
	r := dryRun(t, gremlins, dir, ".", "", "-count=1")
	got := reported(r)
	want := mustTokenMutants(t, dir, nil)
	compareMutants(t, got, want)

	types := map[string]int{}
	for k, n := range got {
		types[k.typ] += n
	}
	for _, typ := range slices.Sorted(maps.Keys(tokenMutations)) {
		if types[typ] == 0 {
			t.Errorf("gremlins lists no %s mutant of the fixture: it lost the tokens of that mutator", typ)
		}
		t.Logf("%-23s %d", typ, types[typ])
	}
	statuses := map[string]int{}
	for _, f := range r.Files {
		for _, m := range f.Mutations {
			statuses[m.Status]++
		}
	}
	if statuses["RUNNABLE"] == 0 {
		t.Errorf("gremlins found no mutant covered (statuses %v): did the fixture's tests run?", statuses)
	}
	t.Logf("%d mutants, by status %v", len(got), statuses)
}

// productRuns is how scripts/mutation.sh runs gremlins on a package of the product, where that
// differs from GOFLAGS=-count=1 and no file left out. Keep the two in step.
var productRuns = map[string]struct{ goflags, exclude string }{
	"durable": {"-count=1 -short", `(postgres|group)\.go$`},
}

// TestTokensMatchGremlinsOnProduct holds Tokens to gremlins on the product's packages named,
// comma-separated, by PIXRETRY_DRYRUN_PACKAGES (such as retry,pix,psp,durable), each run as
// scripts/mutation.sh runs it. gremlins runs each package's tests once: about 40 s for the four.
func TestTokensMatchGremlinsOnProduct(t *testing.T) {
	list := os.Getenv("PIXRETRY_DRYRUN_PACKAGES")
	if list == "" {
		t.Skip("set PIXRETRY_DRYRUN_PACKAGES=retry,pix,psp,durable to compare gremlins' dry run with Tokens there")
	}
	gremlins := mustGremlins(t)
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range strings.Split(list, ",") {
		t.Run(pkg, func(t *testing.T) {
			run, ok := productRuns[pkg]
			if !ok {
				run.goflags = "-count=1"
			}
			var skip func(string) bool
			if run.exclude != "" {
				skip = regexp.MustCompile(run.exclude).MatchString
			}
			got := reported(dryRun(t, gremlins, root, "./"+pkg, run.exclude, run.goflags))
			want := mustTokenMutants(t, filepath.Join(root, pkg), skip)
			t.Logf("%s: gremlins lists %d mutants, Tokens makes %d", pkg, total(got), total(want))
			compareMutants(t, got, want)
		})
	}
}

// mustGremlins builds gremlins, as pinned in tools/go.mod, and returns its path. It skips the
// test when there is no go command or the build fails (no module cache and no network).
func mustGremlins(t *testing.T) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build gremlins with: %v", err)
	}
	out, err := exec.CommandContext(t.Context(), goCmd, "tool", "-n", "gremlins").Output()
	if err != nil {
		var stderr []byte
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		t.Skipf("cannot build gremlins (go tool -n gremlins): %v\n%s", err, stderr)
	}
	return strings.TrimSpace(string(out))
}

// dryRun runs `gremlins unleash --dry-run` in dir (a module root with a .gremlins.yaml) on
// path, leaving out the files that exclude matches (when not empty), with goflags as GOFLAGS,
// and returns its report. gremlins' scratch files go to a temporary directory of the test.
func dryRun(t *testing.T, gremlins, dir, path, exclude, goflags string) Report {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report.json")
	args := []string{"unleash", "--dry-run", "--config", ".gremlins.yaml", "-o", out}
	if exclude != "" {
		args = append(args, "--exclude-files="+exclude)
	}
	cmd := exec.CommandContext(t.Context(), gremlins, append(args, path)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS="+goflags, "TMPDIR="+t.TempDir(),
		"RAPID_SEED=1", "RAPID_NOFAILFILE=1") // as scripts/mutation.sh: a failing rapid test writes no file
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gremlins %s: %v\n%s", strings.Join(cmd.Args[1:], " "), err, output)
	}
	r, err := ReadReport(out)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A mutantKey is how gremlins names a mutant: a file by its slash path from the directory it
// mutates, a 1-based line and byte column, and a mutator type.
type mutantKey struct {
	file         string
	line, column int
	typ          string
}

func (k mutantKey) String() string {
	return fmt.Sprintf("%s:%d:%d %s", k.file, k.line, k.column, k.typ)
}

// reported counts the mutants a report lists, of every status.
func reported(r Report) map[mutantKey]int {
	got := map[mutantKey]int{}
	for _, f := range r.Files {
		for _, m := range f.Mutations {
			got[mutantKey{f.Name, m.Line, m.Column, m.Type}]++
		}
	}
	return got
}

// mustTokenMutants counts the mutants that Load makes with Tokens in root and in every
// directory under it that has a non-test .go file, as gremlins walks them, leaving out the
// files whose slash path from root skip matches.
func mustTokenMutants(t *testing.T, root string, skip func(rel string) bool) map[mutantKey]int {
	t.Helper()
	dirs := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			dirs[filepath.Dir(path)] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	rel := func(path string) string {
		r, err := filepath.Rel(root, filepath.FromSlash(path))
		if err != nil {
			t.Fatal(err)
		}
		return filepath.ToSlash(r)
	}
	want := map[mutantKey]int{}
	for dir := range dirs {
		p, err := Load(dir, Tokens, func(path string) bool { return skip != nil && skip(rel(path)) })
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range p.Mutants {
			want[mutantKey{rel(p.Dir + "/" + m.File), m.Pos.Line, m.Pos.Column, m.Op}]++
		}
	}
	return want
}

// compareMutants fails the test with the mutants that only one side has, in source order.
func compareMutants(t *testing.T, gremlins, tokens map[mutantKey]int) {
	t.Helper()
	if onlyGremlins, onlyTokens := extra(gremlins, tokens), extra(tokens, gremlins); len(onlyGremlins)+len(onlyTokens) > 0 {
		t.Errorf("gremlins and Tokens disagree.\nOnly gremlins lists (%d):%s\nOnly Tokens makes (%d):%s",
			len(onlyGremlins), lines(onlyGremlins), len(onlyTokens), lines(onlyTokens))
	}
	if total(gremlins) == 0 {
		t.Error("gremlins lists no mutant: the comparison proves nothing")
	}
}

// extra returns, in source order, each mutant that a has more times than b.
func extra(a, b map[mutantKey]int) []mutantKey {
	var out []mutantKey
	for k, n := range a {
		for range n - b[k] {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(x, y mutantKey) int {
		return cmp.Or(strings.Compare(x.file, y.file), cmp.Compare(x.line, y.line),
			cmp.Compare(x.column, y.column), strings.Compare(x.typ, y.typ))
	})
	return out
}

// lines prints mutants one to a line.
func lines(ks []mutantKey) string {
	var b strings.Builder
	for _, k := range ks {
		fmt.Fprintf(&b, "\n\t%s", k)
	}
	return b.String()
}

// total counts the mutants of a set.
func total(m map[mutantKey]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}
