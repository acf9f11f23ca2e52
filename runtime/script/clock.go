package script

import (
	"sync"
	"time"
)

// clock is a wall-clock budget that can be paused. It runs while the script computes or a
// process it started runs, and is paused while a capability waits on someone else: the
// budget bounds what the script does, not how long a person takes to answer it.
type clock struct {
	mu      sync.Mutex
	left    time.Duration // budget remaining when last paused
	started time.Time     // when the clock last resumed
	timer   *time.Timer
	paused  int // nesting depth of pause calls
	done    bool
}

// startClock starts a running clock of budget d that calls expire once when it runs out.
func startClock(d time.Duration, expire func()) *clock {
	c := &clock{left: d, started: time.Now()}
	c.timer = time.AfterFunc(d, func() {
		c.mu.Lock()
		fire := !c.done && c.paused == 0
		c.done = c.done || fire
		c.mu.Unlock()
		if fire {
			expire()
		}
	})
	return c
}

// pause stops the clock until the matching resume. Pauses nest.
func (c *clock) pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused++
	if c.paused == 1 && !c.done {
		c.timer.Stop()
		c.left -= time.Since(c.started)
	}
}

// resume restarts the clock with what is left of the budget.
func (c *clock) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused--
	if c.paused == 0 && !c.done {
		c.started = time.Now()
		// An overdrawn budget still fires, at once: the script ran out before it paused.
		c.timer.Reset(max(c.left, 0))
	}
}

// stop ends the clock for good.
func (c *clock) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done = true
	c.timer.Stop()
}
