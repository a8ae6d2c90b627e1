package wassal

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"outboxlab/core/report"
	"outboxlab/internal/pgtest"
	"outboxlab/scenarios"
	"outboxlab/scenarios/scenariotest"
)

func TestSession17Validate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		wantErr string
	}{
		{nil, ""},
		{[]string{"--approver", "alice", "--reason", "INC-1: fixed", "--provider-fixed=false"}, ""},
		{[]string{"--approver", ""}, "--approver is required: a redrive needs a named approver"},
		{[]string{"--approver", "   "}, "--approver is required"},
		{[]string{"--reason", ""}, "--reason is required: a redrive needs a recorded reason"},
		{[]string{"--poison-key", "none"}, ""}, // no dead letters: nothing to redrive, and the report says so
		{[]string{"--poison-key", "PAY-008"}, `--poison-key "PAY-008" is not a seeded payment (PAY-001..PAY-006)`},
		{[]string{"--declined-key", "PAY-003"}, `--declined-key "PAY-003" is also a poison key`},
		{[]string{"--more-dead-letters", "PAY-002,PAY-004"}, ""},
		{[]string{"--more-dead-letters", "PAY-003"}, `--more-dead-letters "PAY-003" is already the poison key`},
		{[]string{"--more-dead-letters", "PAY-005"}, `--more-dead-letters "PAY-005" is the declined key`},
		{[]string{"--more-dead-letters", "PAY-009"}, `--more-dead-letters "PAY-009" is not a seeded payment (PAY-001..PAY-006)`},
		{[]string{"--max-attempts", "0"}, "--max-attempts must be between 1 and 20, got 0"},
		{[]string{"--base-backoff", "-1ms"}, "--base-backoff must be between 0s and 5s, got -1ms"},
		{[]string{"--redrive-after", "0s"}, "--redrive-after must be between 1ms and 24h, got 0s"},
		{[]string{"--batch", "0"}, "--batch must be between 1 and 100, got 0"},
		{[]string{"--batch-interval", "-1s"}, "--batch-interval must be between 0s and 24h, got -1s"},
		{[]string{"--redrive-attempts", "0"}, "--redrive-attempts must be between 1 and 10, got 0"},
		{[]string{"--provider-capacity", "0"}, "--provider-capacity must be between 1 and 1000, got 0"},
		{[]string{"--provider-window", "0s"}, "--provider-window must be between 1ms and 24h, got 0s"},
		{[]string{"--provider-capacity", "1", "--provider-window", "24h", "--keep-counters=false"}, ""},
		{[]string{"--max-attempts", "20", "--redrive-attempts", "10", "--base-backoff", "0s"}, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			for _, name := range []string{session17Before, session17After} {
				err := scenariotest.Bind(t, name, tt.args...).Validate()
				switch {
				case tt.wantErr == "" && err != nil:
					t.Errorf("%s: Validate() = %v, want nil", name, err)
				case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
					t.Errorf("%s: Validate() = %v, want an error containing %q", name, err, tt.wantErr)
				}
			}
		})
	}
}

func driveSession17(t *testing.T, audited bool, args ...string) (*session17Run, session17Metrics) {
	t.Helper()
	o, run := driveDesign(t, (*session17Options).drive, session17After, audited, args...)
	return run, o.metrics(run)
}

func TestSession17RedriveMetricsFollowTheFlags(t *testing.T) {
	t.Parallel()
	more := []string{"--more-dead-letters", "PAY-002,PAY-004"}
	tests := []struct {
		name                  string
		audited               bool
		args                  []string
		wantReleased          string
		wantParked            string
		wantAttempts, wantBad int // worker attempts during the redrive, failed ones
		wantProcessed         int
		wantDeadAgain         int
		wantUndercounted      string
		wantVerified          int
		wantBatches           int
		wantAudit             int // redrive entries in the audit log
	}{
		// The defaults: Day 16 AFTER's end, one dead letter, PAY-003.
		{"blind, still broken", false, []string{"--provider-fixed=false"}, "PAY-003", "none", 3, 3, 0, 1, "PAY-003", 0, 0, 0},
		{"blind, fixed", false, nil, "PAY-003", "none", 1, 0, 1, 0, "PAY-003", 0, 0, 0},
		{"audited, fixed", true, nil, "PAY-003", "none", 1, 0, 1, 0, "none", 1, 1, 3},
		{"audited, still broken", true, []string{"--provider-fixed=false"}, "PAY-003", "none", 1, 1, 0, 1, "none", 0, 1, 4},
		// More dead letters, for the batches.
		{"blind, three dead letters", false, []string{"--more-dead-letters", "PAY-002,PAY-004", "--provider-fixed=false"},
			"PAY-002, PAY-003, PAY-004", "none", 9, 9, 0, 3, "PAY-002, PAY-003, PAY-004", 0, 0, 0},
		{"audited, three dead letters", true, more, "PAY-002, PAY-003, PAY-004", "none", 3, 0, 3, 0, "none", 3, 2, 7},
		{"audited, three, still broken", true, append(more, "--provider-fixed=false"), "PAY-002, PAY-003", "PAY-004", 2, 2, 0, 2, "none", 0, 1, 6},
		{"audited, three, one at a time", true, append(more, "--batch", "1"), "PAY-002, PAY-003, PAY-004", "none", 3, 0, 3, 0, "none", 3, 3, 7},
		{"audited, three, broken, three attempts each", true, append(more, "--provider-fixed=false", "--redrive-attempts", "3", "--batch", "3"),
			"PAY-002, PAY-003, PAY-004", "none", 9, 9, 0, 3, "none", 0, 1, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, f := driveSession17(t, tt.audited, tt.args...)
			if got := keysText(f.released); got != tt.wantReleased {
				t.Errorf("released %s, want %s", got, tt.wantReleased)
			}
			if got := keysText(f.notReleased); got != tt.wantParked {
				t.Errorf("left parked %s, want %s", got, tt.wantParked)
			}
			if f.redriveAttempts != tt.wantAttempts || f.failed != tt.wantBad {
				t.Errorf("%d attempts during the redrive (%d failed), want %d (%d)", f.redriveAttempts, f.failed, tt.wantAttempts, tt.wantBad)
			}
			if len(f.processed) != tt.wantProcessed || len(f.deadAgain) != tt.wantDeadAgain {
				t.Errorf("%d processed, %d dead-lettered again; want %d, %d", len(f.processed), len(f.deadAgain), tt.wantProcessed, tt.wantDeadAgain)
			}
			if got := keysText(f.undercounted); got != tt.wantUndercounted {
				t.Errorf("rows undercounting their attempts: %s, want %s", got, tt.wantUndercounted)
			}
			if f.verifyCalls != tt.wantVerified || f.closed != tt.wantVerified || f.closedUnverified != 0 {
				t.Errorf("%d verification checks, %d closed (%d unverified); want %d, %d, 0", f.verifyCalls, f.closed, f.closedUnverified, tt.wantVerified, tt.wantVerified)
			}
			if f.batches != tt.wantBatches || f.redriveAudit != tt.wantAudit {
				t.Errorf("%d batches, %d redrive audit entries; want %d, %d", f.batches, f.redriveAudit, tt.wantBatches, tt.wantAudit)
			}
		})
	}
}

// A redrive while the cause is not fixed dead-letters again and loses nothing:
// the row counts every attempt, and its Redrives row keeps the first terminal state.
func TestSession17FailedRedriveKeepsHistory(t *testing.T) {
	t.Parallel()
	run, f := driveSession17(t, true, "--provider-fixed=false", "--more-dead-letters", "PAY-002,PAY-004")
	m := messageOf(run.ledger, "PAY-002")
	if m.Status != "DeadLettered" || m.AttemptCount != 4 || m.MaxAttempts != 4 || m.ClaimToken != 4 {
		t.Errorf("PAY-002 = %s, attempts %d/%d, token %d; want DeadLettered, 4/4, token 4", m.Status, m.AttemptCount, m.MaxAttempts, m.ClaimToken)
	}
	if len(run.redrives) != 2 {
		t.Fatalf("%d Redrives rows, want 2 (batch 1 only)", len(run.redrives))
	}
	rd := run.redrives[0]
	if rd.key != "PAY-002" || rd.generation != 1 || rd.origAttempts != 3 || rd.origDeadAt != "2026-01-16T09:00:00.602Z" ||
		!strings.Contains(rd.origLastError, "provider unavailable") || rd.outcome != outcomeDeadLetteredAgain || rd.approver != "ops-oncall" {
		t.Errorf("Redrives row %+v: want PAY-002, generation 1, original 3 attempts at 09:00:00.602Z with its error, DeadLetteredAgain, by ops-oncall", rd)
	}
	if f.historyKept != 2 {
		t.Errorf("history kept on %d rows, want 2", f.historyKept)
	}
	last := run.audit[len(run.audit)-1]
	if last.Action != "redrive-halted" || !strings.Contains(last.Detail, "left parked: PAY-004") {
		t.Errorf("last audit entry %+v, want the halt naming PAY-004 as left parked", last)
	}
}

func TestSession17ChecksAndVerdicts(t *testing.T) {
	t.Parallel()
	rep := scenariotest.Run(t, session17After, "--approver", "alice", "--reason", "INC-9: fixed upstream", "--more-dead-letters", "PAY-002,PAY-004")
	wantChecks(t, rep, map[string]string{
		"redrive authorised":                          `PASS approver alice, reason "INC-9: fixed upstream", 1 approval record`,
		"bounded batches":                             "PASS the provider takes 4 status checks per 1s; 0 of 6 throttled, at most 4 in a window; 2 batches",
		"incident closed: every dead letter resolved": "PASS 3/3 closed; 0 dead again, 0 parked, 0 pending",
	})
	run, _ := driveSession17(t, true, "--approver", "alice", "--reason", "INC-9: fixed upstream", "--more-dead-letters", "PAY-002,PAY-004")
	approval := false
	for _, e := range run.audit {
		approval = approval || e.Actor == "alice" && e.Action == actionApproved &&
			strings.Contains(e.Detail, "generation 1 of PAY-002, PAY-003, PAY-004; reason: INC-9: fixed upstream;")
	}
	if !approval {
		t.Error("the audit log has no approval by alice naming the entries and the reason")
	}

	// A blind reset loses the history and leaves no record whether the
	// provider is fixed (the default) or not; still broken, it also restarts
	// the poison loop, and the verdict names all three.
	rep = scenariotest.Run(t, session17Before)
	wantChecks(t, rep, map[string]string{
		"the rows' failure history is gone": "PASS AttemptCount undercounts on PAY-003; first DeadLetteredAtUtc lost on PAY-003",
		"no record of who or why":           "PASS 0 redrive entries in the audit log",
	})
	if got, want := rep.Result().Verdict, "[REPRODUCED 🧪] A BLIND REDRIVE — THE HISTORY GONE, NO RECORD OF WHO OR WHY"; got != want {
		t.Errorf("blind, fixed: verdict %q, want %q", got, want)
	}
	if names := checkNames(rep); slices.Contains(names, "poison loop started again") {
		t.Errorf("blind, fixed: checks %q include the poison loop, which a fixed provider cannot restart", names)
	}
	rep = scenariotest.Run(t, session17Before, "--provider-fixed=false")
	wantChecks(t, rep, map[string]string{
		"poison loop started again": "PASS 3 failed attempts after the reset; 1 of 1 dead-lettered again",
	})
	if got, want := rep.Result().Verdict, "[REPRODUCED 🧪] A BLIND REDRIVE — THE POISON LOOP AGAIN, THE HISTORY GONE, NO RECORD"; got != want {
		t.Errorf("blind, broken: verdict %q, want %q", got, want)
	}
}

// With the provider still broken the audited redrive's mechanism holds: it
// halts after the first batch, the history kept and the rest parked, and it
// passes with a verdict that says the incident stays open.
func TestSession17AuditedRedriveHaltsWhileBroken(t *testing.T) {
	t.Parallel()
	rep := scenariotest.Run(t, session17After, "--provider-fixed=false", "--more-dead-letters", "PAY-002,PAY-004")
	wantChecks(t, rep, map[string]string{
		"halted after the first batch failed again, the rest parked": "PASS 1 batch, 1 halt; 2 dead again; 1 of 1 parked still DeadLettered with their count",
		"original terminal reason preserved":                         "PASS 2 of 2 Redrives rows keep count, error and time",
	})
	res := rep.Result()
	if !res.Passed || res.Verdict != "[PASS ✅] AUDITED REDRIVE HALTED, HISTORY KEPT — THE CAUSE IS NOT FIXED: THE INCIDENT STAYS OPEN" {
		t.Errorf("audited, broken: passed %v, verdict %q; want a pass whose verdict says the incident stays open", res.Passed, res.Verdict)
	}
	if names := checkNames(rep); slices.Contains(names, "incident closed: every dead letter resolved") {
		t.Errorf("audited, broken: checks %q demand a closed incident the broken provider cannot give", names)
	}
}

// One dead letter into a provider still broken (--provider-fixed=false
// alone, Next's Try): one batch holds it, so nothing is left to park and
// nothing closes. No check may hold on those zeros: the halt check claims
// no rest, the closing rule is an invariant that says why it held on no
// closing, and the reason, which the halt contradicts, is recorded, not
// accepted. The verdict is still the halt's pass.
func TestSession17AuditedRedriveIntoABrokenProviderJudgesNoZeros(t *testing.T) {
	t.Parallel()
	rep := scenariotest.Run(t, session17After, "--provider-fixed=false")
	wantChecks(t, rep, map[string]string{
		"halted after the first batch failed again": "PASS 1 batch, 1 halt; 1 dead again; the batch released the one dead letter: " +
			"none left to park",
		checkVerified: "PASS no entry closed, none without a matching status check: 1 released, 1 dead again",
		"redrive authorised": `PASS approver ops-oncall, 1 approval record; reason "INC-4711: provider status API restored" ` +
			"recorded, not accepted: the run contradicts it, the first batch dead-lettered again",
	})
	if names := checkNames(rep); slices.Contains(names, "halted after the first batch failed again, the rest parked") {
		t.Errorf("checks %q claim a rest parked where one batch released every dead letter", names)
	}
	if c := scenariotest.CheckNamed(t, rep, checkVerified); c.Role != report.RoleInvariant || c.OnNone == "" {
		t.Errorf("%q: role %s, on none %q; want an invariant that says why it held on no closing", checkVerified, c.Role, c.OnNone)
	}
	res := rep.Result()
	if !res.Passed || res.Verdict != "[PASS ✅] AUDITED REDRIVE HALTED, HISTORY KEPT — THE CAUSE IS NOT FIXED: THE INCIDENT STAYS OPEN" {
		t.Errorf("passed %v, verdict %q; want the halt's pass", res.Passed, res.Verdict)
	}
	// With the provider fixed, entries close and the rule is judged on them.
	rep = scenariotest.Run(t, session17After)
	if c := scenariotest.CheckNamed(t, rep, checkVerified); c.Role != report.RoleInvariant || c.OnNone != "" ||
		c.Detail != "1 closed, 0 of them without a matching status check" {
		t.Errorf("fixed: %q role %s, on none %q, detail %q; want an invariant judged on 1 closing", checkVerified, c.Role, c.OnNone, c.Detail)
	}
	// Nothing to redrive: the approval is judged, and no reason is shown as
	// one the Redrives rows never carried.
	rep = scenariotest.Run(t, session17After, "--poison-key", "none")
	wantChecks(t, rep, map[string]string{
		"redrive authorised": "PASS approver ops-oncall, 1 approval record; nothing released, so no Redrives row carries the reason",
	})
}

// FailsWith and NotExercisedWith: --keep-counters=false switches off a part
// of the audited mechanism and fails its check (the row undercounts what the
// provider's ledger shows); with no dead letter neither design exercises
// anything, and each says so.
func TestSession17FailsAndNotExercised(t *testing.T) {
	t.Parallel()
	rep := scenariotest.Run(t, session17After, "--keep-counters=false")
	wantFail(t, rep, "counters never reset", "0 of 1 rows count every attempt made; undercounts: PAY-003")
	if c := scenariotest.CheckNamed(t, rep, "original terminal reason preserved"); !c.Passed {
		t.Errorf("--keep-counters=false broke the Redrives copy too: %s", c.Detail)
	}
	for _, name := range []string{session17Before, session17After} {
		rep := scenariotest.Run(t, name, "--poison-key", "none")
		res := rep.Result()
		if res.Passed || !strings.HasPrefix(res.Verdict, report.VerdictNotExercised) {
			t.Errorf("%s --poison-key none: passed %v, verdict %q; want %s", name, res.Passed, res.Verdict, report.VerdictNotExercised)
		}
		for _, c := range res.Checks {
			if c.Outcome == report.OutcomeBroken {
				t.Errorf("%s --poison-key none: %q broke (%s); nothing was there to break", name, c.Name, c.Detail)
			}
		}
	}
}

func checkNames(rep *report.Report) []string {
	var names []string
	for _, c := range rep.Result().Checks {
		names = append(names, c.Name)
	}
	return names
}

// Day 17 starts from Day 16 AFTER's end state, built by Day 16's own code:
// the dead letter it parks is the one an independent Day 16 AFTER run
// leaves, attempt for attempt, and nothing else is dead.
func TestSession17StartsWhereDay16Ends(t *testing.T) {
	t.Parallel()
	_, day16 := driveDesign(t, (*session16Options).drive, session16After, false)
	run, _ := driveSession17(t, true)
	if got := keysText(run.deadKeys); got != "PAY-003" {
		t.Fatalf("Day 17 starts with dead letters %s, want PAY-003, Day 16's one", got)
	}
	want, got := messageOf(day16.ledger, "PAY-003"), run.before["PAY-003"]
	if got.AttemptCount != want.AttemptCount || !got.DeadLetteredAt.Equal(want.DeadLetteredAt) || got.LastError != want.LastError ||
		got.ClaimToken != want.ClaimToken || got.Status != want.Status {
		t.Errorf("Day 17's dead letter %+v, want Day 16's %+v", got, want)
	}
	for _, p := range day16.ledger.Payments {
		if p.Key == "PAY-003" {
			continue
		}
		if q, _ := run.ledger.Payment(p.Key); q.Status != p.Status || q.ProviderTransactionID != p.ProviderTransactionID {
			t.Errorf("%s ends %s %s in Day 17, %s %s in Day 16: the redrive touched it", p.Key, q.Status, q.ProviderTransactionID, p.Status, p.ProviderTransactionID)
		}
	}
}

// Day 16 says PAY-003 is a would-be Failed payment: after the redrive it is
// Failed, as the provider says once fixed, and it was never charged.
func TestSession17PoisonEndsAsDay16Says(t *testing.T) {
	t.Parallel()
	run, f := driveSession17(t, true)
	pay, _ := run.ledger.Payment("PAY-003")
	if pay.Status != "Failed" || pay.ProviderTransactionID != "" || f.poisonAsDay16 != 1 {
		t.Errorf("PAY-003 ends %s %q (%d as Day 16 says), want Failed without a transaction id", pay.Status, pay.ProviderTransactionID, f.poisonAsDay16)
	}
}

// The batches (three dead letters, two batches) give the same report on
// PostgreSQL as on SQLite.
func TestSession17MoreDeadLettersSameOnPostgres(t *testing.T) {
	t.Parallel()
	args := []string{"--more-dead-letters", "PAY-002,PAY-004", "--batch", "1"}
	sqlite := scenariotest.Run(t, session17After, args...)
	postgres := scenariotest.RunPostgres(t, pgtest.URL(t), session17After, args...)
	scenariotest.SameRun(t, "sqlite", sqlite, "postgres", postgres, nil)
}

// Both Day 17 scenarios, under their defaults, FailsWith and
// NotExercisedWith: every number in a check's WHY is one the run's own body
// shows outside its checks and verdict (setup, timeline, tables, rows).
func TestSession17WhysFromTheRun(t *testing.T) {
	t.Parallel()
	for _, name := range []string{session17Before, session17After} {
		s := scenarios.Lookup(name)
		for _, args := range [][]string{nil, s.FailsWith, s.NotExercisedWith, {"--provider-fixed=false"},
			{"--more-dead-letters", "PAY-001,PAY-002,PAY-004", "--batch", "100", "--batch-interval", "0s"}} {
			t.Run(name+" "+strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				rep := scenariotest.Run(t, name, args...)
				facts := session17Facts(rep.Body())
				for _, c := range rep.Result().Checks {
					for _, n := range figure.FindAllString(c.Detail, -1) {
						if !strings.Contains(facts, n) {
							t.Errorf("check %q: %s is in its WHY (%s) but nowhere in the run's tables or rows", c.Name, n, c.Detail)
						}
					}
				}
			})
		}
	}
}

// figure is a number in a WHY: digits, with a time's or a decimal's separators.
var figure = regexp.MustCompile(`\d+(?:[.:]\d+)*`)

// session17Facts is a report body without its check and verdict sections.
func session17Facts(body string) string {
	var b strings.Builder
	for i, sec := range strings.Split(body, "\n## ") {
		title, _, _ := strings.Cut(sec, "\n")
		if i > 0 && (strings.HasPrefix(title, "Checks") || strings.HasPrefix(title, "Safety checks") ||
			strings.HasPrefix(title, "Invariants") || strings.HasPrefix(title, "Verdict")) {
			continue
		}
		b.WriteString(sec + "\n")
	}
	return b.String()
}
