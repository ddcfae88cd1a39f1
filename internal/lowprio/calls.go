package lowprio

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// BuildGrace is how long after the last call YieldBuild keeps holding a
// build to one worker: an agent's calls come in bursts, and workers let
// go between two calls of a burst would each start an item (a whole
// paper's text), which the next call would then share the cores with.
// OCR pages take no grace: a page's engine runs below the calls'
// priority anyway (Start).
const BuildGrace = 250 * time.Millisecond

// Calls counts a library's calls in flight (searches, reads and
// descriptions an agent waits for) and holds its background back while
// they run: the index's workers before each item and the OCR worker
// before each page call yield, and while a call runs one background
// worker at a time goes on (the one holding the lane), so that the
// background still ends and a call never shares the cores with more
// than it. A call waiting for background work (a build it needs, a page
// another run recognises) pauses its count meanwhile, so that the work
// it waits for runs at full speed.
//
// The zero Calls is ready to use; a Calls must not be copied after first
// use.
type Calls struct {
	mu   sync.Mutex
	n    int           // calls in flight, not paused
	idle chan struct{} // closed while n is 0
	last time.Time     // when n last fell to 0
	lane chan struct{} // held by the one background worker that goes on

	// For the tests: the background workers held back now, and the
	// times one was, in all.
	waiting atomic.Int32
	held    atomic.Int64
}

// callKey marks a context as a call's; its value is the Calls counting it.
type callKey struct{}

// init makes the channels of the zero Calls.
func (c *Calls) init() {
	if c.idle == nil {
		c.idle = make(chan struct{})
		close(c.idle)
		c.lane = make(chan struct{}, 1)
	}
}

// Begin counts the call of ctx in flight until end is called (end may be
// called more than once). A call made inside another (a read inside a
// search) is the same call, not counted again.
func (c *Calls) Begin(ctx context.Context) (_ context.Context, end func()) {
	if ctx.Value(callKey{}) == c {
		return ctx, func() {}
	}
	c.add(1)
	var once sync.Once
	return context.WithValue(ctx, callKey{}, c), func() { once.Do(func() { c.add(-1) }) }
}

// InCall reports whether ctx is the context of a call c counts (Begin):
// work done for a call must not yield to it.
func (c *Calls) InCall(ctx context.Context) bool { return ctx.Value(callKey{}) == c }

// InFlight reports whether a call runs now, not paused.
func (c *Calls) InFlight() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n > 0
}

// Pause stops counting the call of ctx, if it is one of c's, until resume
// is called: the call waits for the background.
func (c *Calls) Pause(ctx context.Context) (resume func()) {
	if ctx.Value(callKey{}) != c {
		return func() {}
	}
	c.add(-1)
	return func() { c.add(1) }
}

// add changes the count by d.
func (c *Calls) add(d int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init()
	was := c.n
	c.n += d
	// The parts of one call that pause at once may take it below 0 for a
	// moment: 0 or less is idle.
	switch {
	case was <= 0 && c.n > 0:
		c.idle = make(chan struct{})
	case was > 0 && c.n <= 0:
		c.last = time.Now()
		close(c.idle)
	}
}

// Yield returns at once while no call runs; otherwise it waits until
// none does or the lane is free, and takes it. done gives the lane back;
// a background worker calls it once its item or page is done. It returns
// when ctx ends too.
func (c *Calls) Yield(ctx context.Context) (done func()) {
	return c.yieldAfter(ctx, 0)
}

// YieldBuild is Yield for an index's build: calls that ended within
// BuildGrace count as running.
func (c *Calls) YieldBuild(ctx context.Context) (done func()) {
	return c.yieldAfter(ctx, BuildGrace)
}

// Held returns how many background workers wait in Yield now, and how
// many times one did in all: what a test checks to see the background
// held back.
func (c *Calls) Held() (now int, total int64) {
	return int(c.waiting.Load()), c.held.Load()
}

// yieldAfter is Yield with calls that ended within grace counted as
// running.
func (c *Calls) yieldAfter(ctx context.Context, grace time.Duration) (done func()) {
	for {
		c.mu.Lock()
		c.init()
		n, idle, lane := c.n, c.idle, c.lane
		left := time.Until(c.last.Add(grace))
		c.mu.Unlock()
		if n <= 0 && left <= 0 {
			return func() {}
		}
		var timer *time.Timer
		var after <-chan time.Time
		if n <= 0 {
			// Between two calls of a burst, perhaps.
			timer = time.NewTimer(left)
			after, idle = timer.C, nil
		}
		c.waiting.Add(1)
		c.held.Add(1)
		took, ended := false, false
		select {
		case lane <- struct{}{}:
			took = true
		case <-idle:
		case <-after:
		case <-ctx.Done():
			ended = true
		}
		c.waiting.Add(-1)
		if timer != nil {
			timer.Stop()
		}
		switch {
		case took:
			return func() { <-lane }
		case ended:
			return func() {}
		}
	}
}
