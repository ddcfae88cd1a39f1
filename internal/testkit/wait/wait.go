// Package wait waits in tests for a condition the code under test brings
// about in its own time: a background worker held, a page in an engine.
package wait

import (
	"testing"
	"time"
)

// Until fails the test when cond does not hold within a bound only a
// broken build reaches (a minute); it checks as soon as it can, so a test
// that uses it does not depend on the machine's speed.
func Until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
