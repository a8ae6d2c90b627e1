package grade

import (
	"slices"
	"strings"
	"testing"

	"outboxlab/core/report"
)

// The forgeries the lab refuses: a Day 16 worker that counts an attempt
// when it records the outcome (testdata/ok16, OK16_TAMPER) fails "attempts
// counted at claim time"; each attack below rewrites what the change log
// says so that the log shows the count at the claim, and the check holds.
// The lab's own reading of the rows at every turn's end does not: the
// tamper check fails. Without the guard every one of them passed.
var tamperCheck = "protocol: the change log holds every row change, untampered"

var attacks = map[string]string{
	"temp-trigger":    "TEMP triggers AFTER INSERT ON main.LabChangeLog patch attemptcount in each new log row",
	"drop-recreate":   "the Lab trigger dropped, the count written, the trigger made again the same, in one turn",
	"log-update":      "UPDATE LabChangeLog after each claim and record",
	"log-delete":      "the count written, its log row deleted, sqlite_sequence set back (no gap)",
	"temp-view":       "a TEMP view shadows OutboxMessages; its INSTEAD OF trigger writes the table and patches the log",
	"writable-schema": "the Lab trigger's SQL rewritten through writable_schema, put back before done",
	"attach":          "the same file ATTACHed as twin; the log patched through twin.LabChangeLog",
	"second-conn":     "a second connection, whose log rows a TEMP trigger RAISE(IGNORE)s, writes while the worker waits in a call",
}

func TestTamperedLogFails(t *testing.T) {
	for attack, how := range attacks {
		t.Run(attack, func(t *testing.T) {
			t.Setenv("OK16_TAMPER", attack)
			rep, stderr := gradeCourseRun(t, okWorker)
			hidden(t, rep, stderr, how)
			failsWith(t, rep, tamperCheck)
		})
	}
}

// gradeCourseRun grades command on Day 16's course run alone (one worker,
// no fault), where each forgery hides the count it rewrites. Day 16's
// later runs kill and stall workers: a killed worker's claim is never
// recorded, so the forger's count (patched at record time) cannot be made
// to look right there, and the count check fails whatever the log says —
// those runs prove nothing about the tamper check.
func gradeCourseRun(t *testing.T, command ...string) (*report.Report, string) {
	t.Helper()
	return gradeWith(t, &Options{Day: Lookup("session-16"), Seed: DefaultSeed, Variations: 0,
		TurnBudget: testTurnBudget, StartBudget: testStartBudget, Command: command})
}

// hidden requires that the attack ran to the end and hid the mistake: the
// worker said done and exited 0, and the count check held on the log.
func hidden(t *testing.T, rep *report.Report, stderr, how string) {
	t.Helper()
	for _, name := range failed(rep) {
		for _, fooled := range []string{"attempts counted at claim time", "protocol: done and exit 0"} {
			if strings.Contains(name, fooled) {
				t.Fatalf("%s: the attack did not run or hide the mistake (%q failed); the test proves nothing\n%s",
					how, name, stderr)
			}
		}
	}
}

// TestCountAtRecordFails is the mistake the attacks hide, with the log left
// alone: the count check fails, and the tamper check holds (a wrong worker
// is not a forger).
func TestCountAtRecordFails(t *testing.T) {
	t.Setenv("OK16_TAMPER", "count-at-record")
	rep, _ := gradeRun(t, "session-16", DefaultSeed, okWorker)
	failsWith(t, rep, "attempts counted at claim time")
	if slices.ContainsFunc(failed(rep), func(n string) bool { return strings.Contains(n, tamperCheck) }) {
		t.Errorf("the tamper check failed on a worker that rewrote nothing: %q", failed(rep))
	}
}

// TestTamperedLogFailsOnPostgres: the same on PostgreSQL, where the worker
// has the lab's own role: its log rows patched, its trigger dropped and
// made again, or disabled, around a write. A TEMP table named LabChangeLog
// no longer catches the trigger's rows (its function's search_path puts
// pg_temp last): the log holds the truth, and the count check fails.
func TestTamperedLogFailsOnPostgres(t *testing.T) {
	postgresURL(t) // starts pgServer
	for attack, want := range map[string]string{
		"pg-log-update":      tamperCheck,
		"pg-drop-recreate":   tamperCheck,
		"pg-disable-trigger": tamperCheck,
		"pg-temp-log":        "attempts counted at claim time",
	} {
		t.Run(attack, func(t *testing.T) {
			t.Setenv("OK16_TAMPER", attack)
			rep := gradeCourseRunOnPostgres(t)
			if want == tamperCheck {
				hidden(t, rep, "", attack)
			}
			failsWith(t, rep, want)
		})
	}
}
