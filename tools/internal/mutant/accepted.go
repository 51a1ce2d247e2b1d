package mutant

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// The passes that read the list of accepted survivors, by the word that opens a group.
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

// passWords are the words that may open a group.
var passWords = []string{PassGremlins, PassExtended, PassProperties, Skip}

// Accepted is the list of accepted survivors, in one file of groups. A group names a pass,
// gives a reason once, and lists the IDs of the mutants that may survive that pass for it:
//
//	extended: slog.Logger.LogAttrs checks Enabled itself: the early return only spares
//	building the attributes
//		pix/log.go:journal.logAttempt:if-false:!j.log.Enabled(j.ctx, level)
//		pix/log.go:journal.logAttempt:remove-stmt:return
//
// A group opens with an unindented line, PASS: reason. The unindented lines after it continue
// the reason, up to the group's first ID; none of them may open with a pass and a colon. An ID
// is an indented line, whole but for the white space around it; its path (DIR/FILE, or DIR for
// a skip), up to its first colon, holds no white space. Blank lines and lines that open with #
// are comments; none may fall between a group's first line and its first ID. A pass gives a
// reason once (white space aside) and lists an ID once.
//
// An ID that names no survivor of a pass that ran over its package is stale, and the pass
// fails on it: a mutant killed now, or gone, must leave the list, so that no ID can later stand
// for another mutant. The zero value is an empty list.
type Accepted struct {
	lines map[string]map[string]int // by pass, then ID: the line that lists it
	used  map[string]map[string]bool
}

// ReadAccepted reads the list; a missing file is an empty list. It refuses, naming the file
// and line, a pass it does not know, a group with no reason or no ID, an ID before any group or
// with white space in its path, a reason given twice for one pass, and an ID listed twice for
// one pass.
func ReadAccepted(path string) (*Accepted, error) {
	a := &Accepted{lines: map[string]map[string]int{}, used: map[string]map[string]bool{}}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return a, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mutant: %w", err)
	}
	defer f.Close()
	r := &listReader{path: path, list: a, reasons: map[string]map[string]int{}}
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		if err := r.line(n, s.Text()); err != nil {
			return nil, err
		}
	}
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("mutant: %s: %w", path, err)
	}
	if r.open() {
		return nil, r.noIDs()
	}
	return a, nil
}

// listReader reads a list of accepted survivors a line at a time.
type listReader struct {
	path    string
	list    *Accepted
	reasons map[string]map[string]int // by pass, then reason, white space collapsed: its line
	group   *group                    // the group being read; nil before the first
}

// group is a group of the list as it is read.
type group struct {
	pass   string
	line   int      // the line that opens it
	reason []string // its words so far
	ids    int
}

// line reads line n, text.
func (r *listReader) line(n int, text string) error {
	trimmed := strings.TrimSpace(text)
	switch {
	case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		if r.open() {
			return r.noIDs()
		}
		return nil
	case text[0] == ' ' || text[0] == '\t':
		return r.id(n, trimmed)
	case r.open() && opensGroup(text):
		return r.noIDs()
	case r.open():
		r.group.reason = append(r.group.reason, strings.Fields(text)...)
		return nil
	}
	pass, reason, ok := strings.Cut(text, ":")
	if !ok || strings.ContainsAny(pass, " \t") {
		return r.errorf(n, "want a group's first line, PASS: reason, got %q", text)
	}
	if !slices.Contains(passWords, pass) {
		return r.errorf(n, "unknown pass %q (want %s)", pass, strings.Join(passWords, ", "))
	}
	r.group = &group{pass: pass, line: n, reason: strings.Fields(reason)}
	return nil
}

// open says whether the group being read has no ID yet: a line without indent continues its
// reason.
func (r *listReader) open() bool {
	return r.group != nil && r.group.ids == 0
}

// opensGroup says whether text, unindented, opens with a pass and a colon.
func opensGroup(text string) bool {
	pass, _, ok := strings.Cut(text, ":")
	return ok && slices.Contains(passWords, pass)
}

// id reads line n, which lists id.
func (r *listReader) id(n int, id string) error {
	g := r.group
	if g == nil {
		return r.errorf(n, "ID %q before any group (PASS: reason)", id)
	}
	if path, _, _ := strings.Cut(id, ":"); strings.ContainsAny(path, " \t") {
		return r.errorf(n, "ID %q has white space in its path (a reason's line has no indent)", id)
	}
	if g.ids == 0 {
		if err := r.reason(); err != nil {
			return err
		}
	}
	g.ids++
	if r.list.lines[g.pass] == nil {
		r.list.lines[g.pass] = map[string]int{}
	}
	if first, dup := r.list.lines[g.pass][id]; dup {
		return r.errorf(n, "%s %s listed twice (first on line %d)", g.pass, id, first)
	}
	r.list.lines[g.pass][id] = n
	return nil
}

// reason takes the reason of the group being read, whole once its first ID comes.
func (r *listReader) reason() error {
	g := r.group
	if len(g.reason) == 0 {
		return r.errorf(g.line, "the %s group has no reason", g.pass)
	}
	reason := strings.Join(g.reason, " ")
	if first, dup := r.reasons[g.pass][reason]; dup {
		return r.errorf(g.line, "%s gives the reason of line %d again: list the IDs under one group", g.pass, first)
	}
	if r.reasons[g.pass] == nil {
		r.reasons[g.pass] = map[string]int{}
	}
	r.reasons[g.pass][reason] = g.line
	return nil
}

// noIDs is the error of a group that ends before its first ID.
func (r *listReader) noIDs() error {
	return r.errorf(r.group.line, "the %s group has no IDs (an ID is an indented line)", r.group.pass)
}

// errorf returns an error about line n of the list.
func (r *listReader) errorf(n int, format string, args ...any) error {
	return fmt.Errorf("mutant: %s:%d: %s", r.path, n, fmt.Sprintf(format, args...))
}

// Accepts says whether pass accepts id, and marks the ID used.
func (a *Accepted) Accepts(pass, id string) bool {
	if _, ok := a.lines[pass][id]; !ok {
		return false
	}
	if a.used[pass] == nil {
		a.used[pass] = map[string]bool{}
	}
	a.used[pass][id] = true
	return true
}

// Lists says whether pass accepts id, without marking the entry used: for a pass that wants
// to know what the list expects before it has a verdict.
func (a *Accepted) Lists(pass, id string) bool {
	_, ok := a.lines[pass][id]
	return ok
}

// Stale returns, sorted, the IDs of pass about the files of the packages in dirs (not of
// their subpackages) that Accepts was never asked for: the mutants they name were killed, or
// are gone. A skip of a whole package is not about its files.
func (a *Accepted) Stale(pass string, dirs []string) []string {
	var stale []string
	for id := range a.lines[pass] {
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

// IDs returns, sorted, the IDs that pass accepts.
func (a *Accepted) IDs(pass string) []string {
	ids := make([]string, 0, len(a.lines[pass]))
	for id := range a.lines[pass] {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
