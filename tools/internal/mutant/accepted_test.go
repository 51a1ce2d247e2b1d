package mutant

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeList writes text as a list of accepted survivors and returns its path.
func writeList(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "accepted.txt")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// list is a list of accepted survivors with a reason over two lines, IDs as the extended pass
// and gremlins write them, comments among the IDs, one reason and one ID in two passes.
const list = `# why

extended: never read,
on two lines
	retry/a.go:F:flip-bool:true
	# a comment among the IDs

	retry/a.go:F:empty-string:"a => b: c"#2  
    psp/control/c.go:F:flip-bool:true
extended: another reason
	psp/p.go:F:remove-stmt:return
skip: wiring
	durable/postgres.go
skip: a package
	psp/control
properties: never read, on two lines
	retry/a.go:F:flip-bool:true
	retry/a.go:F:CONDITIONALS_BOUNDARY:d «<=» 0
`

func TestAccepted(t *testing.T) {
	a, err := ReadAccepted(writeList(t, list))
	if err != nil {
		t.Fatalf("ReadAccepted() error = %v", err)
	}
	for _, c := range []struct {
		pass string
		want []string
	}{
		{PassExtended, []string{"psp/control/c.go:F:flip-bool:true", "psp/p.go:F:remove-stmt:return",
			`retry/a.go:F:empty-string:"a => b: c"#2`, "retry/a.go:F:flip-bool:true"}},
		{PassProperties, []string{"retry/a.go:F:CONDITIONALS_BOUNDARY:d «<=» 0", "retry/a.go:F:flip-bool:true"}},
		{Skip, []string{"durable/postgres.go", "psp/control"}},
		{PassGremlins, []string{}},
	} {
		if diff := cmp.Diff(c.want, a.IDs(c.pass)); diff != "" {
			t.Errorf("IDs(%s) mismatch (-want +got):\n%s", c.pass, diff)
		}
	}
	if !a.Accepts(PassExtended, "retry/a.go:F:flip-bool:true") || a.Accepts(PassGremlins, "retry/a.go:F:flip-bool:true") {
		t.Error("Accepts() does not keep passes apart")
	}
	a.Accepts(PassExtended, `retry/a.go:F:empty-string:"a => b: c"#2`)
	for _, c := range []struct {
		pass string
		dirs []string
		want []string
	}{
		{PassProperties, []string{"retry", "psp"}, []string{"retry/a.go:F:CONDITIONALS_BOUNDARY:d «<=» 0", "retry/a.go:F:flip-bool:true"}},
		{PassExtended, []string{"retry"}, nil},
		{PassExtended, []string{"psp"}, []string{"psp/p.go:F:remove-stmt:return"}}, // not psp/control's
		{Skip, []string{"durable"}, []string{"durable/postgres.go"}},
		{Skip, []string{"psp"}, nil}, // skipping psp/control is not about psp's files
	} {
		if diff := cmp.Diff(c.want, a.Stale(c.pass, c.dirs)); diff != "" {
			t.Errorf("Stale(%s, %v) mismatch (-want +got):\n%s", c.pass, c.dirs, diff)
		}
	}
}

func TestAcceptedEmpty(t *testing.T) {
	a, err := ReadAccepted(filepath.Join(t.TempDir(), "none"))
	if err != nil || a.Accepts(PassExtended, "x") || len(a.IDs(PassExtended)) != 0 {
		t.Errorf("ReadAccepted() of a missing file = %v, %v; want an empty list", a, err)
	}
	var zero Accepted
	if zero.Accepts(PassExtended, "x") || zero.Stale(PassExtended, []string{"x"}) != nil {
		t.Error("the zero Accepted accepts or holds an ID, want an empty list")
	}
}

// ReadAccepted refuses a malformed list, naming the line at fault.
func TestReadAcceptedRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		text string
		line int
	}{
		{"unknown pass", "extended: a\n\tx\nextnded: b\n\ty\n", 3},
		{"a pass that is not a word", "extended retry/a.go: a\n\tx\n", 1},
		{"the old format", "extended retry/a.go:F:flip-bool:true => why\n", 1},
		{"no colon", "extended\n\tx\n", 1},
		{"a group with no IDs at the end", "extended: a\n\tx\nskip: b\n", 3},
		{"a group with no IDs before another", "extended: a\nproperties: b\n\tx\n", 1},
		{"a group with no IDs before a comment", "extended: a\n# c\n\tx\n", 1},
		{"a group with no IDs before a blank line", "extended: a\n\n\tx\n", 1},
		{"a group with no reason", "extended:\n\tx\n", 1},
		{"a reason's line indented", "extended: a\n\tx\nextended: b\n\tand more\n\ty\n", 4},
		{"an ID before any group", "# c\n\tx\nextended: a\n\ty\n", 2},
		{"a reason twice, wrapped otherwise", "extended: a  b\n\tx\n\nextended: a\nb\n\ty\n", 4},
		{"an ID twice in a group", "extended: a\n\tx\n\tx\n", 3},
		{"an ID twice in a pass", "extended: a\n\tx\nextended: b\n  x \n", 4},
	} {
		path := writeList(t, c.text)
		_, err := ReadAccepted(path)
		if want := fmt.Sprintf("mutant: %s:%d: ", path, c.line); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: ReadAccepted() error = %v, want one that opens with %q", c.name, err, want)
		}
	}
}

// The same reason and the same ID may serve two passes.
func TestReadAcceptedKeepsPassesApart(t *testing.T) {
	a, err := ReadAccepted(writeList(t, "extended: a\n\tx\nproperties: a\n\tx\n"))
	if err != nil {
		t.Fatalf("ReadAccepted() error = %v", err)
	}
	if got, want := a.Accepts(PassExtended, "x") && a.Accepts(PassProperties, "x"), true; got != want {
		t.Errorf("Accepts(extended and properties, x) = %v, want %v", got, want)
	}
}

// Lists answers as Accepts does but marks nothing used, so the entry stays stale until a
// survivor names it.
func TestListsMarksNothingUsed(t *testing.T) {
	a, err := ReadAccepted(writeList(t, list))
	if err != nil {
		t.Fatalf("ReadAccepted() error = %v", err)
	}
	if !a.Lists(PassExtended, "psp/p.go:F:remove-stmt:return") || a.Lists(PassGremlins, "psp/p.go:F:remove-stmt:return") {
		t.Error("Lists() = the wrong answer for an entry of one pass")
	}
	if got, want := a.Stale(PassExtended, []string{"psp"}), []string{"psp/p.go:F:remove-stmt:return"}; !cmp.Equal(got, want) {
		t.Errorf("Stale() after Lists() = %v, want %v", got, want)
	}
}
