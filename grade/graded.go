package grade

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/core/untrusted"
	"outboxlab/grade/changelog"
	"outboxlab/grade/dayspec"
	"outboxlab/grade/judge"
	"outboxlab/grade/sched"
	"outboxlab/grade/workerproc"
	"outboxlab/scenarios/wassal"
)

// One variation graded: the database seeded and watched, the workers run,
// and the rows read back for the Day's checks.

// graded is one variation's run, read back and judged.
type graded struct {
	day    *dayspec.Day
	v      dayspec.Variation
	r      *sched.Run
	msgs   []changelog.Row
	pays   []changelog.Row
	tables map[string][]changelog.Row // the Day's own tables it shows, read back
	calls  []provider.Call
	checks []report.Check
	db     dialect.Database // the database the workers got
}

// trial is one variation to grade: the Day and its parameters, the worker
// command, the database, and the wall-clock budgets.
type trial struct {
	day         *dayspec.Day
	v           dayspec.Variation
	cmd         workerproc.Command
	db          dialect.Database
	rng         *rand.Rand // who runs next, in every run of the variation
	turn, start time.Duration
	onCall      func() // told of every lab call answered (progress); nil: nobody
}

// grade runs the trial on its fresh database.
func (t trial) grade(ctx context.Context) (*graded, error) {
	p := t.v.Common()
	store, err := wassal.Day(t.day.Design).Open(ctx, t.db)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	// The lab's own Day 16 code seeds the payments.
	if err := wassal.SeedDurableOutbox(ctx, store, p.Payments, p.MaxAttempts, clock.Start); err != nil {
		return nil, err
	}
	bench := &dayspec.Bench{Store: store, Clock: clock.New(), Provider: t.v.Provider()}
	lab, err := t.v.Setup(ctx, bench)
	if err != nil {
		return nil, err
	}
	var hosting *sched.Hosting
	if h, ok := t.v.(dayspec.Hosted); ok {
		if hosting, err = h.Hosting(ctx, bench); err != nil {
			return nil, err
		}
	}
	if err := changelog.Install(ctx, store.DB(), t.db.Dialect(), logged(t.day)); err != nil {
		return nil, err
	}
	shape, err := changelog.Shape(ctx, store.DB(), t.db.Dialect())
	if err != nil {
		return nil, err
	}
	cfg := t.config(t.v, shape, bench, lab)
	cfg.Hosting = hosting
	r := sched.New(ctx, cfg)
	var first *sched.Run
	if fv, what := t.v.FirstRun(); fv != nil {
		first = sched.New(ctx, t.config(fv, shape, bench, lab))
		if err := first.Execute(); err != nil {
			return nil, err
		}
		r.Continue(first)
		r.Log(first.Workers[0].ID, "(%s: %s)", what, first.Summary())
	}
	if err := r.Execute(); err != nil {
		return nil, err
	}
	r.Finish()
	g := &graded{day: t.day, v: t.v, r: r, calls: bench.Provider.Calls(), db: t.db}
	g.readTables(ctx, store)
	j := &judge.Judge{Run: r, First: first, Messages: g.msgs, Payments: g.pays, Tables: g.tables,
		Calls: g.calls, Provider: bench.Provider, Lease: p.Lease, Renewals: hosting != nil}
	t.v.Judge(j)
	j.Protocol()
	g.checks = j.Checks()
	return g, nil
}

// config is how the scheduler runs the workers of v (the trial's, or the
// run before it).
func (t trial) config(v dayspec.Variation, shape string, b *dayspec.Bench, lab sched.LabWorker) sched.Config {
	p := v.Common()
	role := t.day.Role
	if role == "" {
		role = "worker"
	}
	params := append([][2]string{
		{"MAX_ATTEMPTS", strconv.Itoa(p.MaxAttempts)},
		{"BASE_BACKOFF_MS", strconv.FormatInt(p.BaseBackoff.Milliseconds(), 10)},
		{"MAX_BACKOFF_MS", strconv.FormatInt(p.MaxBackoff.Milliseconds(), 10)},
		{"LEASE_MS", strconv.FormatInt(p.Lease.Milliseconds(), 10)},
		{"BATCH_SIZE", strconv.Itoa(p.Batch)},
		{"BUSY_TIMEOUT_MS", "5000"},
	}, v.Env()...)
	return sched.Config{
		Command: t.cmd, Workers: p.Workers, Day: t.day.EnvDay, Role: role, Params: params,
		TurnBudget: t.turn, StartBudget: t.start,
		Database: t.db, DB: b.Store.DB(), Shape: shape, Logged: logged(t.day),
		Clock: b.Clock, Provider: b.Provider, Rand: t.rng,
		Fault: v.Fault, Restarts: v.Restarts(), LabWorker: lab, MayAsk: t.day.MayAsk, OnCall: t.onCall,
	}
}

// logged are the tables the change log records for d.
func logged(d *dayspec.Day) []string {
	out := append([]string{}, changelog.Logged...)
	for _, t := range d.Tables {
		out = append(out, t.Name)
	}
	return out
}

// readTables reads the rows the workers left behind while the database is
// still open (the report is written after it closes); a table that cannot
// be read is a broken schema rule.
func (g *graded) readTables(ctx context.Context, store *outbox.Store) {
	read := func(table string) []changelog.Row {
		rows, err := changelog.ReadRows(ctx, store.DB(), table)
		if err != nil {
			g.r.Violate(sched.RuleSchema, "%s cannot be read: %v", table, changelog.OneLine(err))
		}
		return rows
	}
	g.msgs = read("OutboxMessages")
	g.pays = read("Payments")
	g.tables = map[string][]changelog.Row{}
	for _, t := range g.day.Tables {
		if t.Show != nil {
			g.tables[t.Name] = read(t.Name)
		}
	}
}

// output is the last lines of each worker's output, shown as untrusted
// text: what a worker prints cannot drive the terminal, and no token or
// database password the lab gave it appears.
func (g *graded) output(tag string) []string {
	secrets := g.db.Passwords()
	for _, wk := range g.r.Workers {
		secrets = append(secrets, wk.Tokens...)
	}
	shown := untrusted.Shown{Secrets: secrets, MaxLine: 200, MaxLines: maxOutputLines}
	var out []string
	for _, wk := range g.r.Workers {
		if t := strings.TrimSpace(wk.Out.Tail(maxOutputLines)); t != "" {
			out = append(out, fmt.Sprintf("outboxlab: %s %s's last output:", tag, wk.ID))
			for _, l := range strings.Split(shown.Show(t), "\n") {
				out = append(out, "  | "+l)
			}
		}
	}
	return out
}

// maxOutputLines is how many of a worker's last lines a failing grade shows.
const maxOutputLines = 12
