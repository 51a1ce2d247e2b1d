// Command globals fails for a package-level variable assigned outside its declaration, in the
// packages named on its command line and their tests. A hook that a test reassigns, such as a
// crash point, reaches product code through its configuration instead (STYLE.md: CockroachDB's
// testing knobs); a variable reassigned at run time is state that every caller shares unseen.
//
//	globals [packages]
//
// It reports each assignment, ++ or --, as file:line:column, and exits 1 if it found one.
// A variable's own declaration, `var x = f()`, and a package's init assigning it, are not
// assignments it reports: both run once, before anything reads it.
package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"

	"golang.org/x/tools/go/packages"
)

func main() {
	found, err := check(".", os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for _, f := range found {
		fmt.Println(f)
	}
	if len(found) > 0 {
		os.Exit(1)
	}
}

// check loads patterns from dir, with their tests, and returns every assignment to a
// package-level variable outside its declaration and init.
func check(dir string, patterns []string) ([]string, error) {
	cfg := &packages.Config{
		Mode:  packages.NeedName | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:   dir,
		Tests: true,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("globals: %w", err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		return nil, fmt.Errorf("globals: the packages do not load")
	}
	seen := map[string]bool{} // a package's files come again in its test variant
	var found []string
	for _, pkg := range pkgs {
		for _, file := range pkg.Syntax {
			for _, pos := range assignments(pkg, file) {
				at := pkg.Fset.Position(pos)
				line := fmt.Sprintf("%s: package-level variable %s assigned outside its declaration", at, nameAt(pkg, file, pos))
				if !seen[line] {
					seen[line] = true
					found = append(found, line)
				}
			}
		}
	}
	return found, nil
}

// assignments returns where file assigns a package-level variable outside an init function.
func assignments(pkg *packages.Package, file *ast.File) []token.Pos {
	var at []token.Pos
	global := func(e ast.Expr) {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return
		}
		if v, ok := pkg.TypesInfo.Uses[id].(*types.Var); ok && v.Parent() == v.Pkg().Scope() {
			at = append(at, id.Pos())
		}
	}
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil || fn.Recv == nil && fn.Name.Name == "init" {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, lhs := range n.Lhs {
					global(lhs)
				}
			case *ast.IncDecStmt:
				global(n.X)
			case *ast.RangeStmt:
				if n.Tok == token.ASSIGN {
					global(n.Key)
					global(n.Value)
				}
			}
			return true
		})
	}
	return at
}

// nameAt is the name of the identifier at pos in file.
func nameAt(pkg *packages.Package, file *ast.File, pos token.Pos) string {
	name := "?"
	ast.Inspect(file, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Pos() == pos {
			name = id.Name
		}
		return name == "?"
	})
	return name
}
