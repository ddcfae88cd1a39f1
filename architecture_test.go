package researchctx_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var updateArchitecture = flag.Bool("update-architecture", false, "rewrite the generated package table of docs/architecture.md")

const (
	architectureDoc = "docs/architecture.md"
	module          = "github.com/researchctx/researchctx"
	tableBegin      = "<!-- package table: generated from go list by TestArchitecture; run go test -run TestArchitecture -update-architecture . after changing a package -->"
	tableEnd        = "<!-- end of the package table -->"
)

// pkgInfo is what the check needs of one package of the module, as go list
// reports it.
type pkgInfo struct {
	ImportPath string
	Doc        string
	Imports    []string
}

// layer is one row of the hand-written layer table: a name and the
// package patterns it holds ("sources/vault", "internal/...").
type layer struct {
	name     string
	patterns []string
}

// TestArchitecture keeps docs/architecture.md true to the code: its layer
// table places every package of the module, no package imports one of a
// higher layer, and its package table (what each package is, from its doc
// comment, and what it imports) is what go list says.
func TestArchitecture(t *testing.T) {
	pkgs := listPackages(t)
	data, err := os.ReadFile(architectureDoc)
	if err != nil {
		t.Fatal(err)
	}
	layers := readLayers(t, data)

	layerOf, errs := placeAll(pkgs, layers)
	for _, err := range errs {
		t.Error(err)
	}

	want := packageTable(pkgs, layers, layerOf)
	got, start, end, err := generatedTable(data)
	if err != nil {
		t.Fatal(err)
	}
	if *updateArchitecture {
		out := slices.Concat(data[:start], []byte(want), data[end:])
		if err := os.WriteFile(architectureDoc, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the package table of %s is not what go list says (-want +got); run go test -run TestArchitecture -update-architecture .\n%s", architectureDoc, diff)
	}
}

// placeAll places every package in its layer and reports the packages
// the table places in no layer or in two, and every import of a package
// of a higher layer.
func placeAll(pkgs []pkgInfo, layers []layer) (map[string]int, []error) {
	var errs []error
	layerOf := map[string]int{}
	for _, p := range pkgs {
		i, err := placeIn(layers, rel(p.ImportPath))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		layerOf[p.ImportPath] = i
	}
	for _, p := range pkgs {
		from, ok := layerOf[p.ImportPath]
		if !ok {
			continue
		}
		for _, imp := range own(p.Imports) {
			if to, ok := layerOf[imp]; ok && to < from {
				errs = append(errs, fmt.Errorf("%s (layer %q) imports %s of the higher layer %q", rel(p.ImportPath), layers[from].name, rel(imp), layers[to].name))
			}
		}
	}
	return layerOf, errs
}

// TestArchitectureCheck shows the check catching what it is for: an
// upward import, a package in no layer, a package in two.
func TestArchitectureCheck(t *testing.T) {
	layers := []layer{
		{name: "top", patterns: []string{"cmd/...", "tools"}},
		{name: "middle", patterns: []string{"sources", "sources/vault"}},
		{name: "bottom", patterns: []string{"internal/...", "internal/pdf/x"}},
		{name: "again", patterns: []string{"internal/pdf/x"}},
	}
	pkg := fakePkg
	tests := []struct {
		name string
		pkgs []pkgInfo
		want []string
	}{
		{"downward and beside", []pkgInfo{pkg("cmd/a", "tools", "sources"), pkg("sources/vault", "sources", "internal/pdf"), pkg("sources"), pkg("tools"), pkg("internal/pdf")}, nil},
		{"upward", []pkgInfo{pkg("sources"), pkg("internal/pdf", "sources")}, []string{`internal/pdf (layer "bottom") imports sources of the higher layer "middle"`}},
		{"in no layer", []pkgInfo{pkg("usage")}, []string{"package usage is in no layer of the table in docs/architecture.md"}},
		{"in two layers", []pkgInfo{pkg("internal/pdf/x")}, []string{"package internal/pdf/x is in two layers of the table in docs/architecture.md"}},
		{"the longer directory wins", []pkgInfo{pkg("cmd/a/b", "tools")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := placeAll(tt.pkgs, layers)
			var got []string
			for _, err := range errs {
				got = append(got, err.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// listPackages runs go list over the module and the examples' module,
// each in its own folder, so that it lists both with and without the
// workspace; once per test run, for the tests that read the list (and
// only read it).
func listPackages(t *testing.T) []pkgInfo {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the packages with")
	}
	pkgs, err := listedPackages()
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

var listedPackages = sync.OnceValues(func() ([]pkgInfo, error) {
	var pkgs []pkgInfo
	for _, dir := range []string{".", "examples"} {
		var stderr bytes.Buffer
		cmd := exec.Command("go", "list", "-json=ImportPath,Doc,Imports", "./...")
		cmd.Dir = dir
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go list in %s: %w\n%s", dir, err, stderr.Bytes())
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var p pkgInfo
			if err := dec.Decode(&p); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, err
			}
			pkgs = append(pkgs, p)
		}
	}
	slices.SortFunc(pkgs, func(a, b pkgInfo) int { return strings.Compare(a.ImportPath, b.ImportPath) })
	return pkgs, nil
})

// rel is a package's path inside the module; the module's own package is
// "researchctx".
func rel(importPath string) string {
	if importPath == module {
		return "researchctx"
	}
	return strings.TrimPrefix(importPath, module+"/")
}

// own is the imports that are packages of the module.
func own(imports []string) []string {
	var out []string
	for _, imp := range imports {
		if imp == module || strings.HasPrefix(imp, module+"/") {
			out = append(out, imp)
		}
	}
	return out
}

var layerRowRe = regexp.MustCompile("^\\| ([a-z][a-z ]*[a-z]) \\| (`[^|]+`) \\|")

// readLayers reads the layer table: the rows "| name | `pkg`, `dir/...` |"
// of the table under the heading "### Layers", top layer first.
func readLayers(t *testing.T, data []byte) []layer {
	t.Helper()
	var layers []layer
	in := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			in = line == "### Layers"
			continue
		}
		if !in {
			continue
		}
		m := layerRowRe.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		l := layer{name: m[1]}
		for _, f := range strings.Split(m[2], ",") {
			l.patterns = append(l.patterns, strings.Trim(strings.TrimSpace(f), "`"))
		}
		layers = append(layers, l)
	}
	if len(layers) < 2 {
		t.Fatalf("%s has no layer table (rows of | layer | `packages` | under ### Layers)", architectureDoc)
	}
	return layers
}

// placeIn returns the layer of package p: the one whose pattern names it
// most precisely (a package's own name before any "dir/..." pattern, a
// longer directory before a shorter one). Two layers naming it alike, or
// none, is an error of the table.
func placeIn(layers []layer, p string) (int, error) {
	best, bestLen, ties := -1, -1, 0
	for i, l := range layers {
		for _, pat := range l.patterns {
			n := -1
			switch {
			case pat == p:
				n = 1 << 20
			case strings.HasSuffix(pat, "/..."):
				dir := strings.TrimSuffix(pat, "/...")
				if p == dir || strings.HasPrefix(p, dir+"/") {
					n = len(dir)
				}
			}
			switch {
			case n < 0:
			case n > bestLen:
				best, bestLen, ties = i, n, 0
			case n == bestLen && i != best:
				ties++
			}
		}
	}
	switch {
	case best < 0:
		return 0, fmt.Errorf("package %s is in no layer of the table in %s", p, architectureDoc)
	case ties > 0:
		return 0, fmt.Errorf("package %s is in two layers of the table in %s", p, architectureDoc)
	}
	return best, nil
}

// packageTable is the generated table, with its markers: a row per
// package, top layer first.
func packageTable(pkgs []pkgInfo, layers []layer, layerOf map[string]int) string {
	var b strings.Builder
	b.WriteString(tableBegin + "\n\n")
	b.WriteString("| package | layer | what it is (its doc comment) | imports of the module |\n")
	b.WriteString("|---|---|---|---|\n")
	// Top layer first, so that the table reads as the data flows: from the
	// executables a host links down to the formats everything shares.
	pkgs = slices.Clone(pkgs)
	slices.SortStableFunc(pkgs, func(a, b pkgInfo) int { return layerOf[a.ImportPath] - layerOf[b.ImportPath] })
	for _, p := range pkgs {
		var imps []string
		for _, imp := range own(p.Imports) {
			imps = append(imps, "`"+rel(imp)+"`")
		}
		deps := strings.Join(imps, ", ")
		if deps == "" {
			deps = "—"
		}
		name := "?"
		if i, ok := layerOf[p.ImportPath]; ok {
			name = layers[i].name
		}
		doc := strings.ReplaceAll(strings.TrimSpace(p.Doc), "|", "\\|")
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", rel(p.ImportPath), name, doc, deps)
	}
	b.WriteString("\n" + tableEnd)
	return b.String()
}

// generatedTable returns the table between the markers, with its markers,
// and where it starts and ends in data.
func generatedTable(data []byte) (string, int, int, error) {
	start := bytes.Index(data, []byte(tableBegin))
	end := bytes.Index(data, []byte(tableEnd))
	if start < 0 || end < start {
		return "", 0, 0, fmt.Errorf("%s has no generated package table (the lines %q … %q)", architectureDoc, tableBegin, tableEnd)
	}
	end += len(tableEnd)
	return string(data[start:end]), start, end, nil
}

// TestExamplesImportNoInternal keeps the examples to what a host outside
// the module can use: no Go file under examples/, its tests and files that
// build on other systems included, imports a package of the SDK's internal
// tree (the examples' own examples/internal is theirs to share).
func TestExamplesImportNoInternal(t *testing.T) {
	internal := module + "/internal"
	fset := token.NewFileSet()
	n := 0
	err := filepath.WalkDir("examples", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		n++
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return fmt.Errorf("%s: %w", fset.Position(imp.Pos()), err)
			}
			if path == internal || strings.HasPrefix(path, internal+"/") {
				t.Errorf("%s imports %s: the examples use the SDK's public API only", fset.Position(imp.Pos()), path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no Go file under examples/")
	}
}
