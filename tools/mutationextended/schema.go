package main

import (
	"fmt"
	"slices"
	"strings"

	"pixretry/tools/internal/mutant"
)

// The schema (mutant schemata, or mutation switching) is the package with every mutant that
// can wait behind a switch put there, so that one test binary holds them all and the
// environment variable mutantVar chooses, at run time, the one that is on. Each mutant
// replaces a span of its file; the schema wraps that span, unmutated, in code that behaves as
// the mutant when its switch is on and as the original otherwise:
//
//	statement or case body  S       if !mutantOn(N) { S }
//	condition of an if      C       !mutantOn(F) && (mutantOn(T) || (C))
//	else or else-if         E       else { if !mutantOn(N) { E } }
//	function body           B       { if mutantOn(Z) { return zero values }; if mutantOn(T) { return true }; B }
//	boolean literal         true    (true != mutantOn(N))
//	string literal          "s"     Type(mutantString(N, "s"))
//
// Spans nest (a statement in a case body in a function), and a switch wraps the schema of what
// it holds. A mutant whose wrapped span does not type-check (a literal where a constant is
// required, a fallthrough that must end its case) cannot wait behind a switch: it is built
// alone, as every mutant once was.
const mutantVar = "PIXRETRY_MUTANT"

// switchFile is the file that the schema adds to the package: the switch, read once.
const switchFile = "zz_mutant_switch.go"

func switchSource(pkg string) []byte {
	return fmt.Appendf(nil, `package %s

import (
	"os"
	"strconv"
)

var mutantActive = func() int {
	n, err := strconv.Atoi(os.Getenv(%q))
	if err != nil {
		return -1
	}
	return n
}()

func mutantOn(n int) bool { return n == mutantActive }

func mutantString(n int, s string) string {
	if n == mutantActive {
		return ""
	}
	return s
}
`, pkg, mutantVar)
}

// switchStub is switchSource without imports, for type checks: they need no export data of
// packages the package may not import.
func switchStub(pkg string) []byte {
	return fmt.Appendf(nil, `package %s

var mutantActive int

func mutantOn(n int) bool { return n == mutantActive }

func mutantString(n int, s string) string {
	if n == mutantActive {
		return ""
	}
	return s
}
`, pkg)
}

// site is a span of a file and the mutants that replace it. A site of gremlins' operators
// also knows its token's span and how to switch it.
type site struct {
	start, end int
	mutants    []int // indexes into the pass's mutants, but the token's
	tokens     []int // gremlins' mutants of the site's token
	tok        [2]int
	form       operatorForm
}

// wrapOrder is the order in which the switches of mutants of one span wrap it, innermost first.
// gremlins' mutants of a token come first of all: their schema renders the span itself.
var wrapOrder = map[string]int{
	mutant.OpFlipBool: 0, mutant.OpEmptyString: 0,
	mutant.OpIfTrue: 1, mutant.OpIfFalse: 1,
	mutant.OpRemove: 2, mutant.OpEmptyCase: 2,
	mutant.OpEmptyElse: 3,
	mutant.OpZeroBody:  4, mutant.OpTrueBody: 4,
}

// A schema is how one file's mutants are put behind switches.
type schema struct {
	all  []mutant.Mutant
	base int                  // the switch number of all[0]: passes over several packages share one space
	conv map[int]string       // the checker's type names, by offset (check.go)
	ops  map[int]operatorNode // the nodes of gremlins' tokens, by the token's offset
}

// schemaOf returns src with the mutants of ms (indexes into all, every one of file) behind
// their switches, the switch of all[i] numbered base+i. conv says how a string literal's
// mutant converts its string and how an operator's expression names its type, by offset ("?"
// when no switch can).
func schemaOf(src []byte, all []mutant.Mutant, ms []int, conv map[int]string, base int) []byte {
	sc := schema{all: all, base: base, conv: conv}
	sites := map[[2]int]*site{}
	for _, i := range ms {
		m := all[i]
		k, tok := [2]int{m.Start, m.End}, false
		if isToken(m) {
			if sc.ops == nil {
				sc.ops = operatorNodes(src)
			}
			node := sc.ops[m.Start]
			k, tok = [2]int{node.start, node.end}, true
		}
		if sites[k] == nil {
			sites[k] = &site{start: k[0], end: k[1]}
		}
		s := sites[k]
		if tok {
			s.tokens = append(s.tokens, i)
			s.tok, s.form = [2]int{m.Start, m.End}, sc.ops[m.Start].form
		} else {
			s.mutants = append(s.mutants, i)
		}
	}
	list := make([]*site, 0, len(sites))
	for _, s := range sites {
		slices.SortFunc(s.mutants, func(a, b int) int { return wrapOrder[all[a].Op] - wrapOrder[all[b].Op] })
		list = append(list, s)
	}
	// Outer spans first among those that start together.
	slices.SortFunc(list, func(a, b *site) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	var b strings.Builder
	sc.render(&b, src, list, 0, len(src))
	return []byte(b.String())
}

// render writes src[lo:hi] with the sites (within it, sorted outer first) wrapped.
func (sc schema) render(b *strings.Builder, src []byte, sites []*site, lo, hi int) {
	pos := lo
	for i := 0; i < len(sites); {
		s := sites[i]
		j := i + 1
		for j < len(sites) && sites[j].start < s.end {
			j++
		}
		b.Write(src[pos:s.start])
		text := sc.site(src, s, sites[i+1:j])
		for _, n := range s.mutants {
			text = sc.wrap(sc.all[n], n, text)
		}
		b.WriteString(text)
		pos, i = s.end, j
	}
	b.Write(src[pos:hi])
}

// site renders the span of s with the sites nested in it and, when s has gremlins' mutants,
// their switches on its token.
func (sc schema) site(src []byte, s *site, nested []*site) string {
	if len(s.tokens) == 0 {
		var inner strings.Builder
		sc.render(&inner, src, nested, s.start, s.end)
		return inner.String()
	}
	k := 0
	for k < len(nested) && nested[k].start < s.tok[0] {
		k++
	}
	var left, right strings.Builder
	sc.render(&left, src, nested[:k], s.start, s.tok[0])
	sc.render(&right, src, nested[k:], s.tok[1], s.end)
	ms := make([]mutant.Mutant, len(s.tokens))
	ns := make([]int, len(s.tokens))
	for i, n := range s.tokens {
		ms[i], ns[i] = sc.all[n], sc.base+n
	}
	return switchTokens(s.form, left.String(), string(src[s.tok[0]:s.tok[1]]), right.String(), sc.conv[s.tok[0]], ms, ns)
}

// wrap returns the schema of one mutant (all[n]) around text, its span's schema so far.
func (sc schema) wrap(m mutant.Mutant, n int, text string) string {
	n += sc.base
	switch m.Op {
	case mutant.OpFlipBool:
		return fmt.Sprintf("(%s != mutantOn(%d))", text, n)
	case mutant.OpEmptyString:
		if t := sc.conv[m.Start]; t != "" {
			return fmt.Sprintf("%s(mutantString(%d, %s))", t, n, text)
		}
		return fmt.Sprintf("mutantString(%d, %s)", n, text)
	case mutant.OpIfTrue:
		return fmt.Sprintf("(mutantOn(%d) || (%s))", n, text)
	case mutant.OpIfFalse:
		return fmt.Sprintf("(!mutantOn(%d) && (%s))", n, text)
	case mutant.OpRemove, mutant.OpEmptyCase:
		return fmt.Sprintf("if !mutantOn(%d) { %s }", n, text)
	case mutant.OpEmptyElse:
		if strings.HasPrefix(text, "{") {
			return fmt.Sprintf("{ if !mutantOn(%d) %s }", n, text)
		}
		return fmt.Sprintf("{ if !mutantOn(%d) { %s } }", n, text)
	case mutant.OpZeroBody, mutant.OpTrueBody:
		with := m.With
		if with == "{}" {
			with = "{ return }"
		}
		return fmt.Sprintf("{ if mutantOn(%d) %s; %s", n, with, strings.TrimPrefix(text, "{"))
	}
	panic("mutationextended: no schema for operator " + m.Op)
}
