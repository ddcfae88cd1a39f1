package lowprio

import (
	"context"
	"testing"
	"testing/synctest"
)

// TestCallsCountOncePerCall: a call made inside another is the same call,
// a pause takes the call out of the count until it resumes, and what is
// not a call pauses nothing.
func TestCallsCountOncePerCall(t *testing.T) {
	var c Calls
	count := func() int {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.n
	}
	ctx, end := c.Begin(context.Background())
	inner, endInner := c.Begin(ctx)
	if n := count(); n != 1 {
		t.Fatalf("a call inside a call: %d in flight, want 1", n)
	}
	resume := c.Pause(inner)
	if n := count(); n != 0 {
		t.Errorf("a paused call: %d in flight, want 0", n)
	}
	c.Pause(context.Background())() // not a call: nothing changes
	resume()
	endInner()
	if n := count(); n != 1 {
		t.Errorf("after the inner call and the pause: %d in flight, want 1", n)
	}
	end()
	end() // twice: once counted
	if n := count(); n != 0 {
		t.Errorf("after the call: %d in flight, want 0", n)
	}
}

// TestCallsLane: while no call is in flight yield returns at once; while
// one is, the first background worker takes the lane and the next waits
// until the lane is given back or the calls end.
// In a synctest bubble, so that the workers are seen blocked in yield
// rather than polled for.
func TestCallsLane(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var c Calls
		c.Yield(context.Background())() // idle
		_, end := c.Begin(context.Background())
		first := c.Yield(context.Background())
		got := make(chan func(), 1)
		go func() { got <- c.Yield(context.Background()) }()
		synctest.Wait() // the worker is blocked in yield
		if n := c.waiting.Load(); n != 1 {
			t.Fatalf("%d workers waiting, want 1", n)
		}
		select {
		case <-got:
			t.Fatal("a second worker went on beside the first while a call was in flight")
		default:
		}
		first() // the lane is free: the waiting worker takes it
		second := <-got
		third := make(chan func(), 1)
		go func() { third <- c.Yield(context.Background()) }()
		synctest.Wait() // the worker is blocked in yield
		if n := c.waiting.Load(); n != 1 {
			t.Fatalf("%d workers waiting, want 1", n)
		}
		end() // no call: the waiting worker goes on without the lane
		(<-third)()
		second()
		// A worker whose context ends while it waits goes on, and takes
		// nothing.
		_, end = c.Begin(context.Background())
		defer end()
		c.lane <- struct{}{}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		c.Yield(ctx)()
		if len(c.lane) != 1 {
			t.Error("a cancelled worker gave back a lane it did not hold")
		}
	})
}
