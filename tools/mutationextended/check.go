package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"sort"
)

// checker type-checks variants of one package: the package with one file replaced (a mutant
// alone), or with several replaced (the schema). It reads the package's imports from the export
// data the go command writes for them, so that a check costs a parse of the replaced files and
// a type check, and no build.
type checker struct {
	name    string             // the package's name
	sources map[string][]byte  // by base name
	fset    *token.FileSet     // the positions of the imports and the unmutated files
	imports types.ImporterFrom // shared by every check: it caches what it reads
	// types holds, by file and then offset, how the schema names the type of a string literal
	// (at the literal's offset) and of an operator's expression (at the operator's offset):
	// typeName and exprTypeName.
	types map[string]map[int]string
}

// newChecker lists the export data of the package's dependencies (which builds them, as the test
// binaries would) and type-checks the unmutated package, which must pass.
func newChecker(dir, name string, sources map[string][]byte) (*checker, error) {
	exports, err := exportData(dir)
	if err != nil {
		return nil, err
	}
	c := &checker{name: name, sources: sources, fset: token.NewFileSet()}
	c.imports = importer.ForCompiler(c.fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	}).(types.ImporterFrom)
	names := make([]string, 0, len(sources))
	for name := range sources {
		names = append(names, name)
	}
	sort.Strings(names)
	var files []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(c.fset, name, sources[name], parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("mutationextended: %w", err)
		}
		files = append(files, f)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
		Implicits: map[ast.Node]types.Object{}}
	if err := c.check(c.fset, files, info); err != nil {
		return nil, fmt.Errorf("mutationextended: the unmutated package %s does not type-check: %w", dir, err)
	}
	c.types = map[string]map[int]string{}
	imports := map[string]map[string]string{}
	for _, f := range files {
		imports[c.fset.Position(f.Pos()).Filename] = importNames(f, info)
	}
	for expr, tv := range info.Types {
		var at token.Pos
		var name func(file string) string
		switch e := expr.(type) {
		case *ast.BasicLit:
			if e.Kind != token.STRING {
				continue
			}
			at, name = e.Pos(), func(string) string { return c.typeName(tv.Type) }
		case *ast.BinaryExpr:
			at = e.OpPos
		case *ast.UnaryExpr:
			at = e.OpPos
		default:
			continue
		}
		if name == nil {
			name = func(file string) string { return exprTypeName(tv.Type, imports[file]) }
		}
		p := c.fset.Position(at)
		if c.types[p.Filename] == nil {
			c.types[p.Filename] = map[int]string{}
		}
		c.types[p.Filename][p.Offset] = name(p.Filename)
	}
	return c, nil
}

// importNames maps the path of each package that file imports to the name the file gives it.
func importNames(file *ast.File, info *types.Info) map[string]string {
	names := map[string]string{}
	for _, spec := range file.Imports {
		obj := info.Defs[spec.Name]
		if spec.Name == nil {
			obj = info.Implicits[spec]
		}
		if pkg, ok := obj.(*types.PkgName); ok && pkg.Name() != "." && pkg.Name() != "_" {
			names[pkg.Imported().Path()] = pkg.Name()
		}
	}
	return names
}

// exprTypeName is how the schema names the type of an operator's expression in a file that
// imports the packages of imports (by path, as named there): untyped constants take their
// default type, and a type that names a package the file does not import is "?": no switch
// can hold a mutant of it.
func exprTypeName(t types.Type, imports map[string]string) string {
	known := true
	name := types.TypeString(types.Default(t), func(pkg *types.Package) string {
		if pkg.Path() == checkedPath {
			return ""
		}
		n, ok := imports[pkg.Path()]
		known = known && ok
		return n
	})
	if !known || t == nil {
		return "?"
	}
	return name
}

// typeName is how the schema converts a string to t: "" for string itself, the name of a
// string type declared in the package, or "?" for any other, which no switch can hold.
func (c *checker) typeName(t types.Type) string {
	if b, ok := t.(*types.Basic); ok && (b.Kind() == types.String || b.Kind() == types.UntypedString) {
		return ""
	}
	if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Name() == c.name &&
		n.Obj().Parent() == n.Obj().Pkg().Scope() && n.TypeArgs() == nil {
		if b, ok := n.Underlying().(*types.Basic); ok && b.Kind() == types.String {
			return n.Obj().Name()
		}
	}
	return "?"
}

// checkedPath is the import path under which the checker checks the package: types of the
// package itself are named without a qualifier.
const checkedPath = "mutationextended/checked"

// compiles says whether the package type-checks with the files of replaced (by base name) in
// place of its own. Every file is parsed anew, into one file set: go/types compares positions.
func (c *checker) compiles(replaced map[string][]byte) error {
	fset := token.NewFileSet()
	names := make([]string, 0, len(c.sources)+len(replaced))
	for name := range c.sources {
		names = append(names, name)
	}
	for name := range replaced {
		if _, ok := c.sources[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	files := make([]*ast.File, 0, len(names))
	for _, name := range names {
		src, ok := replaced[name]
		if !ok {
			src = c.sources[name]
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	return c.check(fset, files, nil)
}

func (c *checker) check(fset *token.FileSet, files []*ast.File, info *types.Info) error {
	var first error
	conf := types.Config{
		Importer: c.imports,
		Error: func(err error) {
			if first == nil {
				first = err
			}
		},
	}
	conf.Check(checkedPath, fset, files, info)
	return first
}

// exportData returns the export data file of each package that the package in dir imports,
// directly or not, by import path, from `go list -export`.
func exportData(dir string) (map[string]string, error) {
	cmd := exec.Command("go", "list", "-e", "-export", "-deps", "-json=ImportPath,Export,Error", ".")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("mutationextended: go list -export in %s: %w\n%s", dir, err, stderr.Bytes())
	}
	exports := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath, Export string
			Error              *struct{ Err string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("mutationextended: go list -export in %s: %w", dir, err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("mutationextended: go list -export in %s: %s: %s", dir, p.ImportPath, p.Error.Err)
		}
		exports[p.ImportPath] = p.Export
	}
	return exports, nil
}
