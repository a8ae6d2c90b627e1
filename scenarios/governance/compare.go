package governance

import (
	"fmt"
	"strconv"

	"outboxlab/core/clock"
	"outboxlab/core/emission"
	"outboxlab/core/report"
)

// outcome is what one entry ended as, in words two runs can be compared by.
func outcome(run *driveRun, e emission.Entry) string {
	return fmt.Sprintf("%s rc=%d reason=%s/%s next=%s err=%s delivered=%s dead=%s calls=%d", e.Status, e.RetryCount,
		e.ReasonCode, e.ReasonMessage, stampOrDash(e.NextRetryAt), e.LastErrorCode, stampOrDash(e.DeliveredAt),
		stampOrDash(e.DeadLetteredAt), run.emitter.CallsFor(e.Key))
}

// transitions renders a run's transition log without who wrote it, so the
// two drain modes can be compared line by line.
func transitions(run *driveRun) []string {
	keys := map[int64]string{}
	for _, e := range run.entries {
		keys[e.ID] = e.Key
	}
	out := make([]string, len(run.log))
	for i, l := range run.log {
		out[i] = fmt.Sprintf("%s %s %s→%s rc=%d %s applied=%v", clock.DayStamp(l.At), keys[l.EntryID], l.From, l.To, l.RetryCount, l.ReasonCode, l.Applied)
	}
	return out
}

// compareModes counts the entries whose outcome is the same in both runs and
// the transitions that match line for line.
func compareModes(a, b *driveRun) (sameEntries, entries, sameTransitions, transitionsA, transitionsB int) {
	for i, e := range a.entries {
		if i < len(b.entries) && outcome(a, e) == outcome(b, b.entries[i]) {
			sameEntries++
		}
	}
	ta, tb := transitions(a), transitions(b)
	for i := range ta {
		if i < len(tb) && ta[i] == tb[i] {
			sameTransitions++
		}
	}
	return sameEntries, max(len(a.entries), len(b.entries)), sameTransitions, len(ta), len(tb)
}

// checkSameOutcome records the check that both drain modes ended the same way.
func checkSameOutcome(r *report.Report, store, claim *driveRun) {
	same, n, sameT, ta, tb := compareModes(store, claim)
	r.Check("same outcome in both drain modes", same == n && sameT == ta && ta == tb && n > 0,
		fmt.Sprintf("%d/%d entries identical (status, RetryCount, reason, next retry, calls); %d/%d transitions identical (store %d, claim %d)",
			same, n, sameT, max(ta, tb), ta, tb))
}

// writeSideBySide prints each entry's outcome in both drain modes: one
// value where the two agree, "store / claim" where they differ.
func writeSideBySide(r *report.Report, store, claim *driveRun) {
	both := func(a, b string) string {
		if a == b {
			return a
		}
		return a + " / " + b
	}
	rows := make([][]string, 0, len(store.entries))
	for i, s := range store.entries {
		c := claim.entries[i]
		status := func(e emission.Entry) string {
			if e.NextRetryAt.IsZero() {
				return string(e.Status)
			}
			return fmt.Sprintf("%s, due %s", e.Status, clock.DayStamp(e.NextRetryAt))
		}
		rows = append(rows, []string{s.Key, both(status(s), status(c)), both(strconv.Itoa(s.RetryCount), strconv.Itoa(c.RetryCount)),
			fmt.Sprintf("%d / %d", store.emitter.CallsFor(s.Key), claim.emitter.CallsFor(c.Key)),
			both(report.Dash(s.ReasonCode), report.Dash(c.ReasonCode)), ownerText(c)})
	}
	r.Table([]string{"Entry", "Status", "RetryCount", "Calls s/c", "ReasonCode", "Token"}, rows)
	r.Line("(s/c: store drain / claim drain; Token: the claim drain's last fencing token, its claim cleared)")
}

func ownerText(e emission.Entry) string {
	if e.ClaimOwner == "" {
		return strconv.FormatInt(e.ClaimToken, 10)
	}
	return fmt.Sprintf("%d, held by %s until %s", e.ClaimToken, e.ClaimOwner, clock.DayStamp(e.ClaimLeaseUntil))
}
