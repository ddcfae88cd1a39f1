package relations

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMalformedInputs(t *testing.T) {
	good := func(tb testing.TB) map[string]string {
		return map[string]string{
			"papers/a/metadata.json": js(tb, obj{"title": "Alpha", "arxiv_id": "2001.00001"}),
			"papers/b/metadata.json": js(tb, obj{"title": "Bravo", "arxiv_id": "2002.00002"}),
			"papers/b/source/agentero-cite.json": sidecarDoc(tb,
				obj{"id": "c1", "metadata": obj{"arxivId": "2001.00001"}}),
			".agentero/citing-scan.json": scanDoc(tb, obj{
				"papers/b": seed(obj{"s2Id": "x", "title": "X", "doi": "10.1/x"}),
			}),
		}
	}
	workA := Work{Title: "Alpha", ArXivID: "2001.00001", Paper: "papers/a"}
	workB := Work{Title: "Bravo", ArXivID: "2002.00002", Paper: "papers/b"}
	tests := []struct {
		name    string
		files   map[string]string
		ref     string
		want    Relations // Err compared separately
		wantErr []string  // substrings of Err; nil means no error
		is      error
	}{
		{
			name:    "sidecar that is not JSON: its references are empty, the error names it",
			files:   map[string]string{"papers/a/source/agentero-cite.json": "{not json"},
			ref:     "papers/a",
			want:    Relations{Paper: "papers/a", CitedBy: []Work{workB}, Related: []Work{overlap(workB, 2)}},
			wantErr: []string{"papers/a/source/agentero-cite.json", "not a JSON object"},
			is:      ErrMalformed,
		},
		{
			name:  "another paper's malformed sidecar does not touch this one",
			files: map[string]string{"papers/a/source/agentero-cite.json": "[]"},
			ref:   "papers/b",
			want: Relations{Paper: "papers/b", References: []Work{workA},
				CitedBy: []Work{{Title: "X", DOI: "10.1/x"}}, Related: []Work{overlap(workA, 2)}},
		},
		{
			name:    "unsupported schema version",
			files:   map[string]string{"papers/b/source/agentero-cite.json": `{"schemaVersion": 2, "citations": [{"metadata": {"arxivId": "2001.00001"}}]}`},
			ref:     "papers/b",
			want:    Relations{Paper: "papers/b", CitedBy: []Work{{Title: "X", DOI: "10.1/x"}}},
			wantErr: []string{"papers/b/source/agentero-cite.json", "schemaVersion"},
			is:      ErrUnsupportedSchema,
		},
		{
			name:    "citations not a list",
			files:   map[string]string{"papers/b/source/agentero-cite.json": `{"schemaVersion": 1, "citations": {"c1": {}}}`},
			ref:     "papers/b",
			want:    Relations{Paper: "papers/b", CitedBy: []Work{{Title: "X", DOI: "10.1/x"}}},
			wantErr: []string{"citations is not a list"},
			is:      ErrMalformed,
		},
		{
			name:  "wrong field types are read as absent",
			files: map[string]string{"papers/b/source/agentero-cite.json": `{"schemaVersion": "1", "citations": [{"metadata": {"title": ["x"], "arxivId": 7, "authors": [{"given": "G.", "family": "F"}, {"name": "N"}, 3], "year": "n/a"}, "localMatch": "papers/a"}, {"metadata": {"doi": {"x": 1}}, "raw": "Raw only"}, null]}`},
			ref:   "papers/b",
			want: Relations{Paper: "papers/b", References: []Work{{Title: "Raw only"}},
				CitedBy: []Work{{Title: "X", DOI: "10.1/x"}}, Skipped: 2},
		},
		{
			name:    "malformed cache: scan entries empty everywhere, library citers still listed",
			files:   map[string]string{".agentero/citing-scan.json": `{"schemaVersion": 1, "seeds": [`},
			ref:     "papers/a",
			want:    Relations{Paper: "papers/a", CitedBy: []Work{workB}, Related: []Work{overlap(workB, 2)}},
			wantErr: []string{".agentero/citing-scan.json"},
			is:      ErrMalformed,
		},
		{
			name:    "cache with seeds of the wrong type",
			files:   map[string]string{".agentero/citing-scan.json": `{"schemaVersion": 1, "seeds": ["papers/a"]}`},
			ref:     "papers/b",
			want:    Relations{Paper: "papers/b", References: []Work{workA}, Related: []Work{overlap(workA, 2)}},
			wantErr: []string{"seeds is not an object"},
			is:      ErrMalformed,
		},
		{
			name:  "missing cache is no error",
			files: map[string]string{".agentero/citing-scan.json": ""},
			ref:   "papers/a",
			want:  Relations{Paper: "papers/a", CitedBy: []Work{workB}, Related: []Work{overlap(workB, 2)}},
		},
		{
			name:    "cache is a folder",
			files:   map[string]string{".agentero/citing-scan.json": "", ".agentero/citing-scan.json/x": "{}"},
			ref:     "papers/a",
			want:    Relations{Paper: "papers/a", CitedBy: []Work{workB}, Related: []Work{overlap(workB, 2)}},
			wantErr: []string{".agentero/citing-scan.json", "not a regular file"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := good(t)
			for k, v := range tt.files {
				if v == "" {
					delete(files, k)
				} else {
					files[k] = v
				}
			}
			v, dir := openVault(t, files)
			got := mustRelations(t, New(v, nil), tt.ref)
			gotErr := got.Err
			got.Err = nil
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
			if tt.wantErr == nil {
				if gotErr != nil {
					t.Errorf("Err = %v, want nil", gotErr)
				}
				return
			}
			if gotErr == nil {
				t.Fatalf("Err = nil, want one mentioning %q", tt.wantErr)
			}
			for _, s := range tt.wantErr {
				if !strings.Contains(gotErr.Error(), s) {
					t.Errorf("Err = %q, want it to mention %q", gotErr, s)
				}
			}
			if strings.Contains(gotErr.Error(), dir) {
				t.Errorf("Err names the absolute root: %v", gotErr)
			}
			if tt.is != nil && !errors.Is(gotErr, tt.is) {
				t.Errorf("Err = %v, want errors.Is %v", gotErr, tt.is)
			}
		})
	}
}

func TestSidecarTooLarge(t *testing.T) {
	v, dir := openVault(t, map[string]string{"papers/a/metadata.json": `{"title": "A"}`, "papers/a/source/x": ""})
	f, err := os.Create(filepath.Join(dir, "papers", "a", "source", "agentero-cite.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxSidecar + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r := mustRelations(t, New(v, nil), "papers/a")
	if r.Err == nil || !strings.Contains(r.Err.Error(), "papers/a/source/agentero-cite.json") {
		t.Errorf("Err = %v, want a size error naming the sidecar", r.Err)
	}
}

func TestCancelled(t *testing.T) {
	v, _ := openVault(t, map[string]string{"papers/a/metadata.json": `{"title": "A"}`})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(v, nil).Relations(ctx, "papers/a"); !errors.Is(err, context.Canceled) {
		t.Errorf("Relations with a cancelled context = %v, want context.Canceled", err)
	}
}
