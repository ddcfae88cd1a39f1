package libindex

import (
	"context"
	"sync"
	"testing"
)

// TestYieldHoldsWorkers: a build's workers call Yield before each item
// and extract nothing while it holds them; once it lets them go, the
// build ends with every item, each Yield's done called once per item.
func TestYieldHoldsWorkers(t *testing.T) {
	lib := newLibrary(20, 7)
	gate := make(chan struct{})
	arrived := make(chan struct{}, 100)
	var mu sync.Mutex
	yields, dones := 0, 0
	yield := func(ctx context.Context) func() {
		mu.Lock()
		yields++
		mu.Unlock()
		arrived <- struct{}{}
		select {
		case <-gate:
		case <-ctx.Done():
		}
		return func() {
			mu.Lock()
			dones++
			mu.Unlock()
		}
	}
	const workers = 3
	x := Open(Options{Dir: t.TempDir(), Extract: lib.extract, Workers: workers, Yield: yield})
	defer x.Close()
	job := x.Ensure(lib.items(), "", nil)
	// Every worker reaches the gate and waits there: nothing is extracted.
	for range workers {
		<-arrived
	}
	if n := len(lib.resetCalls()); n != 0 {
		t.Fatalf("%d items extracted while Yield held the workers", n)
	}
	close(gate)
	wait(t, job)
	if n := len(lib.resetCalls()); n != 20 {
		t.Errorf("%d items extracted, want 20", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if yields != 20 || dones != 20 {
		t.Errorf("Yield called %d times and its done %d, want 20 each", yields, dones)
	}
}
