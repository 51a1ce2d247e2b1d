package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A key names a mutant so that it stays put when lines move:
//
//	PKG/FILE:FUNC MUTATOR: TEXT
//
// FUNC is the enclosing function (a method as Type.Name), or at package level the first name
// the declaration declares. TEXT is the mutated line with the mutated token in «guillemets»,
// trimmed, each run of spaces made one, so that gofmt's alignment cannot move it. When that line's text occurs more than once in FUNC, " (#N)" follows, N
// counting from 1 in the order of the source, so that every mutant has a key of its own.
//
// A key moves only when its own line, its function's name or an identical line in the same
// function changes.

// source is one parsed file of a package, for keys.
type source struct {
	name  string // PKG/FILE
	fset  *token.FileSet
	file  *ast.File
	lines []string
}

// sources parses the files of a package under root, once each.
type sources struct {
	root  string
	files map[string]*source
}

func (s *sources) open(name string) (*source, error) {
	if f, ok := s.files[name]; ok {
		return f, nil
	}
	data, err := os.ReadFile(filepath.Join(s.root, name))
	if err != nil {
		return nil, fmt.Errorf("mutationgap: %w", err)
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, data, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("mutationgap: %w", err)
	}
	f := &source{name: name, fset: fset, file: file, lines: strings.Split(string(data), "\n")}
	if s.files == nil {
		s.files = map[string]*source{}
	}
	s.files[name] = f
	return f, nil
}

// key returns the key of the mutant of type typ at line and column (from 1, in bytes) of the
// file name (PKG/FILE) under s's root.
func (s *sources) key(name string, line, column int, typ string) (string, error) {
	f, err := s.open(name)
	if err != nil {
		return "", err
	}
	if line < 1 || line > len(f.lines) {
		return "", fmt.Errorf("mutationgap: %s has no line %d (is the report older than the code?)", name, line)
	}
	text := f.lines[line-1]
	tok := tokenAt(text, column)
	if tok == "" {
		return "", fmt.Errorf("mutationgap: %s:%d:%d: no token starts there (is the report older than the code?)",
			name, line, column)
	}
	marked := strings.Join(strings.Fields(text[:column-1]+"«"+tok+"»"+text[column-1+len(tok):]), " ")
	fn, first, last := f.enclosing(line)
	k := fmt.Sprintf("%s:%s %s: %s", name, fn, typ, marked)
	if n, of := f.occurrence(first, last, line); of > 1 {
		k += fmt.Sprintf(" (#%d)", n)
	}
	return k, nil
}

// tokenAt returns the Go token that starts at column (from 1, in bytes) of line, or "".
func tokenAt(line string, column int) string {
	var s scanner.Scanner
	fset := token.NewFileSet()
	src := []byte(line)
	s.Init(fset.AddFile("", -1, len(src)), src, nil, 0)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return ""
		}
		off := fset.Position(pos).Offset
		switch {
		case off < column-1:
			continue
		case off > column-1:
			return ""
		case lit != "" && tok != token.SEMICOLON:
			return lit
		default:
			return tok.String()
		}
	}
}

// enclosing returns the name of the declaration holding line, and its first and last lines.
// Outside any declaration it returns "-" and the whole file.
func (f *source) enclosing(line int) (name string, first, last int) {
	for _, d := range f.file.Decls {
		first, last = f.fset.Position(d.Pos()).Line, f.fset.Position(d.End()).Line
		if line < first || line > last {
			continue
		}
		switch d := d.(type) {
		case *ast.FuncDecl:
			return funcName(d), first, last
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				if s, ok := spec.(*ast.ValueSpec); ok && len(s.Names) > 0 {
					return s.Names[0].Name, first, last
				}
			}
		}
		return "-", first, last
	}
	return "-", 1, len(f.lines)
}

// funcName is Name, or Type.Name for a method.
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + d.Name.Name
		}
		return d.Name.Name
	}
}

// occurrence returns which occurrence of line's trimmed text line is, from 1, among the lines
// first to last, and how many there are.
func (f *source) occurrence(first, last, line int) (n, of int) {
	want := strings.Fields(f.lines[line-1])
	for i := first; i <= last; i++ {
		if !slices.Equal(strings.Fields(f.lines[i-1]), want) {
			continue
		}
		of++
		if i <= line {
			n = of
		}
	}
	return n, of
}
