package mcp

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/internal/testkit/vaultfix"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/tools"
)

// lateSource is a source that honours its context and never answers
// before it ends.
type lateSource struct{ info sources.Info }

func (s lateSource) Info() sources.Info { return s.info }

func (s lateSource) Search(ctx context.Context, _ sources.Query) (*sources.Results, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (s lateSource) Read(ctx context.Context, _ string) (*sources.Document, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (s lateSource) Relations(ctx context.Context) (*sources.Relations, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestServeCallDeadline: the call deadline set through ServeOptions
// reaches every call: a read, a search and a relations call of a source
// slower than it answer a one-line tool error saying the call ran out of
// time, and the server answers the next calls.
func TestServeCallDeadline(t *testing.T) {
	vault := vaultfix.Sample(t)
	gr := writeGrant(t, demoRequest(vault))
	const timeout = 300 * time.Millisecond
	opts := &ServeOptions{Toolset: &tools.Options{
		CallTimeout: timeout,
		Sources: func(ctx context.Context, g *grant.Grant, open tools.OpenFunc) ([]sources.Source, error) {
			var out []sources.Source
			for _, ref := range g.Sources {
				if ref.Path == "papers/2401.01234" {
					out = append(out, lateSource{sources.Info{Path: ref.Path, Kind: grant.KindPaper}})
					continue
				}
				src, err := open(ctx, ref)
				if err != nil {
					return nil, err
				}
				out = append(out, src)
			}
			return out, nil
		},
	}}
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), gr, sr, sw, opts)
		sw.Close()
	}()
	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for tool, args := range map[string]map[string]any{
		grant.ToolRead:      {"target": "papers/2401.01234", "page": 1},
		grant.ToolSearch:    {"query": "strided global tokens", "source": "papers/2401.01234"},
		grant.ToolRelations: {"paper": "papers/2401.01234"},
	} {
		start := time.Now()
		res := call(t, cs, tool, args)
		if took := time.Since(start); took > timeout+10*time.Second {
			t.Errorf("%s took %v, its deadline is %v", tool, took, timeout)
		}
		if msg := text(res); !res.IsError || !strings.HasPrefix(msg, tools.ErrCallTimeout.Error()) || !strings.Contains(msg, tool) || strings.Contains(msg, "\n") {
			t.Errorf("%s past its deadline: isError %v, %q; want one line saying it ran out of time", tool, res.IsError, msg)
		}
	}
	// The server goes on: another granted source answers.
	mustOK(t, call(t, cs, grant.ToolRead, map[string]any{"target": "notes"}))
	cs.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(drainGrace + 10*time.Second):
		t.Fatal("Serve did not return after EOF")
	}
}
