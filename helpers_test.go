package researchctx

import (
	"context"
	"testing"

	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

// testVault builds a small Vault with every kind of path the resolver sees.
func testVault(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	vaultfix.Write(t, dir, map[string]string{
		"papers/1706.03762/metadata.json":                  `{"title":"Attention Is All You Need","authors":["A. Vaswani"],"year":2017,"abstract":"UNIQUE-ABSTRACT-SENTINEL dominant sequence models","arxiv_id":"1706.03762v5"}`,
		"papers/1706.03762/1706.03762.pdf":                 "%PDF-1.4 stub",
		"papers/1706.03762/NOTES.md":                       "# Notes\nmy notes",
		"papers/vision/NOTES.md":                           "# Vision papers index",
		"papers/vision/resnet/paper.pdf":                   "%PDF-1.4 stub",
		"papers/vision/resnet/metadata.json":               `{"title":"Deep Residual Learning","doi":"10.1109/CVPR.2016.90","unknown_field":{"x":1}}`,
		"papers/vision/resnet/source/nested/metadata.json": `{"title":"not a paper: inside source/"}`,
		"papers/bare/PAPER.md":                             "# A Paper Without Metadata\n\nBody text.",
		"notes/ideas.md":                                   "# Ideas\nsome ideas",
		"notes/sub/deep.txt":                               "deep",
		"reading-list":                                     "1706.03762\n",
		".agentero/citing-scan.json":                       `{}`,
		"papers/x-private/secret.txt":                      "secret",
	})
	return dir
}

// resolveSelection resolves one selection on the sample paper of the Vault
// at dir, as the current paper, and returns the plan and its one piece of
// evidence.
func resolveSelection(t *testing.T, res *Resolver, dir string, sel Selection) (*Plan, Evidence) {
	t.Helper()
	r := req(dir)
	r.CurrentPaper = "papers/2401.01234"
	r.Selections = []Selection{sel}
	p, err := res.Resolve(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Evidence) != 1 {
		t.Fatalf("evidence %+v, want one item", p.Evidence)
	}
	return p, p.Evidence[0]
}
