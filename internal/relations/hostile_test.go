package relations

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/researchctx/researchctx/internal/catalog"
	"github.com/researchctx/researchctx/internal/pdf"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
)

// TestBadPaperSkipped checks that papers whose text panics, hangs or fails,
// and a malformed sidecar, are each skipped with their reason while the
// other papers' relations are built, and that the skipped papers are not
// read again by the next build.
func TestBadPaperSkipped(t *testing.T) {
	v, dir := openVault(t, map[string]string{
		"papers/a/metadata.json":                   js(t, obj{"title": "Alpha", "arxiv_id": "2001.00001"}),
		"papers/a/source/agentero-cite.json":       sidecarDoc(t, obj{"metadata": obj{"arxivId": "2002.00002"}}),
		"papers/good/metadata.json":                js(t, obj{"title": "Good", "arxiv_id": "2002.00002"}),
		"papers/good/good.pdf":                     "%PDF-1.4 good\n",
		"papers/panics/metadata.json":              `{"title": "panics"}`,
		"papers/panics/panics.pdf":                 "%PDF-1.4 panics\n",
		"papers/hangs/metadata.json":               `{"title": "hangs"}`,
		"papers/hangs/hangs.pdf":                   "%PDF-1.4 hangs\n",
		"papers/fails/metadata.json":               `{"title": "fails"}`,
		"papers/fails/fails.pdf":                   "%PDF-1.4 fails\n",
		"papers/sidecar/metadata.json":             `{"title": "sidecar"}`,
		"papers/sidecar/source/agentero-cite.json": "{not json",
	})
	var mu sync.Mutex
	calls := map[string]int{}
	l := New(v, &Options{
		Revalidate:   time.Nanosecond,
		PaperTimeout: 50 * time.Millisecond,
		Text: func(ctx context.Context, p *catalog.Paper) (string, error) {
			mu.Lock()
			calls[p.Ref]++
			mu.Unlock()
			switch p.Ref {
			case "papers/panics":
				var m map[string]int
				//lint:ignore SA5000 the panic is the point
				m["x"]++ // a bug in the text layer
			case "papers/hangs":
				<-ctx.Done()
				return "", ctx.Err()
			case "papers/fails":
				return "", pdf.ErrMalformed
			}
			return "References\n[1] Alpha. arXiv:2001.00001.\n", nil
		},
	})
	good := mustRelations(t, l, "papers/good")
	if diff := cmp.Diff([]Work{{Title: "Alpha", ArXivID: "2001.00001", Paper: "papers/a", Label: "1"}}, good.References); diff != "" {
		t.Errorf("good references (-want +got):\n%s", diff)
	}
	if good.Err != nil {
		t.Errorf("good.Err = %v", good.Err)
	}
	for ref, want := range map[string][]string{
		"papers/panics":  {"papers/panics/panics.pdf", "internal failure"},
		"papers/hangs":   {"papers/hangs/hangs.pdf", "took longer than 50ms"},
		"papers/fails":   {"papers/fails/fails.pdf", "malformed"},
		"papers/sidecar": {"papers/sidecar/source/agentero-cite.json"},
	} {
		r := mustRelations(t, l, ref)
		if r.Err == nil {
			t.Errorf("%s: no Err", ref)
			continue
		}
		for _, s := range want {
			if !strings.Contains(r.Err.Error(), s) {
				t.Errorf("%s: Err = %v, want it to say %q", ref, r.Err, s)
			}
		}
		if strings.Contains(r.Err.Error(), dir) {
			t.Errorf("%s: Err names an absolute path: %v", ref, r.Err)
		}
		if ref != "papers/sidecar" && !errors.Is(r.Err, ErrPaperFailed) {
			t.Errorf("%s: Err = %v, want ErrPaperFailed", ref, r.Err)
		}
	}
	// A rebuild (a changed sidecar) reads no skipped paper again.
	vaultfix.Write(t, dir, map[string]string{"papers/a/source/agentero-cite.json": sidecarDoc(t)})
	mustRelations(t, l, "papers/a")
	want := map[string]int{"papers/good": 1, "papers/panics": 1, "papers/hangs": 1, "papers/fails": 1}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("Text calls (-want +got):\n%s", diff)
	}
}

// TestCancelledBuildKeepsProgress checks that a build cancelled part way
// keeps the papers it read: the next build reads only the others.
func TestCancelledBuildKeepsProgress(t *testing.T) {
	v, _ := openVault(t, map[string]string{
		"papers/p1/metadata.json": `{"title": "p1"}`,
		"papers/p1/p1.pdf":        "%PDF-1.4 1\n",
		"papers/p2/metadata.json": `{"title": "p2"}`,
		"papers/p2/p2.pdf":        "%PDF-1.4 2\n",
		"papers/p3/metadata.json": `{"title": "p3"}`,
		"papers/p3/p3.pdf":        "%PDF-1.4 3\n",
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := map[string]int{}
	l := New(v, &Options{Text: func(_ context.Context, p *catalog.Paper) (string, error) {
		calls[p.Ref]++
		if p.Ref == "papers/p2" {
			cancel() // the caller gives up while p2 is read
		}
		return "", nil
	}})
	if _, err := l.Relations(ctx, "papers/p1"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	mustRelations(t, l, "papers/p1")
	if diff := cmp.Diff(map[string]int{"papers/p1": 1, "papers/p2": 1, "papers/p3": 1}, calls); diff != "" {
		t.Errorf("Text calls (-want +got):\n%s", diff)
	}
}

// TestWaitForBuildHonoursContext checks that a call waiting behind
// another call's build gives up when its own context ends, rather than
// waiting for that build; the build, once done, serves the next call.
func TestWaitForBuildHonoursContext(t *testing.T) {
	v, _ := openVault(t, map[string]string{
		"papers/p1/metadata.json": `{"title": "p1"}`,
		"papers/p1/p1.pdf":        "%PDF-1.4 1\n",
	})
	reading := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	l := New(v, &Options{Text: func(ctx context.Context, _ *catalog.Paper) (string, error) {
		once.Do(func() { close(reading) })
		select {
		case <-release:
		case <-time.After(20 * time.Second): // never hang the test
		}
		return "", nil
	}})
	first := make(chan error, 1)
	go func() {
		_, err := l.Relations(context.Background(), "papers/p1")
		first <- err
	}()
	<-reading // the first call builds, holding the graph
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := l.Relations(ctx, "papers/p1")
	took := time.Since(start)
	close(release)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a call waiting behind a build past its deadline: %v, want context.DeadlineExceeded", err)
	}
	if took > 10*time.Second {
		t.Errorf("the waiting call returned after %v, its deadline was 200ms", took)
	}
	if err := <-first; err != nil {
		t.Fatalf("the building call: %v", err)
	}
	mustRelations(t, l, "papers/p1")
}

// TestLongTextKeepsEnd checks that of a paper's text longer than
// maxPaperText only the end, where the references are, is scanned.
func TestLongTextKeepsEnd(t *testing.T) {
	v, _ := openVault(t, map[string]string{
		"papers/long/metadata.json": `{"title": "Long"}`,
		"papers/long/long.pdf":      "%PDF-1.4 long\n",
	})
	// Without the cut, the heading makes [0] the first reference; with
	// it, the last third of what is kept is scanned, which holds [1].
	filler := func(n int) string { return strings.Repeat("filler line of body text\n", n/25) }
	text := "References\n[0] arXiv:2001.00001.\n" + filler(maxPaperText*3/4) + "[1] arXiv:2002.00002.\n" + filler(maxPaperText/4+(1<<20))
	l := New(v, &Options{Text: func(context.Context, *catalog.Paper) (string, error) { return text, nil }})
	r := mustRelations(t, l, "papers/long")
	if diff := cmp.Diff([]Work{{ArXivID: "2002.00002"}}, r.References); diff != "" {
		t.Errorf("references (-want +got):\n%s", diff)
	}
}
