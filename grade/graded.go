package grade

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/sqlitedb"
	"outboxlab/scenarios/wassal"
)

// One variation graded: the database seeded and watched, the workers run,
// and the rows read back for the Day's judge.

// graded is one variation's run, read back and judged.
type graded struct {
	r    *run
	v    variation
	msgs []row
	pays []row
	// redrives are Day 17's Redrives rows (nil on the other Days), read with
	// the others while the database is open: the report is written after.
	redrives []row
	calls    []provider.Call
	checks   []check
}

// grade runs one variation on a fresh database at loc.
func (o *Options) grade(ctx context.Context, cmd command, v variation, loc string, pg bool, stream uint64) (*graded, error) {
	design := 16
	if o.Day.design > 0 {
		design = o.Day.design
	}
	store, err := wassal.Day(design).Open(ctx, loc)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if err := seedDurableOutbox(ctx, store, v); err != nil {
		return nil, err
	}
	r := &run{ctx: ctx, day: o.Day, v: v, cmd: cmd, budget: o.TurnBudget, start: o.startBudget, loc: loc, pg: pg,
		store: store, db: store.DB(), clk: clock.New(), prov: newProvider(v),
		rng: rand.New(rand.NewPCG(o.Seed, stream)), perMsg: map[int64]int{}, fired: map[string]bool{}, lateTurn: -1}
	if o.Day.setup != nil {
		if err := o.Day.setup(ctx, r); err != nil {
			return nil, err
		}
	}
	if err := installChangeLog(ctx, store.DB(), pg, r.logged()); err != nil {
		return nil, err
	}
	if !pg {
		if r.probe, err = openProbe(loc); err != nil {
			return nil, err
		}
		defer r.probe.Close()
	}
	if r.shape, err = schemaShape(ctx, r.db, pg); err != nil {
		return nil, err
	}
	if o.Day.ID == "session-17" {
		// First the redrive without an approver: it must refuse, touching nothing.
		ref := *r
		ref.v.Refusal, ref.events, ref.viol = true, nil, nil
		if err := ref.execute(); err != nil {
			return nil, err
		}
		r.refusal = &ref
		r.lastSeq, r.changes, r.turns = ref.lastSeq, ref.changes, ref.turns
		r.slots, r.srv, r.holder, r.nCalls = nil, nil, nil, 0
		r.events = append(r.events, event{at: r.clk.Now(), who: "worker-1",
			what: fmt.Sprintf("(run without an approver: %s)", ref.refusalText())})
	}
	if err := r.execute(); err != nil {
		var cs errCannotStart
		if errors.As(err, &cs) {
			return nil, fmt.Errorf("%w: %v", ErrCannotStart, cs.err)
		}
		return nil, err
	}
	// What a worker changed after its last call is its own too.
	if news, err := readChanges(ctx, r.db, r.lastSeq); err == nil && len(news) > 0 {
		for _, c := range news {
			c.Turn = -1
			r.changes = append(r.changes, c)
			r.violate(ruleOwnTurn, "%s row %d changed (%s) after the workers ended", c.Table, c.RowID, c.Op)
		}
	}
	if shape, err := schemaShape(ctx, r.db, pg); err != nil || shape != r.shape {
		r.violate(ruleSchema, "%s", schemaDiff(r.shape, shape, err))
	}
	g := &graded{r: r, v: v, calls: r.prov.Calls()}
	g.readTables(ctx)
	j := &judge{g: g}
	o.Day.judge(j)
	j.protocol()
	g.checks = j.checks
	return g, nil
}

// readTables reads the rows the worker left behind while the database is
// still open (the report is written after it closes); a table that cannot
// be read is a broken schema rule.
func (g *graded) readTables(ctx context.Context) {
	var err error
	r := g.r
	if g.msgs, err = readRows(ctx, r.db, "OutboxMessages"); err != nil {
		r.violate(ruleSchema, "OutboxMessages cannot be read: %v", oneLine(err))
	}
	if g.pays, err = readRows(ctx, r.db, "Payments"); err != nil {
		r.violate(ruleSchema, "Payments cannot be read: %v", oneLine(err))
	}
	if slices.Contains(r.extraLogged, "Redrives") {
		if g.redrives, err = readRows(ctx, r.db, "Redrives"); err != nil {
			r.violate(ruleSchema, "Redrives cannot be read: %v", oneLine(err))
		}
	}
}

// seedDurableOutbox seeds v's payments with the lab's own Day 16 code.
func seedDurableOutbox(ctx context.Context, store *outbox.Store, v variation) error {
	return seed(ctx, store, v.Payments, v.MaxAttempts, clock.Start)
}

// newProvider scripts the provider for v.
func newProvider(v variation) *provider.Provider {
	p := scriptProvider(v.Poison, v.Declined)
	if v.Transient != "" {
		p.Script(v.Transient, provider.Rule{Outcome: provider.Paid, FailFirst: v.TransientFails})
	}
	return p
}

// openProbe opens the SQLite file with no busy timeout: its BEGIN IMMEDIATE
// fails at once while a worker holds the write lock.
func openProbe(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+sqlitedb.EscapePath(path)+"?_txlock=immediate&_pragma=busy_timeout(0)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// row is one row read back as text, column names in lower case.
type row map[string]sql.NullString

func (r row) get(col string) string { return r[strings.ToLower(col)].String }
func (r row) has(col string) bool   { return r[strings.ToLower(col)].Valid }

// readRows reads a table whole, every value as text.
func readRows(ctx context.Context, db *sql.DB, table string) ([]row, error) {
	rows, err := db.QueryContext(ctx, `SELECT * FROM `+table+` ORDER BY Id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []row
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		rw := row{}
		for i, c := range cols {
			rw[strings.ToLower(c)] = vals[i]
		}
		out = append(out, rw)
	}
	return out, rows.Err()
}
