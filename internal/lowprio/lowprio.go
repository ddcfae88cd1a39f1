// Package lowprio keeps the SDK's background work below the calls an agent
// waits for. Programs it starts (the OCR engine, the page renderer) run
// below the priority of the process that starts them, and the in-process
// workers of a library's background (its index's build, its OCR) yield to
// the calls a Calls counts: a search answered while scans are recognised
// is not slowed by them.
package lowprio

import "os/exec"

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

// lower returns nice lowered by Nice, within the lowest priority.
func lower(nice int) int { return min(nice+Nice, 19) }
