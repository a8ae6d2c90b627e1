package wassal

import (
	"fmt"
	"strings"

	"outboxlab/core/outbox"
)

// The course builds its store a Day at a time: each Day's store has only
// what that Day and the Days before it introduced (an outbox.Design), and
// its DDL is schema.sql's, cut to those tables and columns.

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
	name, ddl := fmt.Sprintf("Day %d", n), paymentsDDL
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
		ddl += "\n" + claimableIndex
	}
	if n >= 17 {
		ddl += "\n" + auditDDL
	}
	return outbox.NewDesign(name, ddl, columns, n >= 17)
}

// column is one column of OutboxMessages and the Day that introduced it.
type column struct {
	name    string
	def     string // its definition, after the name
	comment string // said after it in the DDL, when set
	day     int
}

// dayColumns are OutboxMessages' columns in schema.sql's order, each with
// the Day that introduced it.
var dayColumns = []column{
	{"Id", "INTEGER PRIMARY KEY", "", 14},
	{"MessageKey", "TEXT    NOT NULL", "", 14},
	{"Type", "TEXT    NOT NULL", "", 14},
	{"Payload", "TEXT    NOT NULL DEFAULT '{}'", "", 14},
	{"Status", "", "", 14}, // its CHECK depends on the Day: see outboxDDL
	{"AttemptCount", "INTEGER NOT NULL DEFAULT 0 CHECK (AttemptCount >= 0)", "", 14},
	{"MaxAttempts", "INTEGER CHECK (MaxAttempts IS NULL OR MaxAttempts > 0)", "NULL: no ceiling", 16},
	{"NextAttemptUtc", "TEXT", "backoff gate: not claimable before this time", 16},
	{"LastError", "TEXT", "", 16},
	{"LockedBy", "TEXT", "", 14},
	{"LockedUntilUtc", "TEXT", "lease: another worker may claim once this has passed", 15},
	{"ClaimToken", "INTEGER NOT NULL DEFAULT 0", "fencing token, +1 on every claim, never reset", 15},
	{"CreatedAtUtc", "TEXT    NOT NULL", "", 14},
	{"ProcessedAtUtc", "TEXT", "", 14},
	{"DeadLetteredAtUtc", "TEXT", "", 16},
}

// outboxDDL is OutboxMessages as Day n has it.
func outboxDDL(n int) string {
	statuses := []string{"'Pending'", "'Processing'", "'Processed'"}
	if n >= 16 {
		statuses = append(statuses, "'DeadLettered'")
	}
	var cols []column
	for _, c := range dayColumns {
		if c.day <= n {
			cols = append(cols, c)
		}
	}
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS OutboxMessages (\n")
	for i, c := range cols {
		def := c.def
		if c.name == "Status" {
			def = "TEXT    NOT NULL DEFAULT 'Pending'\n" + strings.Repeat(" ", 22) +
				"CHECK (Status IN (" + strings.Join(statuses, ", ") + "))"
		}
		fmt.Fprintf(&b, "    %-17s %s", c.name, def)
		if i < len(cols)-1 {
			b.WriteString(",")
		}
		if c.comment != "" {
			b.WriteString(" -- " + c.comment)
		}
		b.WriteString("\n")
	}
	b.WriteString(") STRICT;\n")
	return b.String()
}

// The pieces of schema.sql a Day takes whole.
const (
	paymentsDDL = `-- Payments has a surrogate key, not a unique PaymentKey: "one payment per key" is
-- something the lab measures, not something the schema makes impossible.
CREATE TABLE IF NOT EXISTS Payments (
    Id                    INTEGER PRIMARY KEY,
    PaymentKey            TEXT    NOT NULL,
    AmountCents           INTEGER NOT NULL CHECK (AmountCents > 0),
    Status                TEXT    NOT NULL CHECK (Status IN ('PendingConfirmation', 'Paid', 'Failed')),
    ProviderTransactionId TEXT,
    CreatedAtUtc          TEXT    NOT NULL,
    UpdatedAtUtc          TEXT    NOT NULL
) STRICT;

CREATE INDEX IF NOT EXISTS IX_Payments_PaymentKey ON Payments (PaymentKey);
`
	claimableIndex = `-- The claim reads only live rows in creation order.
CREATE INDEX IF NOT EXISTS IX_OutboxMessages_Claimable
    ON OutboxMessages (CreatedAtUtc, Id)
    WHERE Status IN ('Pending', 'Processing');
`
	auditDDL = `CREATE TABLE IF NOT EXISTS AuditLog (
    Id        INTEGER PRIMARY KEY,
    AtUtc     TEXT    NOT NULL,
    Actor     TEXT    NOT NULL,
    Action    TEXT    NOT NULL,
    MessageId INTEGER,
    Detail    TEXT    NOT NULL DEFAULT ''
) STRICT;
`
)
