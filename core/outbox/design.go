package outbox

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"outboxlab/core/claim"
	"outboxlab/core/dialect"
)

// A Design is the set of tables and columns a store works with: Full, every
// table and column of schema.sql (the retry, workers, governance and ordered
// families, the bench), or one course Day's (Day), which has only what that
// Day and the Days before it introduced. A store opened with a Design creates
// only its tables, and its claim, transitions and ledgers touch only its
// columns: a column a Design lacks reads as NULL (0 for ClaimToken), and the
// transition that would need it is refused with an error.
type Design struct {
	day     int             // 0: Full
	ddl     string          // the schema the store applies
	outbox  bool            // OutboxMessages exists
	columns map[string]bool // OutboxMessages' columns
	audit   bool            // AuditLog exists
	queue   *claim.Queue    // the claim's view of OutboxMessages
}

// Full is every table and column of the lab's schema (schema.sql).
var Full = Design{ddl: Schema, outbox: true, columns: columnSet(allColumns), audit: true, queue: Messages}

// Day returns the Design of course Day n (13 to 17); it panics outside that
// range. Each Day has what it and the Days before it introduced, and no more:
//
//   - Day 13: Payments only, no outbox. The Day's durable re-check rows are
//     its own table, created beside it (CreateTable).
//   - Day 14: Payments and OutboxMessages written in the payment's
//     transaction (EnqueueTx): Status Pending | Processing | Processed, and
//     what the naive SELECT-then-UPDATE worker writes (LockedBy, AttemptCount;
//     NaiveSelectPending, NaiveMarkProcessing, NaiveCompleteTx).
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
func Day(n int) Design {
	if n < 13 || n > 17 {
		panic(fmt.Sprintf("outbox.Day(%d): the course's Days with a store are 13 to 17", n))
	}
	d := Design{day: n, ddl: paymentsDDL, queue: &claim.Queue{}}
	if n == 13 {
		return d
	}
	d.outbox, d.columns = true, map[string]bool{}
	for _, c := range allColumns {
		if c.day <= n {
			d.columns[c.name] = true
		}
	}
	d.ddl += "\n" + outboxDDL(n)
	if n >= 15 {
		d.ddl += "\n" + claimableIndex
	}
	if n >= 17 {
		d.audit = true
		d.ddl += "\n" + auditDDL
	}
	q := *Messages
	if n < 16 {
		q.Due = ""
	}
	d.queue = &q
	return d
}

// Schema returns the DDL the design applies (SQLite's words; PostgreSQL gets
// it translated by dialect.PostgresDDL): what --schema shows of a fresh store.
func (d Design) Schema() string { return d.ddl }

// Name says which design this is: "Day 16", or "full".
func (d Design) Name() string {
	if d.day == 0 {
		return "full"
	}
	return fmt.Sprintf("Day %d", d.day)
}

// Has reports whether OutboxMessages has column in this design.
func (d Design) Has(column string) bool { return d.columns[column] }

// HasOutbox reports whether the design has an OutboxMessages table (all but Day 13).
func (d Design) HasOutbox() bool { return d.outbox }

// HasAudit reports whether the design has the AuditLog table (Full and Day 17).
func (d Design) HasAudit() bool { return d.audit }

// Open opens (creating if needed) the database at location with this design's
// tables, as outbox.Open does with Full's.
func (d Design) Open(ctx context.Context, location string) (*Store, error) {
	cs, err := claim.Open(ctx, location, dialect.SchemaVersion, d.ddl)
	if err != nil {
		return nil, err
	}
	return &Store{Store: cs, queue: d.queue, design: d}, nil
}

// OpenExisting opens a lab database that already exists, seeing it through
// this design; it creates nothing.
func (d Design) OpenExisting(ctx context.Context, location string) (*Store, error) {
	cs, err := claim.OpenExisting(ctx, location)
	if err != nil {
		return nil, err
	}
	return &Store{Store: cs, queue: d.queue, design: d}, nil
}

// column is one column of OutboxMessages and the Day that introduced it.
type column struct {
	name    string
	def     string // its definition, after the name
	comment string // said after it in the DDL, when set
	day     int
}

// allColumns are OutboxMessages' columns in schema.sql's order.
var allColumns = []column{
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

func columnSet(cols []column) map[string]bool {
	m := map[string]bool{}
	for _, c := range cols {
		m[c.name] = true
	}
	return m
}

// outboxDDL is OutboxMessages as Day n has it.
func outboxDDL(n int) string {
	statuses := []string{"'Pending'", "'Processing'", "'Processed'"}
	if n >= 16 {
		statuses = append(statuses, "'DeadLettered'")
	}
	var cols []column
	for _, c := range allColumns {
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

// col is column as a SELECT reads it: itself where the design has it, else
// zero, the value a missing column stands for (NULL; 0 for the token and the count).
func (d Design) col(column string) string {
	if d.columns[column] {
		return column
	}
	if column == "ClaimToken" || column == "AttemptCount" {
		return "0"
	}
	return "NULL"
}

// cols is a comma-separated SELECT list of columns, through col.
func (d Design) cols(columns ...string) string {
	out := make([]string, len(columns))
	for i, c := range columns {
		out[i] = d.col(c)
	}
	return strings.Join(out, ", ")
}

// require fails when the design lacks one of columns: what needs them cannot happen.
func (d Design) require(what string, columns ...string) error {
	if !d.outbox {
		return fmt.Errorf("%s: the %s design has no outbox", what, d.Name())
	}
	if i := slices.IndexFunc(columns, func(c string) bool { return !d.columns[c] }); i >= 0 {
		return fmt.Errorf("%s: the %s outbox has no %s column", what, d.Name(), columns[i])
	}
	return nil
}
