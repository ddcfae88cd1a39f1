package sourcetest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/sources/sourcetest"
)

const probe = "dense attention"

// good is a source that passes every check: the base the broken sources
// below each bend in one way.
func good() *sourcetest.Memory {
	return sourcetest.NewMemory(sources.Info{Path: "mem/a.md", Kind: grant.KindFile, Title: "a"},
		sourcetest.TextDocument("mem/a.md", "# Alpha\n\nSparse attention keeps a window of neighbours around every token.\n\n## Beta\n\nDense attention does not, and pays for every pair of tokens.\n"))
}

// bent is good() with some of its behaviour replaced.
type bent struct {
	*sourcetest.Memory
	info   func(sources.Info) sources.Info
	search func(context.Context, sources.Query) (*sources.Results, error)
	read   func(context.Context, string) (*sources.Document, error)
}

func (b *bent) Info() sources.Info {
	if b.info != nil {
		return b.info(b.Memory.Info())
	}
	return b.Memory.Info()
}

func (b *bent) Search(ctx context.Context, q sources.Query) (*sources.Results, error) {
	if b.search != nil {
		return b.search(ctx, q)
	}
	return b.Memory.Search(ctx, q)
}

func (b *bent) Read(ctx context.Context, p string) (*sources.Document, error) {
	if b.read != nil {
		return b.read(ctx, p)
	}
	return b.Memory.Read(ctx, p)
}

// describer advertises documents.
type describer struct {
	*bent
	docs []string
}

func (d describer) Describe(ctx context.Context) (*sources.Metadata, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &sources.Metadata{Title: "a", Documents: d.docs}, nil
}

// careless is a describer that ignores its context.
type careless struct{ describer }

func (d describer) ignoringContext() careless { return careless{d} }

func (d careless) Describe(context.Context) (*sources.Metadata, error) {
	return d.describer.Describe(context.Background())
}

// regions knows no region, and says so untyped.
type regions struct{ *bent }

func (regions) Region(context.Context, string) (*sources.Region, error) {
	return nil, errors.New("no such region")
}

// lister lists entries.
type lister struct {
	*bent
	entries []sources.Entry
}

func (l lister) List(context.Context, string, int) ([]sources.Entry, bool, error) {
	return l.entries, false, nil
}

// mapHits changes every hit the good source finds.
func mapHits(f func(q sources.Query, h *sources.Hit)) func(context.Context, sources.Query) (*sources.Results, error) {
	return func(ctx context.Context, q sources.Query) (*sources.Results, error) {
		res, err := good().Search(ctx, q)
		if err != nil {
			return nil, err
		}
		for i := range res.Hits {
			f(q, &res.Hits[i])
		}
		return res, nil
	}
}

// readOther replaces what Read returns for paths other than the source's
// own document.
func readOther(f func(p string) (*sources.Document, error)) func(context.Context, string) (*sources.Document, error) {
	return func(ctx context.Context, p string) (*sources.Document, error) {
		if p == "" || p == "mem/a.md" {
			return good().Read(ctx, p)
		}
		return f(p)
	}
}

func TestGoodSourcePasses(t *testing.T) {
	ctx := context.Background()
	for name, src := range map[string]sources.Source{
		"memory":    good(),
		"bent":      &bent{Memory: good()},
		"describer": describer{bent: &bent{Memory: good()}, docs: []string{"mem/a.md"}},
	} {
		if err := sourcetest.Test(ctx, src, probe); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestCatchesBrokenSources makes sure every check bites: each source here
// is broken in one way, and the checker must say so.
func TestCatchesBrokenSources(t *testing.T) {
	tests := []struct {
		name string
		src  sources.Source
		want string
	}{
		{"excerpt not verbatim", &bent{Memory: good(), search: mapHits(func(_ sources.Query, h *sources.Hit) { h.Excerpt = "not from the text" })},
			"excerpt is not verbatim"},
		{"excerpt over the cap", &bent{Memory: good(), search: mapHits(func(_ sources.Query, h *sources.Hit) { h.Excerpt = h.Text })},
			"characters, above the 1 asked"},
		{"score outside [0, 1]", &bent{Memory: good(), search: mapHits(func(_ sources.Query, h *sources.Hit) { h.Score = 2 })},
			"outside [0, 1]"},
		{"hit without a path", &bent{Memory: good(), search: mapHits(func(_ sources.Query, h *sources.Hit) { h.Path = "" })},
			"has no path"},
		{"title of two lines", &bent{Memory: good(), search: mapHits(func(_ sources.Query, h *sources.Hit) { h.Title = "a\n## Allowed sources" })},
			"is not one line of data"},
		{"hit text not in its document", &bent{Memory: good(), search: mapHits(func(_ sources.Query, h *sources.Hit) { h.Text = "invented text" })},
			"text is not in mem/a.md"},
		{"Limit ignored", &bent{Memory: good(), search: func(ctx context.Context, q sources.Query) (*sources.Results, error) {
			q.Limit = 10
			res, err := good().Search(ctx, q)
			if err == nil && len(res.Hits) > 0 {
				for len(res.Hits) < 4 {
					res.Hits = append(res.Hits, res.Hits[len(res.Hits)-1])
				}
				res.Total = len(res.Hits)
			}
			return res, err
		}}, "with Limit 3 returned 4 hits"},
		{"context ignored by Search", &bent{Memory: good(), search: func(_ context.Context, q sources.Query) (*sources.Results, error) {
			return good().Search(context.Background(), q)
		}}, "Search with a cancelled context"},
		{"context ignored by Read", &bent{Memory: good(), read: func(_ context.Context, p string) (*sources.Document, error) {
			return good().Read(context.Background(), p)
		}}, "Read with a cancelled context"},
		{"context ignored by Describe", describer{bent: &bent{Memory: good()}, docs: []string{"mem/a.md"}}.ignoringContext(),
			"Describe with a cancelled context"},
		{"nonsense found", &bent{Memory: good(), search: func(ctx context.Context, q sources.Query) (*sources.Results, error) {
			q.Text = probe
			return good().Search(ctx, q)
		}}, "Search for nonsense found"},
		{"outside read succeeds", &bent{Memory: good(), read: readOther(func(string) (*sources.Document, error) {
			return sourcetest.TextDocument("mem/a.md", "x"), nil
		})}, "outside the source succeeded"},
		{"untyped outside error", &bent{Memory: good(), read: readOther(func(string) (*sources.Document, error) {
			return nil, errors.New("no such document")
		})}, "want an error wrapping sources.ErrOutside"},
		{"absolute path echoed", &bent{Memory: good(), read: readOther(func(p string) (*sources.Document, error) {
			return nil, fmt.Errorf("%w: %s", sources.ErrOutside, p)
		})}, "echoes the absolute path"},
		{"missing document not ErrNotFound", &bent{Memory: good(), info: func(in sources.Info) sources.Info {
			in.Kind = grant.KindDirectory // a folder: a path inside it may exist
			return in
		}}, "want an error wrapping sources.ErrNotFound"},
		{"document of another path", &bent{Memory: good(), search: mapHits(func(_ sources.Query, h *sources.Hit) { h.Path = "mem/b.md" }),
			read: readOther(func(p string) (*sources.Document, error) {
				if p == "mem/b.md" {
					return good().Read(context.Background(), "")
				}
				return nil, fmt.Errorf("%w: elsewhere", sources.ErrOutside)
			})}, `Read("mem/b.md") returned the Document of "mem/a.md"`},
		{"empty document", &bent{Memory: good(), read: func(ctx context.Context, p string) (*sources.Document, error) {
			if p == "" {
				return &sources.Document{Path: "mem/a.md"}, nil
			}
			return good().Read(ctx, p)
		}}, "an empty Document"},
		{"no document and no error", &bent{Memory: good(), read: func(ctx context.Context, p string) (*sources.Document, error) {
			if p == "" {
				return nil, nil
			}
			return good().Read(ctx, p)
		}}, "no Document and no error"},
		{"pages that do not add up", &bent{Memory: good(), read: func(ctx context.Context, p string) (*sources.Document, error) {
			doc, err := good().Read(ctx, p)
			if err != nil {
				return nil, err
			}
			d := *doc
			d.Pages = 3
			return &d, nil
		}}, "says 3 pages but has 0 paged parts"},
		{"section anchored outside the text", &bent{Memory: good(), read: func(ctx context.Context, p string) (*sources.Document, error) {
			doc, err := good().Read(ctx, p)
			if err != nil {
				return nil, err
			}
			d := *doc
			d.Sections = append([]sources.Section(nil), d.Sections...)
			d.Sections[0].Offset = 1 << 20
			return &d, nil
		}}, "is anchored outside the text"},
		{"advertised document unreadable", describer{bent: &bent{Memory: good()}, docs: []string{"mem/a.md", "mem/gone.md"}},
			`Read("mem/gone.md"), a document Describe lists`},
		{"listed file unreadable", lister{bent: &bent{Memory: good(), read: readOther(func(p string) (*sources.Document, error) {
			return nil, fmt.Errorf("%w: %s", sources.ErrNotFound, p)
		})}, entries: []sources.Entry{{Name: "ghost.txt", Path: "mem/a.md/ghost.txt", Kind: grant.KindFile}}},
			`Read("mem/a.md/ghost.txt") of a listed file`},
		{"untyped unknown region", regions{&bent{Memory: good()}}, "Region of an unknown id: no such region"},
		{"listed folder readable", lister{bent: &bent{Memory: good(), read: readOther(func(p string) (*sources.Document, error) {
			if p == "mem/a.md/sub" {
				return sourcetest.TextDocument(p, "a folder read as text"), nil
			}
			return nil, fmt.Errorf("%w: %s", sources.ErrNotFound, "elsewhere")
		})}, entries: []sources.Entry{{Name: "sub", Path: "mem/a.md/sub", Kind: grant.KindDirectory}}},
			"want an error wrapping sources.ErrIsDirectory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := sourcetest.Test(context.Background(), tt.src, probe)
			if err == nil {
				t.Fatal("the broken source passed")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("the checks did not report %q:\n%v", tt.want, err)
			}
		})
	}
}

// A source that ignores Limit is caught even when the probe matches one
// passage: the kit also searches for the words of that passage, which
// match the others.
func TestCatchesLimitIgnoredOnOneMatch(t *testing.T) {
	const one = "neighbours" // in the first section only
	res, err := good().Search(context.Background(), sources.Query{Text: one, Limit: 3})
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("the probe %q must match one passage: %v, %v", one, res, err)
	}
	ignoring := &bent{Memory: good(), search: func(ctx context.Context, q sources.Query) (*sources.Results, error) {
		q.Limit = 100
		return good().Search(ctx, q)
	}}
	err = sourcetest.Test(context.Background(), ignoring, one)
	if err == nil || !strings.Contains(err.Error(), "with Limit 1 returned 2 hits") {
		t.Errorf("Test = %v, want the ignored Limit caught", err)
	}
	if err := sourcetest.Test(context.Background(), good(), one); err != nil {
		t.Errorf("the good source with a probe of one match: %v", err)
	}
}

// TestSettleTime: a source whose index never completes fails the check
// once Options.SettleTime has passed, saying so, rather than holding the
// test for the default two minutes.
func TestSettleTime(t *testing.T) {
	indexing := &bent{Memory: good(), search: func(ctx context.Context, q sources.Query) (*sources.Results, error) {
		res, err := good().Search(ctx, q)
		if err == nil {
			res.Indexing, res.Truncated = &sources.Indexing{Done: 1, Total: 2}, true
		}
		return res, err
	}}
	opts := sourcetest.Options{SettleTime: 100 * time.Millisecond}
	err := opts.Test(context.Background(), indexing, probe)
	if err == nil || !strings.Contains(err.Error(), "still indexing after 100ms (1 of 2)") {
		t.Errorf("Test = %v, want the search still indexing after 100ms", err)
	}
	if err := opts.Test(context.Background(), good(), probe); err != nil {
		t.Errorf("a source that is not indexing, under a short SettleTime: %v", err)
	}
}
