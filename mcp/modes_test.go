package mcp

import (
	"slices"
	"strings"
	"testing"

	"github.com/researchctx/researchctx/tools"
)

// TestModeRenderers: every renderer hook is one of a mode context_read
// takes, and context_read's description names every mode, in order.
func TestModeRenderers(t *testing.T) {
	modes := tools.ReadModes()
	for m := range modeRenderers {
		if !slices.Contains(modes, m) {
			t.Errorf("a renderer for %q, which is not a mode of context_read", m)
		}
	}
	at := 0
	for _, m := range modes {
		i := strings.Index(readDescription[at:], m.Hint())
		if i < 0 {
			t.Errorf("context_read's description does not name %s after the modes before it: %s", m.Hint(), readDescription)
			continue
		}
		at += i + len(m.Hint())
	}
}
