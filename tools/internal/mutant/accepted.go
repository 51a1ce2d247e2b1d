package mutant

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// The passes that read the list of accepted survivors, by the word that opens an entry.
const (
	// PassGremlins is make mutation's gate: gremlins' mutants against each package's tests.
	PassGremlins = "gremlins"
	// PassExtended is make mutation-extended: Extended's mutants against each package's tests.
	PassExtended = "extended"
	// PassProperties is make mutation-properties: gremlins' mutants that the full suite kills
	// and the property tests alone let live.
	PassProperties = "properties"
	// Skip leaves a file out of the passes that mutate from source (extended): its ID is the
	// file's path, DIR/FILE.
	Skip = "skip"
)

// Accepted is the list of accepted survivors, in one file of lines
//
//	PASS ID => reason
//
// each naming a mutant that may survive a pass, and why, on one line. Blank lines and lines
// that open with # are comments. An entry that names no survivor of a pass that ran over its
// package is stale, and the pass fails on it: a mutant killed now, or gone, must leave the list,
// so that no entry can later stand for another mutant under the same ID.
type Accepted struct {
	reasons map[string]map[string]string // by pass, then ID
	used    map[string]map[string]bool
}

// ReadAccepted reads the list; a missing file is an empty list.
func ReadAccepted(path string) (*Accepted, error) {
	a := &Accepted{reasons: map[string]map[string]string{}, used: map[string]map[string]bool{}}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return a, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mutant: %w", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		line := strings.TrimSpace(s.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pass, rest, _ := strings.Cut(line, " ")
		id, reason, ok := strings.Cut(rest, " => ")
		id, reason = strings.TrimSpace(id), strings.TrimSpace(reason)
		if !ok || id == "" || reason == "" {
			return nil, fmt.Errorf("mutant: %s:%d: want `PASS ID => reason`, got %q", path, n, line)
		}
		if !slices.Contains([]string{PassGremlins, PassExtended, PassProperties, Skip}, pass) {
			return nil, fmt.Errorf("mutant: %s:%d: unknown pass %q (want %s, %s, %s or %s)", path, n, pass,
				PassGremlins, PassExtended, PassProperties, Skip)
		}
		if a.reasons[pass] == nil {
			a.reasons[pass] = map[string]string{}
		}
		if _, dup := a.reasons[pass][id]; dup {
			return nil, fmt.Errorf("mutant: %s:%d: %s %s listed twice", path, n, pass, id)
		}
		a.reasons[pass][id] = reason
	}
	return a, s.Err()
}

// Accepts says whether pass accepts id, and marks the entry used.
func (a *Accepted) Accepts(pass, id string) bool {
	if _, ok := a.reasons[pass][id]; !ok {
		return false
	}
	if a.used[pass] == nil {
		a.used[pass] = map[string]bool{}
	}
	a.used[pass][id] = true
	return true
}

// Stale returns, sorted, the entries of pass about the files of the packages in dirs (not of
// their subpackages) that Accepts was never asked for: the mutants they name were killed, or
// are gone. A skip entry of a whole package is not about its files.
func (a *Accepted) Stale(pass string, dirs []string) []string {
	var stale []string
	for id := range a.reasons[pass] {
		ours := slices.ContainsFunc(dirs, func(dir string) bool {
			rest, ok := strings.CutPrefix(id, dir+"/")
			file, _, _ := strings.Cut(rest, ":")
			return ok && strings.HasSuffix(file, ".go") && !strings.Contains(file, "/")
		})
		if ours && !a.used[pass][id] {
			stale = append(stale, id)
		}
	}
	slices.Sort(stale)
	return stale
}

// IDs returns, sorted, the IDs of pass's entries.
func (a *Accepted) IDs(pass string) []string {
	ids := make([]string, 0, len(a.reasons[pass]))
	for id := range a.reasons[pass] {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
