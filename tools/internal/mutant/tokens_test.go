package mutant

import (
	"strings"
	"testing"
)

const tokenSource = `package p

func f(a, b int, ok bool) int {
	for a < b {
		a += 2
		if a%3 == 0 && ok {
			break
		}
		b--
	}
	return -a &^ b
}
`

func TestMutateReproducesGremlinsTokenSwaps(t *testing.T) {
	cases := []struct {
		line, column int
		typ, want    string
	}{
		{4, 8, "CONDITIONALS_BOUNDARY", "for a <= b {"},
		{4, 8, "CONDITIONALS_NEGATION", "for a >= b {"},
		{5, 5, "INVERT_ASSIGNMENTS", "a -= 2"},
		{5, 5, "REMOVE_SELF_ASSIGNMENTS", "a = 2"},
		{6, 7, "ARITHMETIC_BASE", "if a*3 == 0 && ok {"},
		{6, 10, "CONDITIONALS_NEGATION", "if a%3 != 0 && ok {"},
		{6, 15, "INVERT_LOGICAL", "if a%3 == 0 || ok {"},
		{7, 4, "INVERT_LOOPCTRL", "continue"},
		{9, 4, "INCREMENT_DECREMENT", "b++"},
		{11, 9, "INVERT_NEGATIVES", "return +a &^ b"},
		{11, 12, "INVERT_BITWISE", "return -a & b"},
	}
	for _, c := range cases {
		t.Run(c.typ, func(t *testing.T) {
			got, err := Mutate([]byte(tokenSource), "p.go", c.line, c.column, c.typ)
			if err != nil {
				t.Fatalf("Mutate() error = %v", err)
			}
			lines := strings.Split(string(got), "\n")
			if gotLine := strings.TrimSpace(lines[c.line-1]); gotLine != c.want {
				t.Errorf("line %d = %q, want %q", c.line, gotLine, c.want)
			}
			lines[c.line-1] = strings.Split(tokenSource, "\n")[c.line-1]
			if strings.Join(lines, "\n") != tokenSource {
				t.Errorf("Mutate() changed another line:\n%s", got)
			}
		})
	}
}

func TestMutateRejectsWhatItCannotReproduce(t *testing.T) {
	cases := map[string]struct {
		line, column int
		typ          string
	}{
		"no operator there":      {4, 9, "CONDITIONALS_BOUNDARY"},
		"type does not apply":    {4, 8, "INVERT_LOGICAL"},
		"unknown type":           {4, 8, "SWAP_EVERYTHING"},
		"line past the file end": {40, 1, "CONDITIONALS_BOUNDARY"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got, err := Mutate([]byte(tokenSource), "p.go", c.line, c.column, c.typ); err == nil {
				t.Errorf("Mutate() = %q, want an error", got)
			}
		})
	}
	if _, err := Mutate([]byte("package p\nfunc {"), "p.go", 2, 1, "INVERT_LOGICAL"); err == nil {
		t.Error("Mutate() of a file that does not parse = nil error, want one")
	}
}
