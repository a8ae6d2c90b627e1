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
// families, the bench), or fewer (NewDesign: a course's step that has only
// what it introduced so far). A store opened with a Design creates only its
// tables, and its claim, transitions and ledgers touch only its columns: a
// column a Design lacks reads as NULL (0 for ClaimToken), and the transition
// that would need it is refused with an error. Without LockedUntilUtc and
// ClaimToken the claim takes no lease (see unleased.go).
type Design struct {
	name    string          // "full", or the step's: "Day 15"
	ddl     string          // the schema the store applies
	outbox  bool            // OutboxMessages exists
	columns map[string]bool // OutboxMessages' columns
	audit   bool            // AuditLog exists
	queue   *claim.Queue    // the claim's view of OutboxMessages
}

// Full is every table and column of the lab's schema (schema.sql).
var Full = Design{name: "full", ddl: Schema, outbox: true, columns: columnSet(fullColumns), audit: true, queue: Messages}

// NewDesign is a Design named name (for errors: "the Day 15 outbox has no
// DeadLetteredAtUtc column") whose store applies ddl (SQLite's words) and
// has OutboxMessages with columns (a subset of Full's; none: no outbox) and,
// with audit, AuditLog. Its claim has the backoff gate only with
// NextAttemptUtc. A course that builds its store a step at a time (the
// course's Days: scenarios/wassal) declares each step as one.
func NewDesign(name, ddl string, columns []string, audit bool) Design {
	d := Design{name: name, ddl: ddl, audit: audit, queue: &claim.Queue{}}
	if len(columns) == 0 {
		return d
	}
	d.outbox, d.columns = true, map[string]bool{}
	for _, c := range columns {
		d.columns[c] = true
	}
	q := *Messages
	if !d.columns[q.Due] {
		q.Due = ""
	}
	d.queue = &q
	return d
}

// Schema returns the DDL the design applies (SQLite's words; PostgreSQL gets
// it in its words: dialect.Dialect.DDL): what --schema shows of a fresh store.
func (d Design) Schema() string { return d.ddl }

// Name says which design this is: "full", or a step's name ("Day 16").
func (d Design) Name() string { return d.name }

// Has reports whether OutboxMessages has column in this design.
func (d Design) Has(column string) bool { return d.columns[column] }

// HasOutbox reports whether the design has an OutboxMessages table.
func (d Design) HasOutbox() bool { return d.outbox }

// HasAudit reports whether the design has the AuditLog table.
func (d Design) HasAudit() bool { return d.audit }

// Open opens (creating if needed) db with this design's tables, as
// outbox.Open does with Full's.
func (d Design) Open(ctx context.Context, db dialect.Database) (*Store, error) {
	cs, err := claim.Open(ctx, db, dialect.SchemaVersion, d.ddl)
	if err != nil {
		return nil, err
	}
	return &Store{Store: cs, queue: d.queue, design: d}, nil
}

// OpenExisting opens a lab database that already exists, seeing it through
// this design; it creates nothing.
func (d Design) OpenExisting(ctx context.Context, db dialect.Database) (*Store, error) {
	cs, err := claim.OpenExisting(ctx, db)
	if err != nil {
		return nil, err
	}
	return &Store{Store: cs, queue: d.queue, design: d}, nil
}

// fullColumns are OutboxMessages' columns in schema.sql's order.
var fullColumns = []string{"Id", "MessageKey", "Type", "Payload", "Status", "AttemptCount", "MaxAttempts",
	"NextAttemptUtc", "LastError", "LockedBy", "LockedUntilUtc", "ClaimToken", "CreatedAtUtc", "ProcessedAtUtc",
	"DeadLetteredAtUtc"}

func columnSet(cols []string) map[string]bool {
	m := map[string]bool{}
	for _, c := range cols {
		m[c] = true
	}
	return m
}

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
