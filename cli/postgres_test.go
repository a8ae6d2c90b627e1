package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/dialect"
	"outboxlab/core/pgdb"
	"outboxlab/core/report"
	"outboxlab/internal/pgtest"
	"outboxlab/scenarios"
)

// probeRun is a scenario for the harness's PostgreSQL lifecycle: it makes a
// lab schema in its main database, writes rows of its own, counts what it
// sees, and then ends as told (returns, fails, panics, is interrupted).
type probeRun struct {
	rows   int
	ending string // "", "error", "panic", "interrupt"
	cancel context.CancelFunc
	seen   *int // rows the run saw in its own table
}

func (probeRun) Validate() error { return nil }

func (p probeRun) Run(ctx context.Context, env scenarios.Env) (*report.Report, error) {
	db, err := pgdb.Open(ctx, env.Database.Location().URL())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	stmts := []string{
		`CREATE TABLE LabInfo (Key TEXT COLLATE "C" PRIMARY KEY, Value TEXT COLLATE "C" NOT NULL)`,
		`INSERT INTO LabInfo VALUES ('schema', 'outboxlab-probe')`,
		`CREATE TABLE OutboxMessages (Id BIGINT PRIMARY KEY, MessageKey TEXT COLLATE "C" NOT NULL, Status TEXT COLLATE "C" NOT NULL)`,
	}
	for i := 1; i <= p.rows; i++ {
		stmts = append(stmts, fmt.Sprintf(`INSERT INTO OutboxMessages VALUES (%d, 'PAY-%03d', 'Pending')`, i, i))
	}
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return nil, err
		}
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM OutboxMessages`).Scan(&n); err != nil {
		return nil, err
	}
	if p.seen != nil {
		*p.seen = n
	}
	switch p.ending {
	case "error":
		return nil, errors.New("the probe gave up")
	case "panic":
		var m map[string]int
		//lint:ignore SA5000 the nil-map panic is the point: the harness must survive a real one
		m["boom"]++
	case "interrupt":
		p.cancel()
		return nil, ctx.Err()
	}
	r := report.New("probe", report.Experiment)
	r.Check("the run saw its own rows", n == p.rows, fmt.Sprintf("%d rows", n))
	return r, nil
}

// probeScenario names the probe; its schemas start with probeSchemas.
var probeScenario = &scenarios.Scenario{Name: "pgprobe", Family: "test"}

const probeSchemas = pgdb.SchemaPrefix + "pgprobe_"

// runSchemas lists the server's schemas whose name starts with prefix.
func runSchemas(t *testing.T, admin, prefix string) []string {
	t.Helper()
	db, err := pgdb.Open(context.Background(), admin)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1) ORDER BY nspname`, prefix)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		out = append(out, n)
	}
	return out
}

// hasTables reports whether a schema whose name starts with prefix holds a table.
func hasTables(t *testing.T, admin, prefix string) bool {
	t.Helper()
	db, err := pgdb.Open(context.Background(), admin)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	err = db.QueryRow(`SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE starts_with(n.nspname, $1) AND c.relkind = 'r'`, prefix).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n > 0
}

func requireNoSchemas(t *testing.T, admin, prefix, after string) {
	t.Helper()
	if left := runSchemas(t, admin, prefix); len(left) > 0 {
		t.Errorf("%s: schemas left behind: %v", after, left)
	}
}

func dropSchemas(t *testing.T, admin string, names ...string) {
	t.Helper()
	db, err := pgdb.Open(context.Background(), admin)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, n := range names {
		if _, err := db.Exec(`DROP SCHEMA IF EXISTS "` + n + `" CASCADE`); err != nil {
			t.Error(err)
		}
	}
}

// role creates a login role with password on the test server (replacing one
// of that name) and returns its URL; createSchemas grants it CREATE on the
// database, which a run needs to make its schema.
func role(t *testing.T, name, password string, createSchemas bool) string {
	t.Helper()
	srv := pgtest.Shared(t)
	db, err := pgdb.Open(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := []string{
		`DROP OWNED BY ` + name,
		`DROP ROLE IF EXISTS ` + name,
		`CREATE ROLE ` + name + ` LOGIN PASSWORD '` + password + `'`,
	}
	if createSchemas {
		stmts = append(stmts, `GRANT CREATE ON DATABASE postgres TO `+name)
	}
	for i, s := range stmts {
		if _, err := db.Exec(s); err != nil && i > 0 { // DROP OWNED fails for a role not there yet
			t.Fatal(err)
		}
	}
	u := url.URL{Scheme: "postgres", User: url.UserPassword(name, password), Path: "/postgres",
		RawQuery: "host=" + url.QueryEscape(srv.Dir)}
	return u.String()
}

func runProbe(ctx context.Context, c commonOptions, p probeRun) (outcome, string, error) {
	var stderr bytes.Buffer
	if c.Database != "" { // as selectDatabase makes it of --database
		var err error
		if c.db, err = dialect.Parse(c.Database); err != nil {
			return outcome{}, "", err
		}
	}
	out, err := execute(ctx, probeScenario, p, c, "outboxlab pgprobe", &stderr, func(string, *report.Report, report.Result) {})
	return out, stderr.String(), err
}

// The flag, then the environment; anything but a postgres:// URL is a usage
// error in one line that names where it came from.
func TestPostgresDatabaseURLIsCheckedFirst(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  string
		want string
	}{
		{args: []string{"--database", "mysql://root@localhost/lab"}, want: "outboxlab: --database: read database URL: bad database URL: not a PostgreSQL URL"},
		{args: []string{"--database", "postgres://u:hunter2@[::1/db"}, want: "outboxlab: --database: read database URL: bad database URL: malformed URL"},
		{args: []string{"--database="}, want: "outboxlab: --database must not be empty"},
		{env: "sqlite:outbox.db", want: "outboxlab: OUTBOXLAB_DATABASE_URL: read database URL: bad database URL: not a PostgreSQL URL"},
	} {
		t.Setenv(pgdb.EnvVar, tc.env)
		for _, cmd := range []string{"jitter-wave", "all"} {
			code, out, stderr := runLab(t, append([]string{cmd, "--no-report"}, tc.args...)...)
			if code != cmdutil.ExitUsage || !strings.HasPrefix(stderr, tc.want) || strings.Count(stderr, "\n") != 1 || out != "" {
				t.Errorf("%s %q (env %q): exit %d, stderr %q; want 2 and one line starting %q", cmd, tc.args, tc.env, code, stderr, tc.want)
			}
			if strings.Contains(stderr, "hunter2") {
				t.Errorf("the password is in the error: %q", stderr)
			}
		}
	}
}

// A server that is not there, a refused login and a missing privilege are
// exit 3 with one line, within the connect timeout, and leave no schema.
func TestPostgresDatabaseFaultsExitThreeInOneLine(t *testing.T) {
	admin := pgtest.URL(t)
	down := "postgres:///postgres?host=" + url.QueryEscape(t.TempDir()) + "&user=postgres"
	wrong := strings.Replace(role(t, "h2_login", "right-pass", true), "right-pass", "wrong-pass", 1)
	noPriv := role(t, "h2_nopriv", "np-pass", false)
	silent := "postgres://u@" + silentServer(t) + "/db"
	for _, tc := range []struct {
		name, url, want string
	}{
		{"server down", down, "server down or unreachable"},
		{"server that never answers", silent, "server down or unreachable: no answer before the connect timeout (4s)"},
		{"wrong password", wrong, "login refused"},
		{"no privilege", noPriv, "missing privilege"},
	} {
		for _, args := range [][]string{{"jitter-wave"}, {"all", "--family", "retry"}} {
			begin := time.Now()
			code, out, stderr := runLab(t, append(args, "--no-report", "--database", tc.url)...)
			took := time.Since(begin)
			if code != cmdutil.ExitCannotRun || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("%s, %s: exit %d, stderr %q; want 3 and one line saying %q", tc.name, args[0], code, stderr, tc.want)
			}
			if took > 5*time.Second {
				t.Errorf("%s, %s: took %v, want at most 5s", tc.name, args[0], took)
			}
			for _, secret := range []string{"wrong-pass", "np-pass"} {
				if strings.Contains(stderr+out, secret) {
					t.Errorf("%s: the password is in the output: %q", tc.name, stderr)
				}
			}
		}
		requireNoSchemas(t, admin, pgdb.SchemaPrefix, tc.name)
	}
}

// silentServer listens on a local port, accepts connections and never says
// a word, as a server behind a dead proxy would; it returns host:port.
func silentServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	return l.Addr().String()
}

// Every way a run can end drops its schema: success, a failed run, a panic,
// an interrupt (with the run's context gone).
func TestPostgresEveryEndingDropsTheSchema(t *testing.T) {
	admin := pgtest.URL(t)
	t.Setenv("TMPDIR", t.TempDir())
	for _, ending := range []string{"", "error", "panic", "interrupt"} {
		ctx, cancel := context.WithCancel(context.Background())
		seen := 0
		out, stderr, err := runProbe(ctx, commonOptions{NoReport: true, Database: admin},
			probeRun{rows: 3, ending: ending, cancel: cancel, seen: &seen})
		cancel()
		wantCode := cmdutil.ExitCannotRun
		if ending == "" {
			wantCode = cmdutil.ExitOK
			if !strings.Contains(out.dbNote, "(temporary; dropped after the run)") || !strings.Contains(out.dbNote, probeSchemas) {
				t.Errorf("database note %q", out.dbNote)
			}
		}
		if code := cmdutil.ExitCode(err); code != wantCode || seen != 3 {
			t.Errorf("ending %q: exit %d (%v), saw %d rows; want exit %d, 3 rows", ending, code, err, seen, wantCode)
		}
		if ending == "interrupt" && !strings.Contains(fmt.Sprint(err), "interrupted") {
			t.Errorf("interrupt reported as %v", err)
		}
		if stderr != "" {
			t.Errorf("ending %q: stderr %q", ending, stderr)
		}
		requireNoSchemas(t, admin, probeSchemas, fmt.Sprintf("ending %q", ending))
		if left, _ := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "outboxlab-*")); len(left) > 0 {
			t.Errorf("ending %q: temporary directories left: %v", ending, left)
		}
	}
}

// A scenario that computes without a database leaves no schema either, and
// its header says it used none, as on SQLite.
func TestPostgresNoDatabaseScenarioLeavesNoSchema(t *testing.T) {
	admin := pgtest.URL(t)
	for _, keep := range []string{"", "--keep-db"} {
		args := []string{"jitter-wave", "--no-report", "--database", admin}
		if keep != "" {
			args = append(args, keep)
		}
		code, out, stderr := runLab(t, args...)
		if code != cmdutil.ExitOK || !strings.Contains(out, "database: "+noDatabase) || stderr != "" {
			t.Errorf("%s: exit %d, stderr %q, database line missing:\n%s", keep, code, stderr, lastLines(out, 2))
		}
		requireNoSchemas(t, admin, pgdb.SchemaPrefix+"jitter_wave", "jitter-wave "+keep)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

var inspectHint = regexp.MustCompile(`inspect --db '([^']+)'`)

// --keep-db keeps the schema (no later sweep drops it), says what inspect
// needs, with the password redacted, and inspect reads it back with the
// password from PGPASSWORD or OUTBOXLAB_DATABASE.
func TestPostgresKeptSchemaIsInspected(t *testing.T) {
	admin := pgtest.URL(t)
	withPass := role(t, "h2_keeper", "keep-S3cret", true)
	out, stderr, err := runProbe(context.Background(), commonOptions{NoReport: true, KeepDB: true, Database: withPass}, probeRun{rows: 4})
	if err != nil || stderr != "" {
		t.Fatalf("kept run: %v, stderr %q", err, stderr)
	}
	kept := runSchemas(t, admin, probeSchemas)
	if len(kept) != 1 || !strings.Contains(out.dbNote, kept[0]) {
		t.Fatalf("kept schemas %v, note %q", kept, out.dbNote)
	}
	defer dropSchemas(t, admin, kept...)
	if strings.Contains(out.dbNote, "keep-S3cret") {
		t.Errorf("the note shows the password: %q", out.dbNote)
	}
	m := inspectHint.FindStringSubmatch(out.dbNote)
	if m == nil || !strings.Contains(m[1], "xxxxx") {
		t.Fatalf("no redacted inspect hint in %q", out.dbNote)
	}
	// A later run's sweep leaves a kept schema alone.
	if _, _, err := runProbe(context.Background(), commonOptions{NoReport: true, Database: admin}, probeRun{rows: 1}); err != nil {
		t.Fatal(err)
	}
	if got := runSchemas(t, admin, probeSchemas); len(got) != 1 {
		t.Errorf("after another run: %v, want the kept schema only", got)
	}

	for _, env := range []struct{ name, value string }{{"PGPASSWORD", "keep-S3cret"}, {pgdb.EnvVar, withPass}} {
		t.Run(env.name, func(t *testing.T) {
			t.Setenv(env.name, env.value)
			code, shown, stderr := runLab(t, "inspect", "--db", m[1])
			if code != cmdutil.ExitOK || stderr != "" {
				t.Fatalf("inspect: exit %d, stderr %q", code, stderr)
			}
			for _, want := range []string{"(schema " + kept[0] + ")", "## outboxmessages (4 rows)", "PAY-004",
				"## Dead letters (OutboxMessages with Status DeadLettered) (0 rows)"} {
				if !strings.Contains(shown, want) {
					t.Errorf("inspect output lacks %q:\n%s", want, shown)
				}
			}
			if strings.Index(shown, "PAY-001") > strings.Index(shown, "PAY-004") || strings.Contains(shown, "labinfo") {
				t.Errorf("rows out of id order, or LabInfo shown:\n%s", shown)
			}
			if strings.Contains(shown, "keep-S3cret") {
				t.Error("inspect printed the password")
			}
		})
	}
	t.Run("no password", func(t *testing.T) {
		code, _, stderr := runLab(t, "inspect", "--db", m[1])
		if code != cmdutil.ExitCannotRun || !strings.Contains(stderr, "login refused") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("exit %d, stderr %q; want 3, login refused", code, stderr)
		}
	})
}

// inspect of a schema that is not a lab's, or of none, is a usage error;
// the transaction it reads in is READ ONLY.
func TestPostgresInspectRefusesASchemaThatIsNotALabs(t *testing.T) {
	admin := pgtest.URL(t)
	r := pgtest.RunSchema(t, "not-a-lab")
	if _, err := r.DB.Exec(`CREATE TABLE Orders (Id BIGINT PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	u, _ := pgdb.WithSchema(admin, r.Schema, "")
	code, _, stderr := runLab(t, "inspect", "--db", u)
	if code != cmdutil.ExitUsage || !strings.Contains(stderr, "is not an outboxlab schema") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want 2, not an outboxlab schema", code, stderr)
	}
	gone, _ := pgdb.WithSchema(admin, "outboxlab_no_such_schema", "")
	code, _, stderr = runLab(t, "inspect", "--db", gone)
	if code != cmdutil.ExitUsage || !strings.Contains(stderr, "names no schema that exists") {
		t.Errorf("exit %d, stderr %q; want 2, no such schema", code, stderr)
	}
}

// Two runs at once on the same server each see only their own rows.
func TestPostgresParallelRunsDoNotSeeEachOther(t *testing.T) {
	admin := pgtest.URL(t)
	var wg sync.WaitGroup
	seen := make([]int, 4)
	errs := make([]error, 4)
	for i := range seen {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, errs[i] = runProbe(context.Background(), commonOptions{NoReport: true, Database: admin},
				probeRun{rows: 10 * (i + 1), seen: &seen[i]})
		}()
	}
	wg.Wait()
	for i := range seen {
		if errs[i] != nil || seen[i] != 10*(i+1) {
			t.Errorf("run %d: %v, saw %d rows, want %d", i, errs[i], seen[i], 10*(i+1))
		}
	}
	requireNoSchemas(t, admin, probeSchemas, "parallel runs")
}

// A run removes the schema of a run whose process is gone, and only that.
func TestPostgresOrphanedSchemaIsSwept(t *testing.T) {
	admin := pgtest.URL(t)
	db, err := pgdb.Open(context.Background(), admin)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	host, _ := os.Hostname()
	for _, s := range []string{
		`CREATE SCHEMA outboxlab_pgprobe_dead`,
		// A pid no system hands out: a process that is gone.
		`COMMENT ON SCHEMA outboxlab_pgprobe_dead IS 'pid=999999999 start=1 host=` + host + `'`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := runProbe(context.Background(), commonOptions{NoReport: true, Database: admin}, probeRun{rows: 1}); err != nil {
		t.Fatal(err)
	}
	requireNoSchemas(t, admin, probeSchemas, "a run after a killed one")
}

// The password of a --database URL appears nowhere: not on the terminal, in
// the report, its header's command line, the JSON, nor an error.
func TestPostgresPasswordIsNeverShown(t *testing.T) {
	const secret = "Pa55-never-shown"
	u := role(t, "h2_secret", secret, true)
	dir := t.TempDir()
	var outputs []string
	for _, args := range [][]string{
		{"jitter-wave", "--report-dir", dir, "--database", u},
		{"jitter-wave", "--json", "--no-report", "--database", u},
		{"jitter-wave", "--report-dir", dir, "--database=" + u},
		{"jitter-wave", "--seed", "x", "--database", u},
	} {
		_, out, stderr := runLab(t, args...)
		outputs = append(outputs, out, stderr)
	}
	t.Setenv(pgdb.EnvVar, u)
	_, out, stderr := runLab(t, "jitter-wave", "--report-dir", dir)
	outputs = append(outputs, out, stderr)
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
	if len(files) < 3 {
		t.Fatalf("reports: %v", files)
	}
	for _, f := range append(files, filepath.Join(dir, report.SummaryFile)) {
		raw, _ := os.ReadFile(f)
		outputs = append(outputs, string(raw))
	}
	for i, o := range outputs {
		if strings.Contains(o, secret) || strings.Contains(o, url.QueryEscape(secret)) {
			t.Errorf("output %d shows the password:\n%s", i, o)
		}
	}
	txt, _ := filepath.Glob(filepath.Join(dir, "retry", "*.txt"))
	raw, _ := os.ReadFile(txt[0])
	if h := report.ParseHeader(string(raw)); !strings.Contains(h.Command, "postgres://h2_secret:xxxxx@") {
		t.Errorf("header command %q, want the URL with its password redacted", h.Command)
	}
	var res report.Result
	if err := json.Unmarshal([]byte(outputs[2]), &res); err != nil {
		t.Errorf("--json: %v", err)
	}
}

// A real SIGINT to a run on PostgreSQL in another process: it stops, says so
// in one line, exits 3 and drops its schema (dropped with a fresh context,
// the run's own being cancelled).
func TestPostgresInterruptDropsTheSchema(t *testing.T) {
	admin := pgtest.URL(t)
	const prefix = pgdb.SchemaPrefix + "worker_throughput_"
	cmd := labCommand(t, []string{"TMPDIR=" + t.TempDir()}, "worker-throughput", "--messages", "4000", "--no-report", "--database", admin)
	code, stderr := interruptOnce(t, cmd, "created a table in its schema", func() bool { return hasTables(t, admin, prefix) })
	if code != cmdutil.ExitCannotRun || stderr != "outboxlab: worker-throughput interrupted; no report was written\n" {
		t.Errorf("exit %d, stderr %q; want 3 and one line saying it was interrupted", code, stderr)
	}
	requireNoSchemas(t, admin, prefix, "SIGINT")
}

// Real scenarios run side by side on one server: each run's comparable body
// is the one a run alone prints (the golden's, which TestGoldenReportsPostgres
// requires of the run alone), which a run that saw another's rows (twice the
// payments, someone else's dead letter) would not.
func TestPostgresParallelScenarioRuns(t *testing.T) {
	url := pgtest.URL(t)
	for _, name := range []string{"session-16-retry-with-dead-letter", "governance-threshold"} {
		s := scenarios.Lookup(name)
		t.Run(name, func(t *testing.T) {
			golden, err := os.ReadFile(goldenPath(s))
			if err != nil {
				t.Fatal(err)
			}
			alone := report.Comparable(string(golden))
			for i := range 3 {
				t.Run(fmt.Sprint(i), func(t *testing.T) {
					t.Parallel()
					body := goldenRun(t, s, "--database", url).body
					if d := report.Diff("alone", alone, "side by side", body); d != "" {
						t.Errorf("run %d differs:\n%s", i, d)
					}
				})
			}
		})
	}
	requireNoSchemas(t, url, pgdb.SchemaPrefix+"session_16", "parallel scenario runs")
	requireNoSchemas(t, url, pgdb.SchemaPrefix+"governance_threshold", "parallel scenario runs")
}

// --keep-db-at on PostgreSQL keeps the schema as --keep-db does, writes
// nothing in DIR and says so; inspect --table/--columns/--where reads the
// kept schema in its READ ONLY transaction.
func TestPostgresKeepDBAtKeepsTheSchema(t *testing.T) {
	admin := pgtest.URL(t)
	dir := t.TempDir()
	c := commonOptions{NoReport: true, KeepDBAt: dir, Database: admin, db: pgtest.ServerDatabase(t)}
	out, stderr, err := runProbe(context.Background(), c, probeRun{rows: 4})
	if err != nil || stderr != "" {
		t.Fatalf("run: %v, stderr %q", err, stderr)
	}
	kept := runSchemas(t, admin, probeSchemas)
	if len(kept) != 1 || !strings.Contains(out.dbNote, kept[0]) {
		t.Fatalf("kept schemas %v, note %q; want the run's schema kept", kept, out.dbNote)
	}
	defer dropSchemas(t, admin, kept...)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d files written in --keep-db-at's directory on PostgreSQL", len(entries))
	}
	if note := keepAtNote(c); !strings.Contains(note, "keeps the schema, as --keep-db does") || !strings.Contains(note, dir+" is not used") {
		t.Errorf("keepAtNote = %q", note)
	}
	m := inspectHint.FindStringSubmatch(out.dbNote)
	if m == nil {
		t.Fatalf("no inspect hint in %q", out.dbNote)
	}
	code, shown, errOut := runLab(t, "inspect", "--db", m[1], "--table", "OutboxMessages", "--columns", "messagekey",
		"--where", "MessageKey IN ('PAY-002', 'PAY-004')")
	if code != cmdutil.ExitOK || !strings.Contains(shown, "\noutboxmessages (2 rows where") ||
		!strings.Contains(shown, "  messagekey\n  PAY-002\n  PAY-004\n") || strings.Contains(shown, "sqlite3") {
		t.Errorf("inspect --table --where on PostgreSQL: exit %d, %s\n%s", code, errOut, shown)
	}
	code, _, errOut = runLab(t, "inspect", "--db", m[1], "--table", "OutboxMessages", "--where", "NoSuchColumn = 1")
	if code != cmdutil.ExitUsage || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, `--where "NoSuchColumn = 1" on outboxmessages: `) {
		t.Errorf("a bad --where on PostgreSQL: exit %d, %q", code, errOut)
	}
}
