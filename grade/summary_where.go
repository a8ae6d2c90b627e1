package grade

import (
	"fmt"
	"strings"
)

// Where to look when a check fails: the section of docs/grade-protocol.md
// that the check enforces, and the numbered TODO of the Day's starter
// (workers/_starter, `TODO(Day 16) #4`) that it belongs to. TestWhereToLook
// holds the table to the page and the starters.

// ProtocolPage is the page every check's section is on.
const ProtocolPage = "docs/grade-protocol.md"

// sections are the protocol page's sections the checks name, by number,
// with their anchors (the page's headings, as a Markdown viewer links them).
var sections = map[string]string{
	"4":   "4-time-the-only-clock-is-the-labs",
	"6":   "6-rules-the-lab-checks-the-protocol-checks",
	"7.1": "71-day-16-session-16-alias-day16-bounded-retries-backoff-and-a-dead-letter-exit",
	"7.2": "72-day-15-session-15-alias-day15-leasing-one-owner-at-a-time",
	"7.3": "73-day-17-session-17-alias-day17-an-audited-redrive",
	"7.4": "74-poison-counter-poison-counter-a-message-that-kills-its-consumer",
	"7.5": "75-day-18-session-18-alias-day18-the-hosted-worker--lease-renewal-a-drain-waiting-without-spinning",
}

// daySection is each Day's section: its own checks, and those Days share.
var daySection = map[string]string{"session-16": "7.1", "session-15": "7.2", "session-17": "7.3", "poison-counter": "7.4",
	"session-18": "7.5"}

// protocolSection is the section of a protocol: check (6, but for the
// timestamps, whose form is section 4's).
func protocolSection(name string) string {
	if strings.HasPrefix(name, "protocol: every timestamp written") {
		return "4"
	}
	return "6"
}

// todoTag is how a Day's starter tags its TODOs: TODO(Day 16) #1.
var todoTag = map[string]string{"session-16": "Day 16", "session-15": "Day 15", "session-17": "Day 17",
	"poison-counter": "poison-counter", "session-18": "Day 18"}

// todos are, by Day, the starts of its checks' names and the TODOs of its
// starter each check belongs to. A check not listed belongs to no TODO:
// the protocol's, and the ones the starter already does.
var todos = map[string][]struct {
	check string
	todos []int
}{
	"session-15": {
		{"every healthy message Processed once", []int{1, 4}}, // the killed worker's stays Processing
		{"the killed worker's message taken over after its lease", []int{1, 4}},
		{"the stalled worker's late completion refused by the owner and token check", []int{2, 3}},
		{"every claim takes the lease and the token", []int{2}},
		{"one payment update per message", []int{3}},
		{"the queue drained", []int{1, 4}},
	},
	"session-16": {
		{"attempts counted at claim time", []int{1}},
		{"every retry waited for its NextAttemptUtc", []int{2, 3}},
		{"claims take the oldest claimable messages first; no worker sleeps while one is claimable", []int{2}},
		{"the poison tried exactly MaxAttempts times", []int{1, 4}},
		{"the poison DeadLettered with its LastError", []int{4}},
		{"the transient key Processed after K+1 attempts", []int{1, 3, 4}},
		{"the queue drained", []int{4}},
	},
	"session-17": {
		{"the redrive refuses to run without an approver", []int{1}},
		{"one AuditLog row names the approver", []int{2}},
		{"counters kept", []int{3}},
		{"a Redrives row per released entry keeps its original counters", []int{3}},
		{"released in batches of at most REDRIVE_BATCH", []int{4}},
		{"with the provider still broken: halted after the first batch", []int{4}},
		{"every redriven entry verified with the provider", []int{5}},
	},
	"session-18": {
		{"every healthy message Processed once", []int{1, 4, 5}},
		{"never two provider calls in flight for one message", []int{1, 2}},
		{"only the current holder renews or settles a message", []int{2}},
		{"every lease renewed at least RENEW_MARGIN before it ended", []int{1, 2}},
		{"renewals stop at the cap", []int{3}},
		{"a drained worker claims nothing more", []int{4}},
		{"attempts counted at claim time: +1 at every claim, -1 only at a drain's release", []int{4}},
		{"a message whose worker died is taken again within one lease", []int{5}},
		{"no busy polling", []int{5}},
	},
	"poison-counter": {
		{"attempts counted at claim time", []int{1}},
		{"restarts = MaxAttempts", []int{1}},
		{"the lethal message DeadLettered after exactly MaxAttempts deliveries", []int{1, 2}},
		{"the queue drained", []int{1, 2}},
	},
}

// place says where to look for f, a failing check of day.
func (f *Failing) place(day string) {
	name := strings.TrimPrefix(f.Name, "every run: ")
	f.Section = daySection[day]
	if strings.HasPrefix(name, "protocol: ") {
		f.Section = protocolSection(name)
	}
	if a, ok := sections[f.Section]; ok {
		f.Anchor = ProtocolPage + "#" + a
	}
	for _, t := range todos[day] {
		if strings.HasPrefix(name, t.check) {
			f.TODOs, f.TODOTag = t.todos, todoTag[day]
			return
		}
	}
}

// look is where to look for f, in a line: the page's section and its TODOs.
func (f *Failing) look() string {
	s := fmt.Sprintf("%s §%s", ProtocolPage, f.Section)
	if len(f.TODOs) > 0 {
		s += " · " + f.todoText()
	}
	return s
}

// todoText names f's TODOs: TODO(Day 16) #1, #4.
func (f *Failing) todoText() string {
	nums := make([]string, len(f.TODOs))
	for i, n := range f.TODOs {
		nums[i] = fmt.Sprintf("#%d", n)
	}
	return fmt.Sprintf("TODO(%s) %s", f.TODOTag, strings.Join(nums, ", "))
}
