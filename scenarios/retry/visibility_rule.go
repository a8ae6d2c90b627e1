package retry

import (
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/plot"
	"outboxlab/core/report"
)

// The course's rule, "the backoff must not exceed the visibility timeout",
// judged from the holds the audit log and the gateway's ledger show, the way
// the lease counts: from the claim, through every send and wait. It binds a
// consumer that waits holding the message (the BEFORE): a held wait and the
// send after it that end within the claim's visibility timeout cannot be
// overlapped, since no other consumer can claim the message before the lease
// ends; once they run past it, they can (a hanging send overruns it as
// surely as a long backoff). It does not bind the AFTER, which puts the message back: no lease
// is open while the message waits, so a backoff longer than the timeout is
// harmless there.

// ruleMetrics are the held waits and the waits on the queue, against the
// visibility timeout.
type ruleMetrics struct {
	within, withinOverlapped int           // held waits whose next send ended within the lease, and those another consumer claimed the message during
	past, pastOverlapped     int           // held waits whose next send ended past the lease, and those overlapped
	longestHeld              time.Duration // the longest held wait alone, between two sends
	queueWaits, queueLong    int           // waits on the queue between a failed send and the next delivery; those longer than the timeout
	longestQueue             time.Duration // the longest of them
}

func (o *visibilityOptions) ruleMetrics(holds []heldMessage) ruleMetrics {
	var f ruleMetrics
	byKey := map[string][]heldMessage{}
	for _, h := range holds {
		byKey[h.key] = append(byKey[h.key], h)
	}
	for _, h := range holds {
		for j := 1; j < len(h.sends); j++ {
			// The wait from the failed send to the next one, and that send:
			// the holder keeps the message through both.
			from, to := h.sends[j-1].done, h.sends[j].done
			f.longestHeld = max(f.longestHeld, h.sends[j].at.Sub(from))
			overlapped := false
			for _, g := range byKey[h.key] {
				// another consumer's claim made after h's, holding the message during the wait
				if g.consumer != h.consumer && g.from.After(h.from) && g.from.Before(to) && g.to.After(from) {
					overlapped = true
				}
			}
			if to.After(h.leaseEnd) {
				f.past++
				if overlapped {
					f.pastOverlapped++
				}
			} else {
				f.within++
				if overlapped {
					f.withinOverlapped++
				}
			}
		}
		// A hold that ended on a failed send, followed by a later delivery of
		// the same message: the wait in between was on the queue.
		last := len(h.sends) - 1
		if last < 0 || h.sends[last].ok {
			continue
		}
		for _, g := range byKey[h.key] {
			if g.from.After(h.to) || g.from.Equal(h.to) && g.consumer != h.consumer {
				wait := g.from.Sub(h.to)
				f.queueWaits++
				f.longestQueue = max(f.longestQueue, wait)
				if wait > o.Visibility {
					f.queueLong++
				}
				break
			}
		}
	}
	return f
}

// checkHeldRule is the rule's check in the BEFORE.
const checkHeldRule = "the rule: a held wait and its send within the visibility timeout are never " +
	"overlapped; past it, they are"

func (o *visibilityOptions) heldRuleCheck(r *report.Report, f ruleMetrics) {
	r.Check(checkHeldRule, f.withinOverlapped == 0 && f.past > 0 && f.pastOverlapped > 0,
		fmt.Sprintf("within the %s lease: %d waits, %d overlapped; past it: %d waits, %d overlapped",
			clockText(o.Visibility), f.within, f.withinOverlapped, f.past, f.pastOverlapped))
}

// writeRule shows the rule where the scenario's own design meets it.
func (o *visibilityOptions) writeRule(r *report.Report, run *pairRun) {
	f := run.read.rule
	if run.held {
		r.Section(fmt.Sprintf("The rule: backoff plus send must end within the visibility timeout (%s)", clockText(o.Visibility)))
		r.Line("A consumer that waits holding the message keeps it only while its claim's lease lasts:")
		r.Table([]string{"held wait + the send after it", "waits", "another consumer claimed it meanwhile"}, [][]string{
			{"ended within the lease", fmt.Sprint(f.within), fmt.Sprint(f.withinOverlapped)},
			{"ran past the lease", fmt.Sprint(f.past), fmt.Sprint(f.pastOverlapped)},
		})
		r.Linef("The longest held wait took %s; the lease counts from the claim, so sends and earlier waits",
			secondsText(f.longestHeld))
		r.Line("use it up too: a wait overruns it once the wait and the send after it end past the lease.")
		return
	}
	r.Section("The rule \"the backoff must not exceed the visibility timeout\" does not apply here")
	r.Linef("It binds a consumer that waits holding the message. This design puts the message back:")
	r.Linef("Pending, NextAttemptUtc = now + backoff, no lease open while it waits. Of %d waits on the", f.queueWaits)
	r.Linef("queue, %d lasted longer than the %s visibility timeout (the longest %s), and no two",
		f.queueLong, clockText(o.Visibility), secondsText(f.longestQueue))
	r.Linef("consumers ever held one message (%s).", report.Plural(run.read.overlaps, "overlapping hold"))
}

// visibilityTimeline draws each message of run on the scenario clock: a
// claim •, a failed send ✗, a send that went through ✓, dead-lettered ☠.
// Its text stays out of the body, whose timeline tells it line by line.
func visibilityTimeline(run *pairRun) plot.Figure {
	keys := map[int64]string{}
	for _, m := range run.msgs {
		keys[m.ID] = m.Key
	}
	marks := map[string][]plot.Mark{}
	for _, s := range run.gw.ledger {
		symbol := "✗"
		if s.ok {
			symbol = "✓"
		}
		marks[s.key] = append(marks[s.key], plot.Mark{At: s.done.Sub(clock.Start), Symbol: symbol})
	}
	for _, a := range run.audit {
		switch a.Action {
		case actionDelivered:
			marks[keys[a.MessageID]] = append(marks[keys[a.MessageID]], plot.Mark{At: mustParseISO(a.At).Sub(clock.Start), Symbol: "•"})
		case actionDeadLettered:
			marks[keys[a.MessageID]] = append(marks[keys[a.MessageID]], plot.Mark{At: mustParseISO(a.At).Sub(clock.Start), Symbol: "☠"})
		}
	}
	lanes := make([]plot.Lane, 0, len(run.msgs))
	for _, m := range run.msgs {
		lanes = append(lanes, plot.Lane{Label: m.Key, Marks: marks[m.Key], Note: string(m.Status)})
	}
	f := plot.Timeline("timeline", "Each notification on the scenario clock", lanes, clock.Start, run.ended.Sub(clock.Start), 60,
		"• claimed   ✗ a send failed   ✓ a send went through   ☠ dead-lettered")
	f.Text = ""
	return f
}
