package mcp

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/researchctx/researchctx/grant"
	"github.com/researchctx/researchctx/sources"
	"github.com/researchctx/researchctx/tools"
)

// The blocking host's settings, from its environment: the FIFO every call
// blocks on, and when set, the calls' deadline and the drain grace (each a
// time.Duration).
const (
	blockhostFIFO    = "BLOCKHOST_FIFO"
	blockhostTimeout = "BLOCKHOST_CALL_TIMEOUT"
	blockhostDrain   = "BLOCKHOST_DRAIN_GRACE"
)

// serveBlockhost is the main of a host whose only source blocks every call
// on a file: Search and Read open the FIFO named by BLOCKHOST_FIFO, which
// blocks in open(2) until a writer comes, and ignore their context. The
// stop tests start it (this test binary, see TestMain) to check that the
// server still ends within its grace on SIGTERM and on the end of stdin
// with such a call in flight, and answers it, and that it answers such a
// call at its deadline.
func serveBlockhost() {
	timeout, _ := time.ParseDuration(os.Getenv(blockhostTimeout))
	if d, err := time.ParseDuration(os.Getenv(blockhostDrain)); err == nil {
		drainGrace = d
	}
	ServeIfRequested(&ServeOptions{Toolset: &tools.Options{
		CallTimeout: timeout,
		Sources: func(_ context.Context, g *grant.Grant, _ tools.OpenFunc) ([]sources.Source, error) {
			var out []sources.Source
			for _, s := range g.Sources {
				out = append(out, stuck{sources.Info{Path: s.Path, Kind: grant.Kind(s.Kind)}})
			}
			return out, nil
		},
	}})
	fmt.Fprintln(os.Stderr, "usage: blockhost --agentero-context-mcp <grant>")
	os.Exit(2)
}

// stuck is a source whose every call blocks on the FIFO.
type stuck struct{ info sources.Info }

func (s stuck) Info() sources.Info { return s.info }

func (s stuck) Search(context.Context, sources.Query) (*sources.Results, error) {
	return nil, block()
}

func (s stuck) Read(context.Context, string) (*sources.Document, error) {
	return nil, block()
}

// block opens the FIFO without O_NONBLOCK: with no writer, open(2) never
// returns.
func block() error {
	f, err := os.Open(os.Getenv(blockhostFIFO))
	if err != nil {
		return err
	}
	f.Close()
	return fmt.Errorf("the FIFO was opened")
}
