// Package clock provides the ScenarioClock, the only source of time in scenarios.
package clock

import (
	"fmt"
	"strconv"
	"sync"
	"time"
)

// Start is where every scenario's time begins: 09:00:00.000Z on a fixed date.
var Start = time.Date(2026, time.January, 16, 9, 0, 0, 0, time.UTC)

// ScenarioClock is a deterministic clock. It never moves by itself: only
// Advance and AdvanceTo move it, so nothing in a scenario ever sleeps.
// It is safe for use by several goroutines.
type ScenarioClock struct {
	mu  sync.Mutex
	now time.Time
}

// New returns a clock standing at Start.
func New() *ScenarioClock {
	return NewAt(Start)
}

// NewAt returns a clock standing at t (converted to UTC).
func NewAt(t time.Time) *ScenarioClock {
	return &ScenarioClock{now: t.UTC()}
}

// Now returns the current scenario time.
func (c *ScenarioClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d and returns the new time.
// A negative d is ignored: scenario time never runs backwards.
func (c *ScenarioClock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.now = c.now.Add(d)
	}
	return c.now
}

// AdvanceTo moves the clock to t if t is later than now, and returns the
// resulting time. Moving to an earlier time leaves the clock where it is.
func (c *ScenarioClock) AdvanceTo(t time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t.UTC()
	}
	return c.now
}

// Stamp formats t as a timeline time of day with milliseconds: 09:00:00.201Z.
func Stamp(t time.Time) string {
	return t.UTC().Format("15:04:05.000Z")
}

// ISO formats t the way the store keeps times: 2026-01-16T09:00:00.201Z.
// The fixed width makes the text sort in time order.
func ISO(t time.Time) string {
	return t.UTC().Format(ISOLayout)
}

// ISOLayout is the layout of ISO.
const ISOLayout = "2006-01-02T15:04:05.000Z"

// Millis formats a duration as whole milliseconds: "200 ms".
func Millis(d time.Duration) string {
	return strconv.FormatInt(d.Milliseconds(), 10) + " ms"
}

// DayStamp is Stamp followed by the day when t is not on Start's day:
// 09:00:00.001Z on it, 09:00:00.001Z+1d a day later. A lease, a backoff or a
// review can reach into later days; a time of day alone would then seem to
// go back.
func DayStamp(t time.Time) string {
	s := Stamp(t)
	if d := t.UTC().Sub(Start.Truncate(24*time.Hour)) / (24 * time.Hour); d > 0 {
		s += fmt.Sprintf("+%dd", d)
	}
	return s
}
