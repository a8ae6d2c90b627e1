package wassal

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/core/worker"
)

// A Day 16 run is a sequence of polls: the worker claims up to --batch due
// messages and handles them, or claims nothing and moves the clock to the
// next backoff, or finds nothing left to wait for and stops. The timeline
// shows the polls a student needs to see: one that claims nothing, and one
// that claims only messages being retried or poison, with the due messages
// it left waiting (with --batch 1, the naive loop's starvation).

// poll16 is one poll of the worker.
type poll16 struct {
	at      time.Time
	events  []worker.Event // what it claimed and did (an Advanced event when it claimed nothing)
	idle    bool           // it claimed nothing and nothing waited: the worker stopped
	waiting []string       // due messages it did not claim (queue)
}

// queue follows which messages a poll may claim, from the worker's own
// events: every seeded message is due until it ends (Processed or
// DeadLettered), except while it waits out a backoff. One worker on its own
// database has no other source of change, so this is the claim's due set,
// without a read per poll; the checks read the rows themselves.
type queue struct {
	keys  []string             // in queue order
	ended map[string]bool      // Processed or DeadLettered
	until map[string]time.Time // a backoff's NextAttemptUtc
}

func newQueue(keys []string) *queue {
	return &queue{keys: keys, ended: map[string]bool{}, until: map[string]time.Time{}}
}

// poll records one Step's result at at: what it claimed, and the due
// messages it left waiting; then takes in what its events changed.
func (q *queue) poll(at time.Time, res worker.Result) poll16 {
	p := poll16{at: at, events: res.Events, idle: res.Idle}
	claimed := map[string]bool{}
	for _, e := range res.Events {
		if e.Kind != worker.Advanced {
			claimed[e.Key] = true
		}
	}
	if len(claimed) > 0 {
		for _, k := range q.keys {
			if !q.ended[k] && !claimed[k] && !q.until[k].After(at) {
				p.waiting = append(p.waiting, k)
			}
		}
	}
	for _, e := range res.Events {
		switch e.Kind {
		case worker.Processed, worker.DeadLettered:
			q.ended[e.Key] = true
		case worker.Retrying:
			q.until[e.Key] = e.NextAttempt
		}
	}
	return p
}

// claimedOnly is the keys the poll claimed, when every one of them is a
// poison message or one claimed before (a retry): a poll worth a line.
func (o *session16Options) claimedOnly(p poll16, seen map[string]bool) ([]string, bool) {
	var keys []string
	for _, e := range p.events {
		if e.Kind == worker.Advanced {
			return nil, false
		}
		if !seen[e.Key] && !slices.Contains(o.PoisonKeys, e.Key) {
			return nil, false
		}
		keys = append(keys, e.Key)
	}
	return keys, len(keys) > 0
}

// waitingText says what a poll left waiting: nothing else due, or the due
// messages it did not claim.
func waitingText(waiting []string) string {
	switch len(waiting) {
	case 0:
		return "nothing else is due"
	case 1, 2:
		return fmt.Sprintf("%s wait behind it, due", strings.Join(waiting, ", "))
	}
	return fmt.Sprintf("%s wait behind it (%s..%s)", report.Plural(len(waiting), "due message"),
		waiting[0], waiting[len(waiting)-1])
}

// stillWaiting says what a run of polls left waiting, after the first of
// them said which.
func stillWaiting(waiting []string) string {
	if len(waiting) == 0 {
		return "nothing else is due"
	}
	return fmt.Sprintf("the same %d still wait behind it", len(waiting))
}

// timeline is the run's polls and worker events, then how the run ended. A
// run of polls that each claim one message again at one instant, each
// failing the same way straight back to Pending, is two lines (--verbose
// shows each).
func (o *session16Options) timeline(run *session16Run, verbose bool) []string {
	var lines []string
	claims := 0
	seen := map[string]bool{}
	for i := 0; i < len(run.polls); i++ {
		p := run.polls[i]
		if p.idle {
			lines = append(lines, fmt.Sprintf("%s  %-8s poll claims nothing, and no message waits on a backoff: the worker stops",
				clock.Stamp(p.at), "—"))
			continue
		}
		if keys, ok := o.claimedOnly(p, seen); ok {
			lines = append(lines, fmt.Sprintf("%s  %-8s poll claims only %s; %s",
				clock.Stamp(p.at), "—", strings.Join(keys, ", "), waitingText(p.waiting)))
		}
		for _, e := range p.events {
			if e.Kind != worker.Advanced {
				claims++
				seen[e.Key] = true
			}
			lines = append(lines, TimelineLine(e))
		}
		j := i
		for !verbose && j+1 < len(run.polls) && samePollAgain(p, run.polls[j+1]) {
			j++
		}
		if j < i+2 {
			continue // nothing worth folding
		}
		claims += j - i
		next, last := run.polls[i+1].events[0], run.polls[j].events[0]
		lines = append(lines,
			fmt.Sprintf("%s  %-8s %d more polls each claim only %s; %s", clock.Stamp(next.At), "—",
				j-i, next.Key, stillWaiting(run.polls[j].waiting)),
			fmt.Sprintf("%s  %-8s attempts %d..%s  each FAILED the same way, at the same instant",
				clock.Stamp(next.At), next.Key, next.Attempt, attemptOf(last.Attempt, last.MaxAttempts)))
		i = j
	}
	if run.capped {
		lines = append(lines, fmt.Sprintf("%s  %-8s demo cap: %s at %d attempts, would go on forever; the run stops here",
			clock.Stamp(run.ended), "—", strings.Join(run.cappedKeys, ", "), o.RetryCap))
	}
	return append(lines, fmt.Sprintf("Run ended at %s scenario time after %d claims; transitions refused (claim lost): %d",
		clock.Stamp(run.ended), claims, run.ledger.Refused))
}

// samePollAgain reports whether next claims only p's one message again, at
// its instant, failing the same way straight back to Pending, with as many
// due messages left waiting: a poll whose lines would only repeat p's.
func samePollAgain(p, next poll16) bool {
	return len(p.events) == 1 && len(next.events) == 1 && sameInstantRetry(p.events[0], next.events[0]) &&
		slices.Equal(p.waiting, next.waiting)
}

// starvation is what the rows and the provider's ledger say about the
// messages queued behind the first poison message: those it kept waiting
// (never claimed: AttemptCount 0, no status check), and whether any was
// queued behind it at all.
type starvation struct {
	head    string   // the first poison message in queue order ("" for none)
	behind  []string // the healthy messages queued after it
	starved []string // those never claimed
}

// readStarvation reads the starvation from a run's rows: the queue order is
// the outbox's (CreatedAtUtc, then Id), as the claim's ORDER BY.
func (o *session16Options) readStarvation(l Ledger) starvation {
	var s starvation
	calls := map[string]int{}
	for _, c := range l.Calls {
		calls[c.Key]++
	}
	msgs := slices.Clone(l.Messages)
	slices.SortStableFunc(msgs, func(a, b outbox.Message) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return int(a.ID - b.ID)
	})
	for _, m := range msgs {
		switch {
		case slices.Contains(o.PoisonKeys, m.Key):
			if s.head == "" {
				s.head = m.Key
			}
		case s.head != "":
			s.behind = append(s.behind, m.Key)
			if m.AttemptCount == 0 && calls[m.Key] == 0 {
				s.starved = append(s.starved, m.Key)
			}
		}
	}
	return s
}

// footnote is the note on the claim's size the report ends its story with:
// the course's claim shows LIMIT 1, its numbers need more than one message
// per poll; with one, what the run's rows say happened behind the poison.
func (o *session16Options) footnote(f session16Metrics) string {
	s := f.starvation
	switch {
	case !o.starves() && o.after:
		return fmt.Sprintf("Note: the course's claim shows LIMIT 1; its numbers need more than one message per "+
			"poll, as here (--batch %d). With --batch 1 the backoff takes the poison out of the way and the "+
			"polls claim the messages behind it.", o.Batch)
	case !o.starves():
		return fmt.Sprintf("Note: the course's claim shows LIMIT 1; its numbers need more than one message per "+
			"poll, as here (--batch %d). With --batch 1 the poison at the head of the queue is claimed at every "+
			"poll and starves the messages behind it.", o.Batch)
	case len(s.behind) == 0:
		return fmt.Sprintf("Note: --batch %d, as the course's LIMIT 1; %s is the last in the queue, so nothing "+
			"waits behind it.", o.Batch, s.head)
	case len(s.starved) > 0:
		return fmt.Sprintf("Note: --batch %d, as the course's LIMIT 1: %s at the head of the queue was claimed "+
			"at every poll, and %s behind it never were (the course's numbers need more than one per poll).",
			o.Batch, s.head, report.Plural(len(s.starved), "message"))
	}
	return fmt.Sprintf("Note: --batch %d, as the course's LIMIT 1: while %s waited out its backoff, the polls "+
		"claimed the %s behind it, so none starved.", o.Batch, s.head, report.Plural(len(s.behind), "message"))
}
