package wassal

import (
	"fmt"
	"slices"
	"strings"

	"outboxlab/core/outbox"
)

// The course builds its store a Day at a time: each Day's store has only
// what that Day and the Days before it introduced (an outbox.Design), and
// its DDL is schema.sql's (outbox.Schema), cut to those tables and columns:
// the schema is spelled once.

// Day returns the store of course Day n (13 to 17); it panics outside that
// range. Each Day has what it and the Days before it introduced, and no more:
//
//   - Day 13: Payments only, no outbox. The Day's durable re-check rows are
//     its own table, created beside it (CreateTable).
//   - Day 14: Payments and OutboxMessages written in the payment's
//     transaction (EnqueueTx): Status Pending | Processing | Processed, and
//     what the naive SELECT-then-UPDATE worker writes (LockedBy, AttemptCount;
//     naiveSelectPending, naiveMarkProcessing, naiveCompleteTx in naive.go).
//   - Day 15: Day 14 plus the lease and the atomic claim: LockedUntilUtc,
//     ClaimToken (the fencing token) and the claim's index; ClaimTx counts
//     AttemptCount at claim time. No backoff gate. The Day 16 BEFORE is
//     Day 15's design retrying naively, so it opens Day(15) too.
//   - Day 16 (the AFTER): Day 15 plus the retry columns MaxAttempts,
//     NextAttemptUtc and LastError, the backoff clause of the claim, and the
//     DeadLettered status with DeadLetteredAtUtc. No audit log:
//     DeadLetterTx writes none.
//   - Day 17: Day 16 plus AuditLog, the redrive's audit (AuditTx, Audit);
//     DeadLetterTx audits each dead-lettering. Opening Day(17) on a Day 16
//     database adds AuditLog and leaves the rest as it is.
func Day(n int) outbox.Design {
	if n < 13 || n > 17 {
		panic(fmt.Sprintf("wassal.Day(%d): the course's Days with a store are 13 to 17", n))
	}
	name := fmt.Sprintf("Day %d", n)
	ddl := schemaPart("TABLE Payments") + "\n" + schemaPart("INDEX IX_Payments_PaymentKey")
	if n == 13 {
		return outbox.NewDesign(name, ddl, nil, false)
	}
	var columns []string
	for _, c := range dayColumns {
		if c.day <= n {
			columns = append(columns, c.name)
		}
	}
	ddl += "\n" + outboxDDL(n)
	if n >= 15 {
		ddl += "\n" + schemaPart("INDEX IX_OutboxMessages_Claimable")
	}
	if n >= 17 {
		ddl += "\n" + schemaPart("TABLE AuditLog")
	}
	return outbox.NewDesign(name, ddl, columns, n >= 17)
}

// column is one column of OutboxMessages and the Day that introduced it.
type column struct {
	name string
	day  int
}

// dayColumns are OutboxMessages' columns in schema.sql's order, each with
// the Day that introduced it.
var dayColumns = []column{
	{"Id", 14}, {"MessageKey", 14}, {"Type", 14}, {"Payload", 14}, {"Status", 14},
	{"AttemptCount", 14}, {"MaxAttempts", 16}, {"NextAttemptUtc", 16}, {"LastError", 16},
	{"LockedBy", 14}, {"LockedUntilUtc", 15}, {"ClaimToken", 15}, {"CreatedAtUtc", 14},
	{"ProcessedAtUtc", 14}, {"DeadLetteredAtUtc", 16},
}

// schemaPart is the statement of schema.sql that creates what (such as
// "TABLE Payments"), with the comment lines right above it.
func schemaPart(what string) string {
	kind, name, _ := strings.Cut(what, " ")
	lines := strings.SplitAfter(outbox.Schema, "\n")
	for i, l := range lines {
		if f := strings.Fields(l); len(f) < 6 || f[0] != "CREATE" || f[1] != kind || f[5] != name {
			continue // CREATE kind IF NOT EXISTS name
		}
		start := i
		for start > 0 && strings.HasPrefix(lines[start-1], "--") {
			start--
		}
		end := i
		for end < len(lines) && !strings.HasSuffix(strings.TrimRight(lines[end], "\n"), ";") {
			end++
		}
		return strings.Join(lines[start:end+1], "")
	}
	panic("schema.sql has no CREATE " + what)
}

// outboxDDL is OutboxMessages as Day n has it: schema.sql's, with only the
// columns Day n has, and before Day 16 no DeadLettered status.
func outboxDDL(n int) string {
	has := map[string]bool{}
	for _, c := range dayColumns {
		has[c.name] = c.day <= n
	}
	var kept []string
	keep := true
	for _, l := range strings.SplitAfter(schemaPart("TABLE OutboxMessages"), "\n") {
		indent := len(l) - len(strings.TrimLeft(l, " "))
		switch {
		case indent == 4: // a column: kept when Day n has it
			keep = has[strings.Fields(l)[0]]
		case indent == 0: // CREATE, the closing line
			keep = true
		} // deeper: the column above continues
		if !keep {
			continue
		}
		if n < 16 {
			l = strings.Replace(l, ", 'DeadLettered'", "", 1)
		}
		kept = append(kept, l)
	}
	return strings.Join(lastColumnEnds(kept), "")
}

// lastColumnEnds drops the comma after the last column kept (before its
// comment, if it has one): the closing line ") STRICT;" follows it.
func lastColumnEnds(lines []string) []string {
	last := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, ")") }) - 1
	body, comment, hasComment := strings.Cut(lines[last], " -- ")
	trimmed := strings.TrimRight(body, " \n")
	if !strings.HasSuffix(trimmed, ",") {
		return lines
	}
	pad := body[len(trimmed):] // the spaces before the comment, or the newline
	lines[last] = strings.TrimSuffix(trimmed, ",") + pad
	if hasComment {
		lines[last] = strings.TrimSuffix(trimmed, ",") + " " + pad + "-- " + comment
	}
	return lines
}
