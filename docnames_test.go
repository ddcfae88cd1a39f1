package researchctx

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docName is a Go name as the docs write it: `pkg.Name`, `pkg.Type.Field`
// or `pkg.Type.Method`, in backquotes.
var docName = regexp.MustCompile("`([a-z][a-z0-9]*)\\.([A-Z][A-Za-z0-9_]*)(?:\\.([A-Z][A-Za-z0-9_]*))?")

// TestDocumentedNamesResolve: every name of this module's packages that
// README.md and docs/*.md mention in code spans (a function, type,
// variable, constant, test, a type's field or method) exists in the code,
// so a rename or a move cannot leave the docs naming what is gone. A
// package is known by its name (a command's by its folder); names of
// packages outside the module are not checked.
func TestDocumentedNamesResolve(t *testing.T) {
	names := moduleNames(t, ".")
	docs, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, "README.md")
	checked := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range docName.FindAllStringSubmatch(string(b), -1) {
			pkg, name := m[1], m[2]
			if m[3] != "" {
				name += "." + m[3]
			}
			known, ok := names[pkg]
			if !ok {
				continue
			}
			checked++
			if !known[name] {
				t.Errorf("%s names %s.%s, which package %s does not have", filepath.ToSlash(doc), pkg, name, pkg)
			}
		}
	}
	// The docs name hundreds; a pattern that matched none would pass
	// vacuously.
	if checked < 100 {
		t.Errorf("only %d names checked: the pattern no longer matches how the docs write them", checked)
	}
}

// moduleNames returns, by package name, the top-level names of every Go
// file under root (tests included) and the fields and methods of its types
// as "Type.Name".
func moduleNames(t *testing.T, root string) map[string]map[string]bool {
	t.Helper()
	names := map[string]map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := strings.TrimSuffix(f.Name.Name, "_test")
		if pkg == "main" {
			pkg = filepath.Base(filepath.Dir(p))
		}
		if names[pkg] == nil {
			names[pkg] = map[string]bool{}
		}
		addNames(names[pkg], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// addNames adds f's top-level names, and its types' fields and methods, to
// known.
func addNames(known map[string]bool, f *ast.File) {
	members := func(typ string, fields *ast.FieldList) {
		for _, fl := range fields.List {
			for _, n := range fl.Names {
				known[typ+"."+n.Name] = true
			}
		}
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) == 0 {
				known[d.Name.Name] = true
				continue
			}
			typ := d.Recv.List[0].Type
			if s, ok := typ.(*ast.StarExpr); ok {
				typ = s.X
			}
			switch g := typ.(type) {
			case *ast.IndexExpr:
				typ = g.X
			case *ast.IndexListExpr:
				typ = g.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				known[id.Name+"."+d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					known[s.Name.Name] = true
					switch ty := s.Type.(type) {
					case *ast.StructType:
						members(s.Name.Name, ty.Fields)
					case *ast.InterfaceType:
						members(s.Name.Name, ty.Methods)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						known[n.Name] = true
					}
				}
			}
		}
	}
}
