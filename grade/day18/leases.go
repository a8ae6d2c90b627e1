package day18

import (
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/report"
	"outboxlab/grade/changelog"
	"outboxlab/grade/judge"
)

// The lease checks: renewal in time, with the margin; the cap.

// renewedInTime: under every claim whose handler ran, each renewal came at
// least the margin before the lease it extended ended and set it to now +
// lease (or the cap); and while the handler still ran at a lease's end
// minus the margin, with the cap not reached, a renewal came by then.
func (v variation) renewedInTime(j *judge.Judge, all []*claim) {
	var problems []string
	renewals, needed := 0, 0
	for _, cl := range all {
		if handlerOf(j.Run, cl) == nil {
			continue
		}
		end := busyUntil(j.Run, cl)
		capAt := cl.at.Add(v.Cap)
		lease := cl.lease
		for _, r := range cl.renewals {
			renewals++
			at, _ := j.TurnAt(r)
			old, _ := r.OldValue("LockedUntilUtc")
			got, _ := r.NewValue("LockedUntilUtc")
			oldAt, _ := changelog.ParseISO(old)
			switch {
			case oldAt.Sub(at) < v.Margin:
				problems = append(problems, fmt.Sprintf("%s renewed %s at %s, %s before its lease ended (%s): "+
					"want at least %s", cl.worker, cl.key, clock.Stamp(at), signed(oldAt.Sub(at)), old, clock.Millis(v.Margin)))
			case got != clock.ISO(at.Add(j.Lease)) && got != clock.ISO(capAt):
				problems = append(problems, fmt.Sprintf("%s renewed %s at %s to %s: want now + lease (%s) or the cap (%s)",
					cl.worker, cl.key, clock.Stamp(at), got, clock.ISO(at.Add(j.Lease)), clock.ISO(capAt)))
			}
			if old == lease {
				lease = got
			}
		}
		leaseAt, _ := changelog.ParseISO(lease)
		due := leaseAt.Add(-v.Margin)
		if end.After(due) && leaseAt.Before(capAt) {
			needed++
			problems = append(problems, fmt.Sprintf("%s's handler of %s ran to %s, but its lease (to %s) was "+
				"not renewed by %s (margin %s)", cl.worker, cl.key, clock.Stamp(end), lease, clock.Stamp(due),
				clock.Millis(v.Margin)))
		}
	}
	j.AddExercised(checkRenewed, renewals+needed > 0, "no handler ran past its lease's margin", problems,
		fmt.Sprintf("%s, each at least %s before its lease ended", report.Plural(renewals, "renewal"), clock.Millis(v.Margin)))
}

// signed is a duration as text, negative when after.
func signed(d time.Duration) string {
	if d < 0 {
		return "-" + clock.Millis(-d)
	}
	return clock.Millis(d)
}

// capped: no renewal set a lease past its claim + RENEW_CAP; a claim that
// reached the cap with its handler still running was taken again after it.
func (v variation) capped(j *judge.Judge, all []*claim) {
	var problems []string
	reached := 0
	for _, cl := range all {
		capAt := clock.ISO(cl.at.Add(v.Cap))
		for _, r := range cl.renewals {
			if got, _ := r.NewValue("LockedUntilUtc"); got > capAt {
				at, _ := j.TurnAt(r)
				problems = append(problems, fmt.Sprintf("%s renewed %s at %s to %s, past its cap %s (claimed %s + %s)",
					cl.worker, cl.key, clock.Stamp(at), got, capAt, clock.Stamp(cl.at), clock.Millis(v.Cap)))
				break
			}
		}
		if handlerOf(j.Run, cl) == nil || !busyUntil(j.Run, cl).After(cl.at.Add(v.Cap)) {
			continue
		}
		// The handler ran past the cap: the claim must have ended there.
		if lastLease(cl) > capAt {
			continue // reported above
		}
		reached++
		if nx := next(all, cl); nx == nil {
			problems = append(problems, fmt.Sprintf("%s's handler of %s hung past the cap, and nobody took it again",
				cl.worker, cl.key))
		}
	}
	exercised := reached > 0 || len(problems) > 0
	j.AddExercised(checkCap, exercised, "no handler ran past the cap", problems,
		fmt.Sprintf("%s hung past the cap %s: lost, taken again", report.Plural(reached, "handler"), clock.Millis(v.Cap)))
}
