// Package lowprio keeps the SDK's background work below the calls an agent
// waits for. Programs it starts (the OCR engine, the page renderer) run
// below the priority of the process that starts them, and the in-process
// workers of a library's background (its index's build, its OCR) yield to
// the calls a Calls counts: a search answered while scans are recognised
// is not slowed by them.
package lowprio

import (
	"context"
	"os/exec"
)

// Nice is how many nice levels below this process a program started by
// Start runs (capped at the lowest, 19). Five levels give this process's
// threads three times the program's share of a core they both want; ten
// would give nine times, but would also let any busy program of the same
// session (a host's build, a test run) slow a page ninefold, past the
// page's deadline on a loaded machine.
const Nice = 5

// Start starts cmd Nice levels below this process's priority where the
// system lets a program be started so (Linux: from its first instruction;
// other Unix systems: right after it starts), and at this process's
// priority elsewhere. It fails only as cmd.Start does.
func Start(cmd *exec.Cmd) error { return start(cmd) }

// Run is Start followed by cmd.Wait.
func Run(cmd *exec.Cmd) error {
	if err := Start(cmd); err != nil {
		return err
	}
	return cmd.Wait()
}

// callsKey is the context key of WithCalls.
type callsKey struct{}

// WithCalls returns a copy of ctx that tells RunContext whether calls an
// agent waits for are in flight: inFlight reports it at the time it is
// called, from any goroutine.
func WithCalls(ctx context.Context, inFlight func() bool) context.Context {
	return context.WithValue(ctx, callsKey{}, inFlight)
}

// RunContext runs cmd, made with exec.CommandContext or exec.Command,
// below the calls an agent waits for, and waits for it. Where the system
// shares the cores between sessions first (Linux with automatic session
// groups), a program started while ctx's calls (WithCalls) are not in
// flight runs in a session of its own: programs run in parallel then get
// a share each, not one share between them, as beside other sessions'
// work they would. Its session is ranked Nice levels below the others
// while calls are in flight during its run, and back at their level once
// none is. A program started while calls are in flight, or under a
// context that says nothing of them, runs in this process's session as
// Start runs it. Either way the program leads a process group of its
// own, and cmd's context ending kills the whole group: the program and
// what it started.
func RunContext(ctx context.Context, cmd *exec.Cmd) error {
	inFlight, _ := ctx.Value(callsKey{}).(func() bool)
	return runContext(cmd, inFlight)
}

// lower returns nice lowered by Nice, within the lowest priority.
func lower(nice int) int { return min(nice+Nice, 19) }
