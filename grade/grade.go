// Package grade runs a student's own worker, in any language, as real
// processes against a Day's database, the lab's scenario clock and its
// scripted provider served over loopback HTTP (docs/grade-protocol.md), and
// judges what the worker left behind with the Day's checks.
package grade

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/outbox"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/core/sqlitedb"
	"outboxlab/scenarios"
)

// DefaultSeed draws the variations every grade runs unless --seed says otherwise.
const DefaultSeed = 20260116

// DefaultVariations is how many variations a grade runs beside the defaults.
const DefaultVariations = 3

// variation is one set of a Day's parameters: the defaults (the course's
// numbers) or one drawn from the seed.
type variation struct {
	Label          string
	Payments       int
	Poison         []string // status check fails every time
	Declined       string
	Transient      string // fails the first TransientFails checks, then pays
	TransientFails int
	Lethal         string   // poison-counter: the handler of this key crashes
	More           []string // Day 17: keys that fail in Day 16's drain, then pay once fixed
	Fixed          bool     // Day 17: the provider is fixed before the redrive
	Approver       string   // Day 17
	Reason         string
	RedriveBatch   int
	RedriveEvery   time.Duration
	RedriveMore    int    // attempts a redriven entry gets
	Refusal        bool   // Day 17: this run withholds the approver (the redrive must refuse)
	KillKey        string // Day 15: the worker is killed with this key's answer in flight
	StallKey       string // Day 15: this key's answer is held past the lease
	MaxAttempts    int
	BaseBackoff    time.Duration
	MaxBackoff     time.Duration
	Lease          time.Duration
	Batch          int
	Workers        int
}

// backoff is the Day 16 backoff after failed attempt n: base × 2^(n-1),
// capped at MaxBackoff when it is set.
func (v variation) backoff(n int) time.Duration {
	d := v.BaseBackoff
	for i := 1; i < n; i++ {
		d *= 2
		if v.MaxBackoff > 0 && d >= v.MaxBackoff {
			break
		}
	}
	if v.MaxBackoff > 0 && d > v.MaxBackoff {
		d = v.MaxBackoff
	}
	return d
}

// faultAction is what a Day's fault does to a provider call.
type faultAction struct {
	kill     bool
	answered bool          // the provider answers before the kill: the call was in flight
	stall    time.Duration // hold the answer this long (scenario time)
	why      string
}

// Day is one Day grade can judge.
type Day struct {
	ID       string   // session-16
	Aliases  []string // day16
	EnvDay   string   // OUTBOXLAB_DAY
	Number   int      // the course Day, for the report's folder; 0 for an experiment
	Family   string   // the report's folder when Number is 0
	Title    string
	Summary  string
	defaults variation
	vary     func(rng *rand.Rand, label string) variation
	fault    func(r *run, s *slot, key string, id int64) faultAction
	restarts func(v variation) int
	judge    func(j *judge)
	describe func(v variation) []string // the setup lines of a variation

	design int                                     // the store's Day (16 unless set)
	role   string                                  // OUTBOXLAB_ROLE ("worker" unless set)
	env    func(v variation) [][2]string           // more OUTBOXLAB_ variables
	setup  func(ctx context.Context, r *run) error // builds the start state after seeding
}

func (d *Day) restartLimit(v variation) int {
	if d.restarts == nil {
		return 0
	}
	return d.restarts(v)
}

// ScenarioName is the name a grade's report is filed under: grade-session-16.
func (d *Day) ScenarioName() string { return "grade-" + d.ID }

var days []*Day

// Days lists the Days grade accepts, in the course's order.
func Days() []*Day { return slices.Clone(days) }

// Lookup finds a Day by id or alias.
func Lookup(name string) *Day {
	for _, d := range days {
		if d.ID == name || slices.Contains(d.Aliases, name) {
			return d
		}
	}
	return nil
}

// Options are one grade's parameters.
type Options struct {
	Day         *Day
	Seed        uint64
	Variations  int
	TurnBudget  time.Duration
	Command     []string
	startBudget time.Duration // tests: the wall time until hello (0: 15 s)
	// Stderr gets the last lines of a failing worker's output: the terminal
	// only, never the report.
	Stderr io.Writer
}

// Validate checks the options; a grade with bad options does not run.
func (o *Options) Validate() error {
	switch {
	case o.Day == nil:
		return errors.New("no Day to grade")
	case len(o.Command) == 0:
		return errors.New("no worker command: give it after --, e.g. outboxlab grade session-16 -- go run ./day16")
	case o.Variations < 0 || o.Variations > 20:
		return fmt.Errorf("--variations %d: want 0 to 20", o.Variations)
	case o.TurnBudget < 100*time.Millisecond || o.TurnBudget > time.Minute:
		return fmt.Errorf("--turn-budget %s: want 100ms to 1m", o.TurnBudget)
	}
	return nil
}

// ErrCannotStart marks a worker command that could not be started (exit 3).
var ErrCannotStart = errors.New("the worker command cannot be started")

// variations are the defaults, then n drawn from seed.
func (o *Options) variations() []variation {
	out := []variation{o.Day.defaults}
	out[0].Label = "defaults"
	rng := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	for i := 1; i <= o.Variations; i++ {
		out = append(out, o.Day.vary(rng, fmt.Sprintf("variation %d", i)))
	}
	return out
}

// Run grades the worker on every variation and renders the report.
func (o *Options) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	cmd, err := prepareCommand(ctx, o.Command, env.Dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCannotStart, err)
	}
	rep := report.New(o.Day.ScenarioName(), report.After)
	rep.Title("Grade — " + o.Day.Title)
	rep.Linef("Scenario  %s (grades a worker against %s; protocol version %d)", o.Day.ScenarioName(), o.Day.ID, ProtocolVersion)
	rep.Linef("Seed      %d (the variations are drawn from it; --seed N draws others)", o.Seed)
	rep.Linef("Runs      the defaults (the course's numbers) and %s", report.Plural(o.Variations, "variation"))
	rep.Line("Judged    by what the lab saw: rows and the change log its triggers wrote,")
	rep.Line("          the provider's ledger, the calls it answered; never the worker's claims")
	type summary struct {
		label          string
		passed, failed int
	}
	var sums []summary
	vars := o.variations()
	for i, v := range vars {
		loc := env.DBPath
		if i > 0 {
			if loc, err = env.DB(ctx, fmt.Sprintf("variation-%d", i)); err != nil {
				return nil, err
			}
		}
		g, err := o.grade(ctx, cmd, v, loc, env.Postgres(), uint64(i))
		if err != nil {
			return nil, err
		}
		tag := fmt.Sprintf("v%d", i+1)
		sub := report.New(rep.Scenario, report.After)
		g.render(sub, fmt.Sprintf("Variation %d of %d: %s", i+1, len(vars), v.Label), tag)
		sum := summary{label: tag + " " + v.Label}
		for _, c := range g.checks {
			name := tag + ": " + c.name
			sub.Check(name, c.passed, c.detail)
			rep.Check(name, c.passed, c.detail)
			if c.passed {
				sum.passed++
			} else {
				sum.failed++
			}
		}
		sub.Checks(fmt.Sprintf("Checks — %s (%s)", tag, v.Label))
		rep.Line(strings.TrimSuffix(sub.Body(), "\n"))
		sums = append(sums, sum)
		if sum.failed > 0 && o.Stderr != nil {
			g.showOutput(o.Stderr, tag)
		}
	}
	rep.Section("Summary")
	all := 0
	for _, s := range sums {
		mark := report.MarkPass
		if s.failed > 0 {
			mark = report.MarkFail
		}
		rep.Linef("  %-4s  %-24s %d of %d checks held", mark, s.label, s.passed, s.passed+s.failed)
		all += s.failed
	}
	rep.Metric("variations", len(vars))
	rep.Metric("failed_checks", all)
	rep.Metric("seed", o.Seed)
	rep.Verdict("every check held in every variation: the worker does what the Day asks",
		fmt.Sprintf("%s failed: the first FAIL line above names what to fix", report.Plural(all, "check")))
	return rep, nil
}

// graded is one variation's run, read back and judged.
type graded struct {
	r      *run
	v      variation
	msgs   []row
	pays   []row
	calls  []provider.Call
	checks []check
}

// grade runs one variation on a fresh database at loc.
func (o *Options) grade(ctx context.Context, cmd command, v variation, loc string, pg bool, stream uint64) (*graded, error) {
	design := 16
	if o.Day.design > 0 {
		design = o.Day.design
	}
	store, err := outbox.Day(design).Open(ctx, loc)
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
	if g.msgs, err = readRows(ctx, r.db, "OutboxMessages"); err != nil {
		r.violate(ruleSchema, "OutboxMessages cannot be read: %v", oneLine(err))
	}
	if g.pays, err = readRows(ctx, r.db, "Payments"); err != nil {
		r.violate(ruleSchema, "Payments cannot be read: %v", oneLine(err))
	}
	j := &judge{g: g}
	o.Day.judge(j)
	j.protocol()
	g.checks = j.checks
	return g, nil
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

// installChangeLog creates LabChangeLog and its triggers.
func installChangeLog(ctx context.Context, db *sql.DB, pg bool, tables []string) error {
	if pg {
		for _, stmt := range postgresChangeLogDDL(tables) {
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("install the change log: %w", err)
			}
		}
		return nil
	}
	cols := map[string][]string{}
	for _, t := range tables {
		rows, err := db.QueryContext(ctx, `SELECT name FROM pragma_table_info('`+t+`') ORDER BY cid`)
		if err != nil {
			return fmt.Errorf("install the change log: %w", err)
		}
		for rows.Next() {
			var c string
			rows.Scan(&c)
			cols[t] = append(cols[t], c)
		}
		rows.Close()
	}
	if _, err := db.ExecContext(ctx, sqliteChangeLogDDL(tables, cols)); err != nil {
		return fmt.Errorf("install the change log: %w", err)
	}
	return nil
}

func schemaDiff(before, after string, err error) string {
	if err != nil {
		return "the schema cannot be read: " + oneLine(err)
	}
	b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
	var gone, added []string
	for _, l := range b {
		if !slices.Contains(a, l) {
			gone = append(gone, firstWords(l, 3))
		}
	}
	for _, l := range a {
		if !slices.Contains(b, l) {
			added = append(added, firstWords(l, 3))
		}
	}
	sort.Strings(gone)
	sort.Strings(added)
	return fmt.Sprintf("the schema changed: gone or altered %s; new %s",
		orNone(strings.Join(gone, ", ")), orNone(strings.Join(added, ", ")))
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
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

// showOutput writes the last lines of each worker's output to w.
func (g *graded) showOutput(w io.Writer, tag string) {
	for _, s := range g.r.slots {
		if t := strings.TrimSpace(s.out.Tail(12)); t != "" {
			fmt.Fprintf(w, "outboxlab: %s %s's last output:\n", tag, s.id)
			for _, l := range strings.Split(t, "\n") {
				fmt.Fprintf(w, "  | %s\n", l)
			}
		}
	}
}
