// Package decide is the decide subcommand of the researchctx command: the
// session decision of package acp (resume the agent's session or open a
// new one, attach the server, hand the conversation over) for hosts in
// other languages. It is apart from package cli so that a host that links
// only plan and serve does not link ACP; cmd/researchctx registers it:
//
//	c := cli.NewCommand("researchctx")
//	c.Subcommands = map[string]cli.Subcommand{"decide": decide.Subcommand}
package decide

import (
	"context"
	"io"

	"github.com/researchctx/researchctx"
	"github.com/researchctx/researchctx/acp"
	"github.com/researchctx/researchctx/cli"
	"github.com/researchctx/researchctx/grant"
)

// Input is what decide reads: the session record the host kept from the
// previous turn (null for none) and this turn's plan as plan printed it
// (null for none).
type Input struct {
	Previous *acp.Record     `json:"previous"`
	Plan     *cli.PlanOutput `json:"plan"`
}

// Run reads an Input as JSON from in and returns acp.Decide's decision for
// it. Input that is not an Input is an error wrapping cli.ErrUsage.
func Run(in io.Reader) (acp.Decision, error) {
	var di Input
	if err := cli.DecodeJSON(in, &di, `{"previous": Record, "plan": Plan} JSON`); err != nil {
		return acp.Decision{}, err
	}
	var p *researchctx.Plan
	if di.Plan != nil {
		p = &researchctx.Plan{
			RuntimeID: di.Plan.RuntimeID, TurnID: di.Plan.TurnID, Evidence: di.Plan.Evidence,
			Scope:       grant.Scope{Sources: di.Plan.Sources, Tools: di.Plan.Tools, Budget: di.Plan.Budget, Mode: di.Plan.Mode},
			Fingerprint: di.Plan.Fingerprint, Dropped: di.Plan.Dropped,
		}
	}
	return acp.Decide(di.Previous, p), nil
}

// Subcommand is decide as a cli.Command subcommand: `decide -input FILE`.
var Subcommand = cli.Subcommand{
	Usage: `decide -input FILE
        read {"previous": Record|null, "plan": Plan|null} (FILE or - for stdin)
        and print the session Decision: new or resume, attach the server, ...`,
	Run: func(_ context.Context, in io.Reader) (any, error) { return Run(in) },
}
