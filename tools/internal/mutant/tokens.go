package mutant

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strings"
)

// tokenMutations is gremlins v0.6.0's table (internal/engine/mappings.go): for each mutator
// type, the token each mutable token becomes.
var tokenMutations = map[string]map[token.Token]token.Token{
	"ARITHMETIC_BASE": {
		token.ADD: token.SUB, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL, token.SUB: token.ADD,
	},
	"CONDITIONALS_BOUNDARY": {
		token.GEQ: token.GTR, token.GTR: token.GEQ, token.LEQ: token.LSS, token.LSS: token.LEQ,
	},
	"CONDITIONALS_NEGATION": {
		token.EQL: token.NEQ, token.GEQ: token.LSS, token.GTR: token.LEQ,
		token.LEQ: token.GTR, token.LSS: token.GEQ, token.NEQ: token.EQL,
	},
	"INCREMENT_DECREMENT": {token.DEC: token.INC, token.INC: token.DEC},
	"INVERT_ASSIGNMENTS": {
		token.ADD_ASSIGN: token.SUB_ASSIGN, token.MUL_ASSIGN: token.QUO_ASSIGN, token.QUO_ASSIGN: token.MUL_ASSIGN,
		token.REM_ASSIGN: token.REM_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN,
	},
	"INVERT_BITWISE": {
		token.AND: token.OR, token.OR: token.AND, token.XOR: token.AND,
		token.AND_NOT: token.AND, token.SHL: token.SHR, token.SHR: token.SHL,
	},
	"INVERT_BWASSIGN": {
		token.AND_ASSIGN: token.OR_ASSIGN, token.OR_ASSIGN: token.AND_ASSIGN, token.XOR_ASSIGN: token.AND_ASSIGN,
		token.AND_NOT_ASSIGN: token.AND_ASSIGN, token.SHL_ASSIGN: token.SHR_ASSIGN, token.SHR_ASSIGN: token.SHL_ASSIGN,
	},
	"INVERT_LOGICAL":   {token.LAND: token.LOR, token.LOR: token.LAND},
	"INVERT_LOOPCTRL":  {token.BREAK: token.CONTINUE, token.CONTINUE: token.BREAK},
	"INVERT_NEGATIVES": {token.SUB: token.ADD},
	"REMOVE_SELF_ASSIGNMENTS": {
		token.ADD_ASSIGN: token.ASSIGN, token.AND_ASSIGN: token.ASSIGN, token.AND_NOT_ASSIGN: token.ASSIGN,
		token.MUL_ASSIGN: token.ASSIGN, token.OR_ASSIGN: token.ASSIGN, token.QUO_ASSIGN: token.ASSIGN,
		token.REM_ASSIGN: token.ASSIGN, token.SHL_ASSIGN: token.ASSIGN, token.SHR_ASSIGN: token.ASSIGN,
		token.SUB_ASSIGN: token.ASSIGN, token.XOR_ASSIGN: token.ASSIGN,
	},
}

// Mutate returns src with the one mutation gremlins names: the token of type typ at
// line:column (1-based, columns in bytes, as go/token counts them). Like gremlins, it looks
// for the token only as the operator of an assignment, a binary or unary expression, a
// branch or an increment statement; the bytes outside the token are kept, so that every line
// and column stays where the report says. A position with no such token, or a token the type
// does not mutate, is an error: the gate cannot prove what it cannot reproduce.
func Mutate(src []byte, filename string, line, column int, typ string) ([]byte, error) {
	table, ok := tokenMutations[typ]
	if !ok {
		return nil, fmt.Errorf("mutant: %s:%d:%d: unknown mutator type %s", filename, line, column, typ)
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, filename, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("mutant: %w", err)
	}
	var found []token.Token
	var offset int
	ast.Inspect(file, func(n ast.Node) bool {
		tok, pos, ok := operator(n)
		if !ok {
			return true
		}
		if p := fset.Position(pos); p.Line == line && p.Column == column {
			found = append(found, tok)
			offset = p.Offset
		}
		return true
	})
	if len(found) != 1 {
		return nil, fmt.Errorf("mutant: %s:%d:%d: %d operators there, want 1 (is the report older than the source?)",
			filename, line, column, len(found))
	}
	to, ok := table[found[0]]
	if !ok {
		return nil, fmt.Errorf("mutant: %s:%d:%d: %s does not mutate %s", filename, line, column, typ, found[0])
	}
	from := found[0].String()
	if string(src[offset:offset+len(from)]) != from {
		return nil, fmt.Errorf("mutant: %s:%d:%d: source has %q, want %q", filename, line, column,
			src[offset:offset+len(from)], from)
	}
	out := append([]byte(nil), src[:offset]...)
	out = append(out, to.String()...)
	return append(out, src[offset+len(from):]...), nil
}

// operator is gremlins' NewTokenNode: the nodes whose token it mutates.
func operator(n ast.Node) (token.Token, token.Pos, bool) {
	switch n := n.(type) {
	case *ast.AssignStmt:
		return n.Tok, n.TokPos, true
	case *ast.BinaryExpr:
		return n.Op, n.OpPos, true
	case *ast.BranchStmt:
		return n.Tok, n.TokPos, true
	case *ast.IncDecStmt:
		return n.Tok, n.TokPos, true
	case *ast.UnaryExpr:
		return n.Op, n.OpPos, true
	}
	return 0, 0, false
}

// Tokens returns gremlins' mutants of one file: at each operator that Mutate would find, one
// mutant per mutator type whose table holds its token, in source order and, at one token, in
// the order of the types' names. A mutant's Pos is its token's, as gremlins reports it.
func Tokens(name string, src []byte) ([]Mutant, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("mutant: %w", err)
	}
	types := make([]string, 0, len(tokenMutations))
	for typ := range tokenMutations {
		types = append(types, typ)
	}
	slices.Sort(types)
	var out []Mutant
	visit := func(fn string, n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			tok, pos, ok := operator(n)
			if !ok {
				return true
			}
			p := fset.Position(pos)
			start, end := fset.Position(n.Pos()).Offset, fset.Position(n.End()).Offset
			from := tok.String()
			text := marked(string(src[start:p.Offset]) + "«" + from + "»" + string(src[p.Offset+len(from):end]))
			for _, typ := range types {
				if to, ok := tokenMutations[typ][tok]; ok {
					out = append(out, Mutant{File: name, Func: fn, Op: typ, Text: text, Pos: p,
						Start: p.Offset, End: p.Offset + len(from), With: to.String()})
				}
			}
			return true
		})
	}
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			visit(FuncName(d), d)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				visit(specName(spec), spec)
			}
		}
	}
	return out, nil
}

// marked is oneLine for a text with a «mark»: white space collapsed, and at most 40 bytes kept
// on each side of the mark, so that a long expression still names its operator.
func marked(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	i, j := strings.Index(s, "«"), strings.Index(s, "»")+len("»")
	if i > 40 {
		s, j = "..."+s[i-40:], j-i+40+3
	}
	if len(s)-j > 40 {
		s = s[:j+40] + "..."
	}
	return s
}
