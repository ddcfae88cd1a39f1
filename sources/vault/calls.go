package vault

import (
	"context"

	"github.com/researchctx/researchctx/internal/lowprio"
)

// calls counts the library's calls in flight and holds the background
// back while they run (lowprio.Calls). The unexported methods keep the
// calls' sites as they were.
type calls struct{ lowprio.Calls }

// begin is lowprio.Calls.Begin.
func (c *calls) begin(ctx context.Context) (context.Context, func()) { return c.Begin(ctx) }

// pause is lowprio.Calls.Pause.
func (c *calls) pause(ctx context.Context) (resume func()) { return c.Pause(ctx) }

// inCall is lowprio.Calls.InCall.
func (c *calls) inCall(ctx context.Context) bool { return c.InCall(ctx) }

// yield is lowprio.Calls.Yield.
func (c *calls) yield(ctx context.Context) (done func()) { return c.Yield(ctx) }

// yieldBuild is lowprio.Calls.YieldBuild.
func (c *calls) yieldBuild(ctx context.Context) (done func()) { return c.YieldBuild(ctx) }

// inFlight is lowprio.Calls.InFlight.
func (c *calls) inFlight() bool { return c.InFlight() }
