package researchctx_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// driverPackages are the packages of the drivers and what only they use:
// the Vault's driver, the Zotero connector and the Vault's catalogue.
var driverPackages = []string{"sources/vault", "sources/zotero", "internal/catalog"}

// contractOnly are the packages that reach the sources through package
// sources alone (its Source, Library and Registry): the tools, and the
// server that serves them. A driver reaches them only by being linked
// into the program and registered.
var contractOnly = []string{"tools", "mcp"}

// TestContractOnly fails when a package of contractOnly depends, directly
// or through other packages of the module, on a driver package.
func TestContractOnly(t *testing.T) {
	for _, err := range driverDeps(listPackages(t), contractOnly, driverPackages) {
		t.Error(err)
	}
}

// TestContractOnlyCheck shows the check catching what it is for: a direct
// and an indirect import of a driver package.
func TestContractOnlyCheck(t *testing.T) {
	pkg := fakePkg
	tests := []struct {
		name string
		pkgs []pkgInfo
		want []string
	}{
		{"contract only", []pkgInfo{pkg("tools", "sources", "cite"), pkg("sources", "cite"), pkg("cite"), pkg("sources/vault", "sources")}, nil},
		{"direct", []pkgInfo{pkg("tools", "sources", "sources/vault"), pkg("sources"), pkg("sources/vault", "sources")},
			[]string{"tools depends on the driver package sources/vault: tools → sources/vault"}},
		{"indirect", []pkgInfo{pkg("tools", "internal/x"), pkg("internal/x", "internal/catalog"), pkg("internal/catalog")},
			[]string{"tools depends on the driver package internal/catalog: tools → internal/x → internal/catalog"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, err := range driverDeps(tt.pkgs, []string{"tools"}, driverPackages) {
				got = append(got, err.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// fakePkg is the package p of the module importing imps (paths inside the
// module), for the checks' own tests.
func fakePkg(p string, imps ...string) pkgInfo {
	for i := range imps {
		imps[i] = module + "/" + imps[i]
	}
	return pkgInfo{ImportPath: module + "/" + p, Imports: imps}
}

// driverDeps reports each package of from that depends on a package of
// drivers, with the chain of imports that leads there (the shortest).
func driverDeps(pkgs []pkgInfo, from, drivers []string) []error {
	imports := map[string][]string{}
	for _, p := range pkgs {
		for _, imp := range own(p.Imports) {
			imports[rel(p.ImportPath)] = append(imports[rel(p.ImportPath)], rel(imp))
		}
	}
	var errs []error
	for _, start := range from {
		// Breadth first, so that the chain reported is a shortest one.
		prev := map[string]string{start: ""}
		queue := []string{start}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			if slices.Contains(drivers, p) {
				chain := []string{p}
				for q := prev[p]; q != ""; q = prev[q] {
					chain = append(chain, q)
				}
				slices.Reverse(chain)
				errs = append(errs, fmt.Errorf("%s depends on the driver package %s: %s", start, p, strings.Join(chain, " → ")))
				continue
			}
			for _, imp := range imports[p] {
				if _, seen := prev[imp]; !seen {
					prev[imp] = p
					queue = append(queue, imp)
				}
			}
		}
	}
	return errs
}
