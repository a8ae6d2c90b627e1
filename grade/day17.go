package grade

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/backoff"
	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/provider"
	"outboxlab/core/worker"
	"outboxlab/scenarios/wassal"
)

// Day 17 (docs/grade-protocol.md section 7.3): the student's redrive, run
// once on Day 16's end (built by the lab's own code) with the lab's own
// Day 16 worker draining what it releases while it sleeps.

// redriveAfter is when the redrive starts: half an hour after Day 16 began.
const redriveAfter = 30 * time.Minute

func init() {
	days = append(days, &Day{
		ID: "session-17", Aliases: []string{"day17"}, EnvDay: "17", Number: 17,
		Title:   "Day 17, an audited redrive",
		Summary: "your redrive on Day 16's end: authorised, audited, counters kept, in batches, verified",
		defaults: variation{
			Payments: 6, Poison: []string{"PAY-003"}, More: []string{"PAY-002", "PAY-004"}, Declined: "PAY-005",
			MaxAttempts: 3, BaseBackoff: 200 * time.Millisecond, Lease: claim.DefaultLease, Batch: 10, Workers: 1,
			Fixed: true, Approver: "ops-oncall", Reason: "INC-4711: provider status API restored",
			RedriveBatch: 2, RedriveEvery: time.Second, RedriveMore: 1,
		},
		vary:     varyDay17,
		design:   17,
		role:     "redrive",
		env:      day17Env,
		setup:    setupDay17,
		judge:    judgeDay17,
		describe: describeDay17,
	})
}

func varyDay17(rng *rand.Rand, label string) variation {
	v := variation{Label: label, Workers: 1, Batch: 10, Lease: claim.DefaultLease, BaseBackoff: 200 * time.Millisecond}
	v.Payments = 5 + rng.IntN(5)
	v.MaxAttempts = 2 + rng.IntN(3)
	keys := rng.Perm(v.Payments)
	v.Poison = []string{wassal.PaymentKey(keys[0] + 1)}
	v.Declined = wassal.PaymentKey(keys[1] + 1)
	for _, k := range keys[2 : 3+rng.IntN(3)] {
		v.More = append(v.More, wassal.PaymentKey(k+1))
	}
	slices.Sort(v.More)
	v.Fixed = rng.IntN(3) != 0
	v.Approver = []string{"alice", "ops-oncall", "bob.s"}[rng.IntN(3)]
	v.Reason = []string{"INC-9: status API back", "CHG-2201 provider fixed", "ticket 77: replay"}[rng.IntN(3)]
	v.RedriveBatch = 1 + rng.IntN(3)
	v.RedriveEvery = []time.Duration{500, 1000, 2000}[rng.IntN(3)] * time.Millisecond
	v.RedriveMore = 1 + rng.IntN(2)
	return v
}

func day17Env(v variation) [][2]string {
	approver := v.Approver
	if v.Refusal {
		approver = ""
	}
	return [][2]string{
		{"APPROVER", approver}, {"REASON", v.Reason},
		{"REDRIVE_BATCH", strconv.Itoa(v.RedriveBatch)},
		{"REDRIVE_INTERVAL_MS", strconv.FormatInt(v.RedriveEvery.Milliseconds(), 10)},
		{"REDRIVE_ATTEMPTS", strconv.Itoa(v.RedriveMore)},
	}
}

func describeDay17(v variation) []string {
	fixed := "fixed before the redrive: the poison declines, the others pay"
	if !v.Fixed {
		fixed = "still broken: every dead letter's status check fails again"
	}
	return []string{
		fmt.Sprintf("Day 16    %d payments drained by the lab's worker (MaxAttempts %d): %s dead-lettered",
			v.Payments, v.MaxAttempts, strings.Join(append(append([]string{}, v.Poison...), v.More...), ",")),
		"Provider  " + fixed,
		fmt.Sprintf("Redrive   at +30 min · approver %q · reason %q", v.Approver, v.Reason),
		fmt.Sprintf("          batches of %d, %s apart, %s more each; first without an approver",
			v.RedriveBatch, clock.Millis(v.RedriveEvery), count(v.RedriveMore, "attempt")),
	}
}

// setupDay17 builds Day 16's end with the lab's own worker, moves the clock
// to the redrive's time and fixes the provider (or not).
func setupDay17(ctx context.Context, r *run) error {
	if _, err := r.db.ExecContext(ctx, r.ddl(wassal.RedrivesSchema())); err != nil {
		return fmt.Errorf("create Redrives: %w", err)
	}
	for _, k := range r.v.More {
		r.prov.Script(k, provider.Rule{FailFirst: provider.FailForever})
	}
	w := &worker.Worker{ID: labID, Store: r.store, Clock: r.clk, Handler: wassal.ConfirmHandler(r.prov),
		Policy: backoff.Policy{Backoff: backoff.Backoff{Base: r.v.BaseBackoff}, DeadLetter: true},
		Lease:  r.v.Lease, Batch: r.v.Batch}
	for step := 0; ; step++ {
		if step > 1000 {
			return fmt.Errorf("Day 16's drain did not settle")
		}
		res, err := w.Step(ctx)
		if err != nil {
			return fmt.Errorf("Day 16's drain: %w", err)
		}
		if res.Idle {
			break
		}
	}
	r.clk.AdvanceTo(clock.Start.Add(redriveAfter))
	if r.v.Fixed {
		for _, k := range r.v.Poison {
			r.prov.Script(k, provider.Rule{Outcome: provider.Declined})
		}
		for _, k := range r.v.More {
			r.prov.Script(k, provider.Rule{Outcome: provider.Paid})
		}
	}
	r.labWorker = &labWorker{w: w}
	r.extraLogged = []string{"Redrives", "AuditLog"}
	return nil
}

// refusalText says what the run without an approver saw.
func (r *run) refusalText() string {
	calls := 0
	for _, t := range r.turns {
		if t.worker != labID {
			calls++
		}
	}
	return fmt.Sprintf("%s, %s, %s", count(len(r.changes), "row change"), count(calls, "answered call"),
		orText(r.ended, "exited"))
}

func judgeDay17(j *judge) {
	j.refused()
	rel := j.releases()
	j.audited(rel)
	j.countersKept(rel)
	j.redrivesRows(rel)
	j.batched(rel)
	if j.g.v.Fixed {
		j.verifiedBeforeClosing(rel)
	} else {
		j.haltedAfterFirstBatch(rel)
	}
	j.drained()
	j.noRowLost()
	j.providerIDs()
	j.noCharges()
}

// byRedrive reports whether c happened in a turn of the redrive process.
func (j *judge) byRedrive(c change) bool {
	w := j.turnWorker(c)
	return w != "" && w != labID
}

// releases are the redrive's DeadLettered → Pending updates, in order.
func (j *judge) releases() []change {
	var out []change
	for _, c := range j.messageChanges() {
		old, _ := c.old("Status")
		now, _ := c.value("Status")
		if old == "DeadLettered" && now == "Pending" && j.byRedrive(c) {
			out = append(out, c)
		}
	}
	return out
}

func (j *judge) refused() {
	ref := j.g.r.refusal
	var problems []string
	if ref == nil {
		problems = append(problems, "the run without an approver did not happen")
	} else {
		if len(ref.changes) > 0 {
			problems = append(problems, fmt.Sprintf("without an approver it changed %s (%s)",
				count(len(ref.changes), "row"), describeChange(ref.changes[0])))
		}
		if len(ref.statusBy) > 0 || len(ref.viol[ruleLimits]) > 0 && ref.ended != "" {
			problems = append(problems, "without an approver it went on: "+ref.refusalText())
		}
	}
	j.addExercised("the redrive refuses to run without an approver (no row, no provider call)", ref != nil,
		"not run", problems, "refused: "+orText(refText(ref), "exited"))
}

func refText(r *run) string {
	if r == nil {
		return ""
	}
	return r.refusalText()
}

// audited: one AuditLog row written by the redrive before its first release
// names the approver, the reason and every entry it released.
func (j *judge) audited(rel []change) {
	v := j.g.v
	var problems []string
	var found bool
	for _, c := range j.g.r.changes {
		if c.Table != "AuditLog" || c.Op != "INSERT" || !j.byRedrive(c) {
			continue
		}
		text := c.New["actor"] + " " + c.New["action"] + " " + c.New["detail"]
		if !strings.Contains(text, v.Approver) || !strings.Contains(text, v.Reason) {
			continue
		}
		missing := ""
		for _, r := range rel {
			if !strings.Contains(text, r.New["messagekey"]) {
				missing = r.New["messagekey"]
			}
		}
		if missing != "" {
			problems = append(problems, "the audit row does not name "+missing)
		}
		if len(rel) > 0 && c.Seq > rel[0].Seq {
			problems = append(problems, "the audit row was written after the first release")
		}
		found = true
		break
	}
	if !found && len(rel) > 0 {
		problems = append(problems, "no AuditLog row names the approver "+v.Approver+" and the reason")
	}
	j.addExercised("one AuditLog row names the approver, the reason and every entry, before any release",
		len(rel) > 0, "nothing was released", problems, "audited before the first release")
}

func (j *judge) countersKept(rel []change) {
	var problems []string
	for _, c := range rel {
		before, after := atoi(c.Old["attemptcount"]), atoi(c.New["attemptcount"])
		if after != before {
			problems = append(problems, fmt.Sprintf("%s released with AttemptCount %d→%d: counters are kept",
				c.New["messagekey"], before, after))
		}
		if m := atoi(c.New["maxattempts"]); m != before+j.g.v.RedriveMore {
			problems = append(problems, fmt.Sprintf("%s released with MaxAttempts %d, want AttemptCount %d + %d",
				c.New["messagekey"], m, before, j.g.v.RedriveMore))
		}
	}
	for _, c := range j.messageChanges() {
		if atoi(c.New["attemptcount"]) < atoi(c.Old["attemptcount"]) {
			problems = append(problems, fmt.Sprintf("message %d AttemptCount lowered %s→%s", c.RowID,
				c.Old["attemptcount"], c.New["attemptcount"]))
		}
	}
	j.addExercised("counters kept: AttemptCount never reset, MaxAttempts = AttemptCount + REDRIVE_ATTEMPTS",
		len(rel) > 0, "nothing was released", problems, count(len(rel), "entry")+" released, counters kept")
}

func (j *judge) redrivesRows(rel []change) {
	v := j.g.v
	var problems []string
	inserts := map[string]change{}
	for _, c := range j.g.r.changes {
		if c.Table == "Redrives" && c.Op == "INSERT" {
			inserts[c.New["messageid"]] = c
		}
	}
	for _, c := range rel {
		id := strconv.FormatInt(c.RowID, 10)
		rd, ok := inserts[id]
		key := c.New["messagekey"]
		switch {
		case !ok:
			problems = append(problems, key+" released with no Redrives row")
		case rd.New["originalattemptcount"] != c.Old["attemptcount"] ||
			rd.New["originallasterror"] != c.Old["lasterror"] ||
			rd.New["originaldeadletteredatutc"] != c.Old["deadletteredatutc"]:
			problems = append(problems, key+"'s Redrives row does not keep its original AttemptCount, "+
				"LastError and DeadLetteredAtUtc")
		case rd.New["approver"] != v.Approver || rd.New["reason"] != v.Reason:
			problems = append(problems, key+"'s Redrives row names another approver or reason")
		}
	}
	j.addExercised("a Redrives row per released entry keeps its original counters, error and time",
		len(rel) > 0, "nothing was released", problems, count(len(rel), "Redrives row"))
}

// batched: the releases come in batches of at most REDRIVE_BATCH, at least
// REDRIVE_INTERVAL apart in scenario time.
func (j *judge) batched(rel []change) {
	v := j.g.v
	var problems []string
	var times []time.Time
	sizes := map[int]int{}
	for _, c := range rel {
		if sizes[c.Turn] == 0 {
			at, _ := j.turnAt(c)
			times = append(times, at)
		}
		sizes[c.Turn]++
	}
	for turn, n := range sizes {
		if n > v.RedriveBatch {
			at := j.g.r.turns[turn].at
			problems = append(problems, fmt.Sprintf("%d entries released at %s, batches of %d", n, clock.Stamp(at), v.RedriveBatch))
		}
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < v.RedriveEvery {
			problems = append(problems, fmt.Sprintf("batches at %s and %s: %s apart, want %s",
				clock.Stamp(times[i-1]), clock.Stamp(times[i]), clock.Millis(gap), clock.Millis(v.RedriveEvery)))
		}
	}
	total := len(v.Poison) + len(v.More)
	j.addExercised(fmt.Sprintf("released in batches of at most %d, at least %s apart", v.RedriveBatch,
		clock.Millis(v.RedriveEvery)), len(rel) > 0 && (total <= v.RedriveBatch || len(times) > 1 || !v.Fixed),
		"no second batch", problems, fmt.Sprintf("%s in %s", count(len(rel), "entry"), count(len(times), "batch")))
}

// verifiedBeforeClosing: every Redrives row Closed, after a status check by
// the redrive made once its message was Processed, with that check's id.
func (j *judge) verifiedBeforeClosing(rel []change) {
	rows, _ := readRows(j.g.r.ctx, j.g.r.db, "Redrives")
	var problems []string
	processedSeq := map[string]int64{}
	closedSeq := map[string]int64{}
	for _, c := range j.g.r.changes {
		if c.Table == "OutboxMessages" && c.New["status"] == "Processed" && c.changedCol("Status") {
			processedSeq[c.New["messagekey"]] = c.Seq
		}
		if c.Table == "Redrives" && c.New["outcome"] == "Closed" && c.changedCol("Outcome") {
			closedSeq[c.New["messagekey"]] = c.Seq
		}
	}
	for _, rd := range rows {
		key := rd.get("MessageKey")
		if rd.get("Outcome") != "Closed" {
			problems = append(problems, fmt.Sprintf("%s's redrive is %s, not Closed", key, rd.get("Outcome")))
			continue
		}
		var verified *statusCall
		for i, sc := range j.g.r.statusBy[key] {
			if sc.seq >= processedSeq[key] && sc.seq < closedSeq[key] && sc.worker != labID {
				verified = &j.g.r.statusBy[key][i]
			}
		}
		switch {
		case verified == nil:
			problems = append(problems, key+" closed without a status check after it was processed")
		case rd.get("VerifiedTransactionId") != verified.tx:
			problems = append(problems, fmt.Sprintf("%s closed with %s, the provider said %s", key,
				orDash(rd.get("VerifiedTransactionId")), orDash(verified.tx)))
		case !rd.has("ClosedAtUtc"):
			problems = append(problems, key+" closed with no ClosedAtUtc")
		}
	}
	j.addExercised("every redriven entry verified with the provider before its Redrives row was Closed",
		len(rows) > 0, "no Redrives row", problems, count(len(rows), "entry")+" verified, then closed")
}

// haltedAfterFirstBatch: with the provider still broken, the first batch
// comes back dead-lettered and nothing more is released.
func (j *judge) haltedAfterFirstBatch(rel []change) {
	v := j.g.v
	rows, _ := readRows(j.g.r.ctx, j.g.r.db, "Redrives")
	total := len(v.Poison) + len(v.More)
	want := min(v.RedriveBatch, total)
	var problems []string
	if len(rel) != want {
		problems = append(problems, fmt.Sprintf("%s released, want the first batch only (%d)", count(len(rel), "entry"), want))
	}
	for _, rd := range rows {
		if rd.get("Outcome") != "DeadLetteredAgain" {
			problems = append(problems, fmt.Sprintf("%s's redrive is %s, want DeadLetteredAgain", rd.get("MessageKey"), rd.get("Outcome")))
		}
	}
	parked := 0
	for _, m := range j.g.msgs {
		if m.get("Status") == "DeadLettered" {
			parked++
		}
	}
	if parked != total {
		problems = append(problems, fmt.Sprintf("%d dead letters at the end, want all %d parked", parked, total))
	}
	j.addExercised("with the provider still broken: halted after the first batch, the rest left parked",
		len(rel) > 0, "nothing was released", problems, fmt.Sprintf("%d released, dead-lettered again, %d parked", want, total))
}
