package researchctx

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

// A mention another mention already grants adds nothing: a paper and its
// own PDF or notes are one source, a folder and anything in it (a paper
// included) are the folder, in either order; the fingerprint is the one
// of the canonical scope. Mentions that do not contain each other all
// stay.
func TestCanonicalScope(t *testing.T) {
	dir := vaultfix.Sample(t)
	var r Resolver
	defer r.Close()
	type src struct {
		Kind grant.Kind
		Path string
	}
	tests := []struct {
		name     string
		current  string
		mentions []string
		want     []src
		same     []string // mentions whose plan must have the same fingerprint
	}{
		{"a paper and its own PDF", "", []string{"papers/2401.01234", "papers/2401.01234/2401.01234.pdf"},
			[]src{{"paper", "papers/2401.01234"}}, []string{"papers/2401.01234"}},
		{"its PDF first", "", []string{"papers/2401.01234/2401.01234.pdf", "papers/2401.01234/NOTES.md", "papers/2401.01234"},
			[]src{{"paper", "papers/2401.01234"}}, []string{"papers/2401.01234"}},
		{"a folder and a paper in it", "", []string{"papers/vision/resnet-like", "papers/vision", "papers/vision/resnet-like/paper.pdf"},
			[]src{{"directory", "papers/vision"}}, []string{"papers/vision"}},
		{"the current paper in a mentioned folder", "papers/2401.01234", []string{"papers"},
			[]src{{"directory", "papers"}}, []string{"papers"}},
		{"a folder and a file in it", "", []string{"notes/ideas.txt", "notes", "notes/archive"},
			[]src{{"directory", "notes"}}, []string{"notes"}},
		{"nothing contained", "", []string{"papers/2401.01234", "notes", "reading-list", "papers/2403.05678/source/agentero-cite.json"},
			[]src{{"paper", "papers/2401.01234"}, {"directory", "notes"}, {"file", "reading-list"}, {"file", "papers/2403.05678/source/agentero-cite.json"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rq := req(dir)
			rq.CurrentPaper, rq.Mentions = tt.current, tt.mentions
			p, err := r.Resolve(context.Background(), rq)
			if err != nil {
				t.Fatal(err)
			}
			var got []src
			for _, s := range p.Sources {
				got = append(got, src{s.Kind, s.Path})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("sources (-want +got):\n%s", diff)
			}
			if len(p.Dropped) != 0 {
				t.Errorf("dropped %+v: a contained mention is granted, not refused", p.Dropped)
			}
			if tt.same == nil {
				return
			}
			rq.CurrentPaper, rq.Mentions = "", tt.same
			alone, err := r.Resolve(context.Background(), rq)
			if err != nil {
				t.Fatal(err)
			}
			if p.Fingerprint != alone.Fingerprint {
				t.Errorf("fingerprint %s, want %s: the mentions add nothing to %v", p.Fingerprint, alone.Fingerprint, tt.same)
			}
		})
	}
}
