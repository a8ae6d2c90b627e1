package day16

import (
	"context"
	"fmt"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/grade/dayspec"
	"outboxlab/grade/sched"
)

// stallPast is how far past the lease a held answer is given: later than a
// sleeper's lease end + 1 ms, so that the other worker takes the message
// over first.
const stallPast = 500 * time.Millisecond

// Runs are what a Day 16 variation adds to make the bugs that the course's
// run cannot show observable (docs/grade-protocol.md section 1.1). The zero
// value adds nothing: the course's run.
type Runs struct {
	KillKey  string // a worker killed with this key's answer in flight (once)
	StallKey string // this key's answer held past the lease (once): the other worker takes it over
	// KillAtMax kills the worker with the poison's last allowed answer in
	// flight (once): the next claim must dead-letter it.
	KillAtMax bool
	// RestartAtLease restarts the worker KillAtMax killed (its hello
	// answered) exactly when the killed claim's lease ends, and the worker
	// killed at KillKey 1 ms before its lease ends (the boundary - 1 ms;
	// + 1 ms is every sleeper's wake).
	RestartAtLease bool
	Latency        time.Duration // every other status check takes this much scenario time
	// Boundary: a status check is answered exactly at another message's
	// backoff gate when one comes within Boundary.
	Boundary time.Duration
	Numbered bool     // a failure's text names its attempt: no two read alike
	RowMax   []RowMax // rows whose MaxAttempts is not the environment's
}

// RowMax is a row's own MaxAttempts; Max 0 seeds NULL (no ceiling).
type RowMax struct {
	Key string
	Max int
}

// maxOf is the MaxAttempts the lab seeded on key's row (0: NULL, none).
func (v variation) maxOf(key string) int {
	for _, r := range v.RowMax {
		if r.Key == key {
			return r.Max
		}
	}
	return v.MaxAttempts
}

// Fault kills, stalls or delays a status check: the kill once at KillKey,
// the kill at the poison's last allowed check once, the stall once at
// StallKey; every other check takes Latency, or ends on a boundary.
func (v variation) Fault(key string, n int, fired map[string]bool) sched.Fault {
	switch {
	case key == v.KillKey && !fired["kill"]:
		return sched.Fault{Name: "kill", Kill: true, Answered: true, RestartAtLease: v.RestartAtLease, Early: time.Millisecond,
			Why: "killed with " + key + "'s answer in flight"}
	case v.KillAtMax && len(v.Poison) > 0 && key == v.Poison[0] && n == v.maxOf(key) && !fired["kill-at-max"]:
		return sched.Fault{Name: "kill-at-max", Kill: true, Answered: true, RestartAtLease: v.RestartAtLease,
			Why: fmt.Sprintf("killed with %s's attempt %d (its MaxAttempts) in flight", key, n)}
	case key == v.StallKey && !fired["stall"]:
		return sched.Fault{Name: "stall", Stall: v.Lease + stallPast}
	}
	return sched.Fault{Delay: v.Latency, Boundary: v.Boundary}
}

// Restarts: a killed worker is started again once per kill.
func (v variation) Restarts() int {
	n := 0
	if v.KillKey != "" {
		n++
	}
	if v.KillAtMax {
		n++
	}
	return n
}

// Setup seeds the rows whose MaxAttempts is their own.
func (v variation) Setup(ctx context.Context, b *dayspec.Bench) (sched.LabWorker, error) {
	for _, r := range v.RowMax {
		var max any
		if r.Max > 0 {
			max = r.Max
		}
		if _, err := b.Store.DB().ExecContext(ctx, `UPDATE OutboxMessages SET MaxAttempts = $1 WHERE MessageKey = $2`,
			max, r.Key); err != nil {
			return nil, fmt.Errorf("seed %s's MaxAttempts: %w", r.Key, err)
		}
	}
	return nil, nil
}

// rowMaxText says which rows carry a MaxAttempts of their own.
func (v variation) rowMaxText() string {
	var parts []string
	for _, r := range v.RowMax {
		if r.Max == 0 {
			parts = append(parts, r.Key+" NULL")
		} else {
			parts = append(parts, fmt.Sprintf("%s %d", r.Key, r.Max))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; the rows' own MaxAttempts: " + strings.Join(parts, ", ")
}

// describe is the runs' setup lines (none for the course's run).
func (r Runs) describe(poison []string) []string {
	var faults []string
	if r.KillKey != "" {
		faults = append(faults, "killed in flight at "+r.KillKey+"'s status check")
	}
	if r.KillAtMax && len(poison) > 0 {
		faults = append(faults, "killed in flight at "+poison[0]+"'s last allowed check")
	}
	if r.StallKey != "" {
		faults = append(faults, fmt.Sprintf("%s's answer held for lease + %s", r.StallKey, clock.Millis(stallPast)))
	}
	if r.RestartAtLease && r.KillAtMax {
		faults = append(faults, "the last kill's worker restarted when its lease ends")
	}
	if r.RestartAtLease && r.KillKey != "" {
		faults = append(faults, "the first kill's worker restarted 1 ms before its lease ends")
	}
	var timing []string
	if r.Latency > 0 {
		timing = append(timing, "every other status check takes "+clock.Millis(r.Latency))
	}
	if r.Boundary > 0 {
		timing = append(timing, "or ends exactly at another message's gate (one within "+clock.Millis(r.Boundary)+")")
	}
	if r.Numbered {
		timing = append(timing, "each failure's text names its attempt")
	}
	var out []string
	if len(faults) > 0 {
		out = append(out, "Faults    "+strings.Join(faults, " · "))
	}
	if len(timing) > 0 {
		out = append(out, "Provider  "+strings.Join(timing, " · "))
	}
	return out
}
