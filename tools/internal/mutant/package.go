// Package mutant is the mutation toolkit of tools/: the mutants of a package (Extended's
// operators, and gremlins' token operators in Tokens), each named by an ID that stays put when
// unrelated code moves; gremlins' JSON report (ReadReport); the list of accepted survivors
// (ReadAccepted); and a Runner of a package's tests against one mutated file through
// `go test -overlay`.
//
// An ID reads DIR/FILE:FUNC:OP:TEXT. DIR is the package directory as given, FUNC the
// enclosing function (a method as Type.Name) or the first name a package-level declaration
// declares, OP the operator, and TEXT the mutated source on one line (Extended) or the
// operator's expression with its token in «guillemets» (Tokens). When those repeat in a
// function, #2, #3, ... in source order follow. An ID moves only when its own code, its
// function's name or an identical mutant before it in the same function changes; not when
// lines are added or removed elsewhere.
package mutant

import (
	"crypto/sha256"
	"fmt"
	"go/build"
	"os"
	"path/filepath"
)

// A Package is the mutants of one package directory's non-test files.
type Package struct {
	Dir     string            // the directory, as given and cleaned, with slashes: the IDs' prefix
	Name    string            // the package's name
	Sources map[string][]byte // the files, by base name
	Mutants []Mutant          // in the order of the files, then of the source
}

// A Finder makes the mutants of one file: Extended or Tokens.
type Finder func(name string, src []byte) ([]Mutant, error)

// Load reads the non-test files that the go command would build in dir, but those skip names
// (by path DIR/FILE), and makes their mutants with find, each with its ID. An Extended mutant
// that makes the same file as an earlier one (removing a case's one statement empties the
// case) is dropped; gremlins keeps such twins of Tokens, and so does Load.
func Load(dir string, find Finder, skip func(path string) bool) (*Package, error) {
	pkg, err := build.ImportDir(dir, 0)
	if err != nil {
		return nil, fmt.Errorf("mutant: %w", err)
	}
	p := &Package{Dir: filepath.ToSlash(filepath.Clean(dir)), Name: pkg.Name, Sources: map[string][]byte{}}
	seen := map[[32]byte]bool{}
	ids := map[string]int{}
	for _, name := range pkg.GoFiles {
		if skip != nil && skip(p.Dir+"/"+name) {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("mutant: %w", err)
		}
		p.Sources[name] = src
		ms, err := find(name, src)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			if extended[m.Op] {
				sum := sha256.Sum256(append([]byte(name+"\x00"), m.Apply(src)...))
				if seen[sum] {
					continue
				}
				seen[sum] = true
			}
			m.ID = fmt.Sprintf("%s/%s:%s:%s:%s", p.Dir, m.File, m.Func, m.Op, m.Text)
			if ids[m.ID]++; ids[m.ID] > 1 {
				m.ID = fmt.Sprintf("%s#%d", m.ID, ids[m.ID])
			}
			p.Mutants = append(p.Mutants, m)
		}
	}
	return p, nil
}

// At returns the mutant of op whose position is line:column (from 1, in bytes) of file (a
// base name): how a gremlins report names one.
func (p *Package) At(file string, line, column int, op string) (Mutant, bool) {
	for _, m := range p.Mutants {
		if m.File == file && m.Pos.Line == line && m.Pos.Column == column && m.Op == op {
			return m, true
		}
	}
	return Mutant{}, false
}
