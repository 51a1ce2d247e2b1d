package mutant

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
)

// The operators of Extended, which gremlins lacks. Each mutant replaces one span of one
// file's bytes, so that every other line and column stays where it was.
const (
	OpRemove      = "remove-stmt"  // an expression, assignment, inc/dec or defer statement; a nested return
	OpIfTrue      = "if-true"      // an if condition becomes true
	OpIfFalse     = "if-false"     // an if condition becomes false
	OpEmptyElse   = "empty-else"   // an else (or else-if) becomes {}
	OpEmptyCase   = "empty-case"   // a case or select clause loses its body
	OpZeroBody    = "zero-body"    // a function body becomes a return of zero values
	OpTrueBody    = "true-body"    // a function returning one bool returns true
	OpFlipBool    = "flip-bool"    // true becomes false, false true
	OpEmptyString = "empty-string" // a non-empty string literal becomes ""
)

// extended holds Extended's operators.
var extended = map[string]bool{
	OpRemove: true, OpIfTrue: true, OpIfFalse: true, OpEmptyElse: true, OpEmptyCase: true,
	OpZeroBody: true, OpTrueBody: true, OpFlipBool: true, OpEmptyString: true,
}

// A Mutant is one change to one file of a package: the bytes from Start to End replaced by
// With.
type Mutant struct {
	File       string // the file's base name
	Func       string // the enclosing function (Type.Method) or package-level name
	Op         string
	Text       string // the mutated source, on one line, for the id and the report
	Pos        token.Position
	Start, End int    // the byte span replaced
	With       string // what replaces it
	ID         string // DIR/FILE:FUNC:OP:TEXT, #n when that repeats (Load); stable while lines move
}

// Apply returns src with the mutant's span replaced.
func (m Mutant) Apply(src []byte) []byte {
	out := append([]byte(nil), src[:m.Start]...)
	out = append(out, m.With...)
	return append(out, src[m.End:]...)
}

// finder collects the mutants of one file.
type finder struct {
	fset *token.FileSet
	src  []byte
	name string
	fn   string
	out  []Mutant
	// bodies holds the functions' top-level blocks: a return there is the last way out.
	bodies map[*ast.BlockStmt]bool
}

// Extended returns the statement, condition, body and literal mutants of one file, in source
// order.
func Extended(name string, src []byte) ([]Mutant, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("mutationextended: %w", err)
	}
	f := &finder{fset: fset, src: src, name: name, bodies: map[*ast.BlockStmt]bool{}}
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			f.fn = FuncName(d)
			if d.Body == nil {
				continue
			}
			f.extreme(d)
			f.bodies[d.Body] = true
			f.walk(d.Body)
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue
			}
			for _, spec := range d.Specs {
				f.fn = specName(spec)
				f.walk(spec)
			}
		}
	}
	return f.out, nil
}

func FuncName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch r := t.(type) {
	case *ast.IndexExpr:
		t = r.X
	case *ast.IndexListExpr:
		t = r.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + d.Name.Name
	}
	return d.Name.Name
}

func specName(s ast.Spec) string {
	switch s := s.(type) {
	case *ast.ValueSpec:
		return s.Names[0].Name
	case *ast.TypeSpec:
		return s.Name.Name
	}
	return "_"
}

// add records a Mutant replacing node's span [from, to) with with.
func (f *finder) add(op string, from, to token.Pos, with string, text string) {
	start, end := f.fset.Position(from).Offset, f.fset.Position(to).Offset
	f.out = append(f.out, Mutant{
		File: f.name, Func: f.fn, Op: op, Text: oneLine(text), Pos: f.fset.Position(from),
		Start: start, End: end, With: with,
	})
}

func (f *finder) text(n ast.Node) string {
	return string(f.src[f.fset.Position(n.Pos()).Offset:f.fset.Position(n.End()).Offset])
}

// oneLine collapses white space and keeps the first 80 bytes: enough to tell mutants apart
// in a report and an equivalence list.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return s
}

// extreme adds the function-body mutants: a return of zero values (each result declared
// with its own type expression, so that no type checker is needed), and true for a function
// whose one result is a bool.
func (f *finder) extreme(d *ast.FuncDecl) {
	if len(d.Body.List) == 0 {
		return
	}
	defer f.atFirstStatement(len(f.out), d.Body.List[0])
	results := d.Type.Results
	body := "{}"
	if results != nil && len(results.List) > 0 {
		named := len(results.List[0].Names) > 0
		var decls, names []string
		for i, r := range results.List {
			if named {
				break
			}
			name := fmt.Sprintf("zero%d", i)
			decls = append(decls, "var "+name+" "+f.text(r.Type))
			names = append(names, name)
		}
		if named {
			body = "{ return }"
		} else {
			body = "{ " + strings.Join(decls, "; ") + "; return " + strings.Join(names, ", ") + " }"
		}
		if len(results.List) == 1 && !named {
			if id, ok := results.List[0].Type.(*ast.Ident); ok && id.Name == "bool" {
				f.add(OpTrueBody, d.Body.Lbrace, d.Body.Rbrace+1, "{ return true }", "body")
			}
		}
	}
	f.add(OpZeroBody, d.Body.Lbrace, d.Body.Rbrace+1, body, "body")
}

// atFirstStatement places the mutants from the i-th on at a body's first statement, whose
// coverage says whether the function ran.
func (f *finder) atFirstStatement(i int, first ast.Stmt) {
	for ; i < len(f.out); i++ {
		f.out[i].Pos = f.fset.Position(first.Pos())
	}
}

// walk adds the statement, condition and literal mutants under n.
func (f *finder) walk(n ast.Node) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BlockStmt:
			f.statements(n.List, !f.bodies[n])
		case *ast.CaseClause:
			f.statements(n.Body, true)
			f.emptyClause(n.Body)
		case *ast.CommClause:
			f.statements(n.Body, true)
			f.emptyClause(n.Body)
		case *ast.FuncLit:
			f.bodies[n.Body] = true
		case *ast.IfStmt:
			f.ifStmt(n)
		case *ast.Ident:
			if n.Name == "true" || n.Name == "false" {
				flipped := map[string]string{"true": "false", "false": "true"}[n.Name]
				f.add(OpFlipBool, n.Pos(), n.End(), flipped, n.Name)
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING && n.Value != `""` && n.Value != "``" {
				f.add(OpEmptyString, n.Pos(), n.End(), `""`, n.Value)
			}
		case *ast.Field:
			// a struct tag is no value: walk the field's type only
			if n.Type != nil {
				f.walk(n.Type)
			}
			return false
		}
		return true
	})
}

// statements adds a remove-stmt Mutant for each statement of a list; nested says whether a
// return there has another way out after it (a case body, or a block other than a function's).
func (f *finder) statements(list []ast.Stmt, nested bool) {
	for _, s := range list {
		switch s := s.(type) {
		case *ast.ExprStmt, *ast.IncDecStmt, *ast.DeferStmt:
			f.add(OpRemove, s.Pos(), s.End(), "", f.text(s))
		case *ast.AssignStmt:
			if s.Tok != token.DEFINE { // removing a declaration never compiles
				f.add(OpRemove, s.Pos(), s.End(), "", f.text(s))
			}
		case *ast.ReturnStmt:
			if nested {
				f.add(OpRemove, s.Pos(), s.End(), "", f.text(s))
			}
		}
	}
}

func (f *finder) emptyClause(body []ast.Stmt) {
	if len(body) == 0 {
		return
	}
	first, last := body[0], body[len(body)-1]
	f.add(OpEmptyCase, first.Pos(), last.End(), "", f.text(first))
}

// ifStmt adds the condition and else mutants. A condition becomes `true || (cond)` and
// `false && (cond)`: the same values, while the names that only the condition reads stay read,
// so that the Mutant still compiles.
func (f *finder) ifStmt(n *ast.IfStmt) {
	cond := f.text(n.Cond)
	f.add(OpIfTrue, n.Cond.Pos(), n.Cond.End(), "true || ("+cond+")", cond)
	f.add(OpIfFalse, n.Cond.Pos(), n.Cond.End(), "false && ("+cond+")", cond)
	switch e := n.Else.(type) {
	case *ast.BlockStmt:
		if len(e.List) > 0 {
			f.add(OpEmptyElse, e.Pos(), e.End(), "{}", "else "+f.text(e.List[0]))
		}
	case *ast.IfStmt:
		f.add(OpEmptyElse, e.Pos(), e.End(), "{}", "else "+f.text(e.Cond))
	}
}
