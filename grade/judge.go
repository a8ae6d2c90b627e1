package grade

import (
	"fmt"

	"outboxlab/core/report"
	"regexp"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/provider"
)

// check is one judged property of a variation.
type check struct {
	name   string
	passed bool
	detail string
}

// judge collects a variation's checks. Each check reads the truth: the rows,
// the change log the triggers wrote, the provider's ledger and the calls the
// lab answered, never what the worker says of itself.
type judge struct {
	g      *graded
	checks []check
}

func (j *judge) add(name string, passed bool, detail string) {
	j.checks = append(j.checks, check{name: name, passed: passed, detail: detail})
}

// addExercised is add for a check that needs something to have happened: a
// check that was not exercised has failed.
func (j *judge) addExercised(name string, exercised bool, what string, problems []string, ok string) {
	switch {
	case len(problems) > 0:
		j.add(name, false, firstOf(problems))
	case !exercised:
		j.add(name, false, "not exercised: "+what)
	default:
		j.add(name, true, ok)
	}
}

// firstOf is the first problem and how many more there were.
func firstOf(problems []string) string {
	if len(problems) == 1 {
		return problems[0]
	}
	return fmt.Sprintf("%s (and %d more)", problems[0], len(problems)-1)
}

// turnAt is the scenario time of the turn a change happened in.
func (j *judge) turnAt(c change) (time.Time, bool) {
	if c.Turn < 0 || c.Turn >= len(j.g.r.turns) {
		return time.Time{}, false
	}
	return j.g.r.turns[c.Turn].at, true
}

func (j *judge) turnWorker(c change) string {
	if c.Turn < 0 || c.Turn >= len(j.g.r.turns) {
		return ""
	}
	return j.g.r.turns[c.Turn].worker
}

// messageChanges are the change log's OutboxMessages updates.
func (j *judge) messageChanges() []change {
	var out []change
	for _, c := range j.g.r.changes {
		if c.Table == "OutboxMessages" && c.Op == "UPDATE" {
			out = append(out, c)
		}
	}
	return out
}

// isClaim reports whether an update is a claim: the row moved to Processing,
// or a Processing row got a new owner or token.
func isClaim(c change) bool {
	status, _ := c.value("Status")
	old, _ := c.old("Status")
	return status == "Processing" && (old != "Processing" || c.changedCol("ClaimToken") || c.changedCol("LockedBy"))
}

// statusChecks are the ledger's status checks for key.
func (j *judge) statusChecks(key string) []provider.Call {
	var out []provider.Call
	for _, c := range j.g.calls {
		if c.Op == provider.OpStatusCheck && c.Key == key {
			out = append(out, c)
		}
	}
	return out
}

func (j *judge) message(key string) row {
	for _, m := range j.g.msgs {
		if m.get("MessageKey") == key {
			return m
		}
	}
	return nil
}

func (j *judge) payment(key string) row {
	for _, p := range j.g.pays {
		if p.get("PaymentKey") == key {
			return p
		}
	}
	return nil
}

var isoText = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

// parseISO reads the lab's time text; ok is false for any other text.
func parseISO(s string) (time.Time, bool) {
	if !isoText.MatchString(s) {
		return time.Time{}, false
	}
	t, err := time.Parse(clock.ISOLayout, s)
	return t, err == nil
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// protocol adds the protocol: checks every Day has (docs/grade-protocol.md section 6).
func (j *judge) protocol() {
	r := j.g.r
	var helloes int
	for _, t := range r.turns {
		if t.call == "hello" {
			helloes++
		}
	}
	j.addExercised("protocol: hello is the first call",
		helloes >= len(r.slots), "a worker never said hello",
		r.viol[ruleHelloFirst],
		fmt.Sprintf("%s, each first", count(helloes, "hello")))

	var overlap, malformed []string
	for _, status := range []int{400, 401, 404, 409} {
		for _, msg := range r.srv.refused(status) {
			if status == 409 && strings.Contains(msg, "outstanding") {
				overlap = append(overlap, msg)
			} else if status != 409 {
				malformed = append(malformed, fmt.Sprintf("%d %s", status, msg))
			}
		}
	}
	j.addExercised("protocol: one call at a time", r.nCalls > 0, "no call was made", overlap,
		fmt.Sprintf("%s, never two at once", count(r.nCalls, "call")))
	j.addExercised("protocol: every call well-formed and authorised", r.nCalls > 0, "no call was made",
		malformed, "no 400, 401 or 404")
	j.addExercised("protocol: no database transaction open across a lab call", r.nCalls > 0,
		"no call was made", r.viol[ruleNoTx], "checked at every call")
	j.addExercised("protocol: every row change in its worker's own turn", len(r.changes) > 0,
		"no row changed", r.viol[ruleOwnTurn], fmt.Sprintf("%s, each in a turn", count(len(r.changes), "row change")))
	j.add("protocol: Lab tables, triggers and the Day's tables intact", len(r.viol[ruleSchema]) == 0,
		orText(firstOf0(r.viol[ruleSchema]), "as the lab made them"))
	j.timestamps()
	var done int
	for _, s := range r.slots {
		if s.done {
			done++
		}
	}
	limits := r.viol[ruleLimits]
	if r.ended != "" && len(limits) == 0 {
		limits = []string{"the run stopped at " + r.ended}
	}
	j.addExercised("protocol: done and exit 0 within the run's limits", done > 0, "no worker said done",
		limits, fmt.Sprintf("%d of %d workers said done and exited 0", done, len(r.slots)))
	var provCalls int
	for _, c := range j.g.calls {
		if c.Op == provider.OpStatusCheck {
			provCalls++
		}
	}
	j.addExercised("protocol: provider asked only about messages the worker owned", provCalls > 0,
		"no provider call was made", r.viol[ruleOwned], fmt.Sprintf("%s, each owned", count(provCalls, "status check")))
}

func firstOf0(problems []string) string {
	if len(problems) == 0 {
		return ""
	}
	return firstOf(problems)
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func count(n int, noun string) string { return report.Plural(n, noun) }

// timeColumns are the columns that hold a time, and what each must equal.
var timeColumns = map[string]map[string]bool{
	"OutboxMessages": {"nextattemptutc": true, "lockeduntilutc": true, "processedatutc": true,
		"deadletteredatutc": true, "createdatutc": true},
	"Payments": {"updatedatutc": true, "createdatutc": true},
}

// timestamps checks every time a worker wrote: the lab's text, equal to the
// turn's now (or now + lease for a lease; a NextAttemptUtc is judged by the
// backoff check).
func (j *judge) timestamps() {
	var problems []string
	written := 0
	for _, c := range j.g.r.changes {
		if c.Op != "UPDATE" {
			continue
		}
		at, ok := j.turnAt(c)
		if !ok {
			continue
		}
		for col := range timeColumns[c.Table] {
			v, set := c.value(col)
			if !set || !c.changedCol(col) {
				continue
			}
			written++
			if _, ok := parseISO(v); !ok {
				problems = append(problems, fmt.Sprintf("%s %d %s = %q, not like 2026-01-16T09:00:00.201Z",
					c.Table, c.RowID, col, clip(v, 32)))
				continue
			}
			want := clock.ISO(at)
			switch col {
			case "nextattemptutc":
				continue
			case "lockeduntilutc":
				want = clock.ISO(at.Add(j.g.v.Lease))
			case "createdatutc":
				want = "(unchanged)"
			}
			if v != want {
				problems = append(problems, fmt.Sprintf("%s %d %s = %s at %s, want %s",
					c.Table, c.RowID, col, v, clock.Stamp(at), want))
			}
		}
	}
	j.addExercised("protocol: every timestamp written is the lab's clock, in its text", written > 0,
		"no time was written", problems, fmt.Sprintf("%s, each the lab's", count(written, "time")))
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
