package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"

	"pixretry/tools/internal/mutant"
)

// gremlins' operators (mutant.Tokens) replace one token: the operator of an expression or of a
// statement. Their schema wraps the whole expression or statement, rendered once with each
// token, so that the operands keep their own schemata and are evaluated once:
//
//	comparison or && ||       L op R      (mutantOn(N) && (L op' R) || !mutantOn(N) && (L op R))
//	other binary, unary op    L op R      func() T { if mutantOn(N) { return L op' R }; return L op R }()
//	assignment, ++ --, break  L op R      if mutantOn(N) { L op' R } else { L op R }
//
// T is the expression's type as the file can name it (check.go); a mutant whose type it cannot
// name, or whose schema does not type-check (a constant expression, a for loop's post
// statement), is built alone.

// operatorForm is how the schema switches a token: the kind of node the token belongs to.
type operatorForm int

const (
	boolForm  operatorForm = iota // a comparison or a logical operator: a bool
	valueForm                     // another binary or a unary operator: a value of its type
	stmtForm                      // an assignment, an increment or a branch statement
)

// operatorNode is the node whose token a gremlins mutant replaces.
type operatorNode struct {
	start, end int // the node's span
	form       operatorForm
}

// operatorNodes maps the offset of each operator token in src to its node.
func operatorNodes(src []byte) map[int]operatorNode {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	nodes := map[int]operatorNode{}
	ast.Inspect(file, func(n ast.Node) bool {
		var at token.Pos
		form := stmtForm
		switch n := n.(type) {
		case *ast.BinaryExpr:
			at, form = n.OpPos, valueForm
			switch n.Op {
			case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
				form = boolForm
			}
		case *ast.UnaryExpr:
			at, form = n.OpPos, valueForm
		case *ast.AssignStmt:
			at = n.TokPos
		case *ast.IncDecStmt:
			at = n.TokPos
		case *ast.BranchStmt:
			at = n.TokPos
		default:
			return true
		}
		nodes[fset.Position(at).Offset] = operatorNode{
			start: fset.Position(n.Pos()).Offset, end: fset.Position(n.End()).Offset, form: form,
		}
		return true
	})
	return nodes
}

// isToken says whether m is one of gremlins' operators rather than Extended's.
func isToken(m mutant.Mutant) bool {
	_, ext := wrapOrder[m.Op]
	return !ext
}

// switchTokens returns the schema of one operator node: left and right are its text before and
// after the token (already holding their own schemata), tok the token's text, typ the
// expression's type for the value form, and ms the mutants of the token with their switch
// numbers.
func switchTokens(form operatorForm, left, tok, right, typ string, ms []mutant.Mutant, ns []int) string {
	orig := left + tok + right
	var b strings.Builder
	switch form {
	case boolForm:
		for i, m := range ms {
			fmt.Fprintf(&b, "(mutantOn(%d) && (%s) || !mutantOn(%d) && ", ns[i], left+m.With+right, ns[i])
		}
		fmt.Fprintf(&b, "(%s)%s", orig, strings.Repeat(")", len(ms)))
	case valueForm:
		fmt.Fprintf(&b, "func() %s { ", typ)
		for i, m := range ms {
			fmt.Fprintf(&b, "if mutantOn(%d) { return %s }; ", ns[i], left+m.With+right)
		}
		fmt.Fprintf(&b, "return %s }()", orig)
	case stmtForm:
		for i, m := range ms {
			fmt.Fprintf(&b, "if mutantOn(%d) { %s } else ", ns[i], left+m.With+right)
		}
		fmt.Fprintf(&b, "{ %s }", orig)
	}
	return b.String()
}
