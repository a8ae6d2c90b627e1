package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
)

// bugs are the deliberate mistakes this worker can make, one at a time, by
// name: -bug NAME (or OUTBOXLAB_BUG=NAME). Without one it is the reference
// worker, line for line. Each is a mistake the grader must catch;
// workers/grade_test.go names the check that does (wrongWorkers).
var bugs = map[string]string{
	// Day 15: leasing, one owner at a time.
	"select-then-update": "Day 15: reads the claimable rows, asks the lab the time, then updates them by Id without re-checking",
	"no-lease-expiry":    "Days 15, 16, poison-counter: claims and waits for Pending rows only, never an expired lease",
	"no-owner-check":     "Days 15, 16: records an answer without the owner and token check",

	// poison-counter.
	"count-on-catch": "poison-counter: counts an attempt when it fails, not when it is delivered",

	// Day 16: bounded retries, backoff, dead letters.
	"no-max-attempts":           "Day 16: retries a failed message forever (no MaxAttempts)",
	"backoff-not-gated":         "Day 16: claims a message before its NextAttemptUtc",
	"wall-clock":                "Day 16: writes timestamps from the machine's clock",
	"attempt-off-by-one":        "Day 16: dead-letters after MaxAttempts+1 attempts (<= for <)",
	"dead-letter-no-last-error": "Day 16: dead-letters with LastError NULL",
	"dead-letter-deletes":       "Day 16: deletes the row instead of dead-lettering it",
	"dead-letter-fakes-outcome": "Day 16: marks the dead letter's payment Failed",
	"invents-transaction-id":    "Day 16: marks the dead letter's payment Paid with an id of its own",
	"backoff-not-doubled":       "Day 16: waits the base backoff after every failure",
	"payment-no-updated-at":     "Day 16: records a payment's outcome without UpdatedAtUtc",
	"processed-no-processed-at": "Day 16: marks a message Processed without ProcessedAtUtc",
	"claims-newest-first":       "Day 16: claims the newest messages first",
	"lease-at-boundary":         "Days 15, 16, poison-counter: takes an expired lease at LockedUntilUtc <= now (<= for <)",
	"lease-late":                "Days 15, 16, poison-counter: takes an expired lease only 2 ms after it ends (LockedUntilUtc < now - 1 ms)",
	"lease-early":               "Days 15, 16, poison-counter: takes a lease 1 ms before it ends (LockedUntilUtc <= now + 1 ms)",
	"gate-strict":               "Day 16: opens the backoff gate at NextAttemptUtc < now (< for <=)",
	"null-max-as-zero":          "Day 16: reads a NULL MaxAttempts as 0: dead-letters at the first failure",
	"max-from-env":              "Day 16: takes MaxAttempts from the environment, not the row",
	"backoff-from-claim":        "Day 16: counts the backoff from the claim's time, not the failure's",
	"keeps-first-error":         "Day 16: keeps the first failure's LastError on later failures",
	"no-dead-letter-at-claim":   "Day 16, poison-counter: delivers a message whose AttemptCount reached MaxAttempts again",

	// Day 17: the audited redrive.
	"redrive-resets-counters": "Day 17: releases dead letters with AttemptCount 0",
	"redrive-skips-audit":     "Day 17: writes no AuditLog row",
	"redrive-one-batch":       "Day 17: releases every dead letter in one batch",
	"redrive-no-verify":       "Day 17: closes a Redrives row without asking the provider",
	"redrive-unapproved":      "Day 17: redrives without an approver or a reason",

	// Protocol abuse.
	"never-calls-lab":     "settles every message in the database without one lab call",
	"hangs":               "says hello, then blocks forever",
	"exits-at-once":       "exits 0 before saying anything",
	"second-call":         "makes a second call while its provider call is outstanding",
	"floods-provider":     "asks the provider about the same message 200 times",
	"garbage-rows":        "inserts an outbox message and a payment of its own",
	"drops-table":         "drops the Payments table",
	"drops-change-log":    "drops the lab's LabChangeLog table",
	"holds-transaction":   "calls the provider inside its claim transaction",
	"done-with-work-left": "says done while messages are still Pending",
}

// active is the bug this run makes ("" for none).
var active string

// bug reports whether this run makes the named mistake.
func bug(name string) bool {
	if _, ok := bugs[name]; !ok {
		panic("unknown bug " + name)
	}
	return active == name
}

// chooseBug reads -bug or OUTBOXLAB_BUG and refuses a name it does not know.
func chooseBug() {
	fs := flag.NewFlagSet("wrong", flag.ExitOnError)
	name := fs.String("bug", os.Getenv("OUTBOXLAB_BUG"), "the mistake to make (-bug list shows them)")
	_ = fs.Parse(os.Args[1:])
	if *name == "list" {
		names := make([]string, 0, len(bugs))
		for n := range bugs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Printf("%-26s %s\n", n, bugs[n])
		}
		os.Exit(0)
	}
	if _, ok := bugs[*name]; *name != "" && !ok {
		fmt.Fprintf(os.Stderr, "wrong: unknown bug %q (-bug list shows them)\n", *name)
		os.Exit(2)
	}
	active = *name
}
