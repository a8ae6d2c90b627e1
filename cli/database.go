package cli

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/dblocation"
	"outboxlab/core/dialect"
	"outboxlab/core/pgdb"
	"outboxlab/scenarios"
)

// The PostgreSQL backend of a run (docs/CONTRACT.md, "Run it on PostgreSQL"):
// --database URL, or OUTBOXLAB_DATABASE_URL (or OUTBOXLAB_DATABASE holding
// a URL: pgdb.Selected), selects a server; each run gets a
// schema of its own there, dropped afterwards on every path, as the
// temporary SQLite directory is removed.

// closeTimeout bounds dropping (or keeping) a run's schemas; it is also the
// budget of that work after a Ctrl-C, when the run's context is gone.
const closeTimeout = 15 * time.Second

func bindDatabase(fs *pflag.FlagSet, c *commonOptions) {
	fs.StringVar(&c.Database, "database", "",
		"run on the PostgreSQL server at this postgres:// `URL`, in a schema of its own dropped afterwards (default: $"+pgdb.EnvVar+", else $"+pgdb.LegacyEnvVar+" when it holds a URL, else a temporary SQLite file)")
}

// selectDatabase makes c.db, the database the run uses, from the flag or
// else the environment (c.Database), and checks it: anything but a
// postgres:// or postgresql:// URL (any letter case) is a usage error. No
// URL keeps SQLite (c.db zero).
func selectDatabase(cmd *cobra.Command, c *commonOptions) error {
	var source string
	c.Database, source = pgdb.Selected(c.Database, cmd.Flags().Changed("database"), os.Getenv)
	if c.Database == "" {
		if cmd.Flags().Changed("database") {
			return cmdutil.Usagef("--database must not be empty (leave it out to run on a temporary SQLite file)")
		}
		return nil
	}
	if i := strings.IndexFunc(c.Database, cmdutil.UnsafeRune); i >= 0 {
		return cmdutil.Usagef("%s must not contain control characters", source)
	}
	if n := utf8.RuneCountInString(c.Database); n > cmdutil.MaxURLLength {
		return cmdutil.Usagef("%s is %d characters long; at most %d are accepted", source, n, cmdutil.MaxURLLength)
	}
	if _, err := pgdb.ParseURL(c.Database); err != nil {
		return cmdutil.DatabaseError(fmt.Errorf("%s: %w", source, err), c.Database)
	}
	// From here on the run, its children and its cleanup see the URL with
	// its scheme lower-cased (dblocation): "POSTGRES://" read as keywords
	// would reach the driver's default server instead.
	loc, _ := dblocation.ParsePostgres(c.Database)
	c.db = dialect.At(loc)
	return nil
}

// redactArgs is the command line with every password in it redacted, for the
// report header (a --database URL typed with its password).
func redactArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellQuote(pgdb.Redact(a))
	}
	return strings.Join(out, " ")
}

// probeBudget bounds the first connection of a run when the URL sets no
// connect_timeout: with the process's start it keeps "a server that does not
// answer exits 3 within 5 seconds" (docs/CONTRACT.md), where the driver's own
// timeout, 5 s per attempt, would not.
const probeBudget = 4 * time.Second

// probeDatabase connects once to the server at rawURL and disconnects: a
// server that is down, or does not answer within the budget, or refuses the
// login, fails here in one line. `all` calls it once, so it fails once, not
// once per scenario.
func probeDatabase(ctx context.Context, server dialect.Database) error {
	rawURL := server.Location().URL()
	if u, err := url.Parse(rawURL); err == nil && !u.Query().Has("connect_timeout") {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, probeBudget)
		defer cancel()
	}
	db, err := pgdb.Open(ctx, rawURL)
	if err != nil {
		return cmdutil.DatabaseError(err, rawURL)
	}
	return db.Close()
}

// postgresRun is the PostgreSQL side of one run: its schemas and what the
// header says of them.
type postgresRun struct {
	env  scenarios.Env
	url  string
	keep bool
}

// openPostgres checks that the server answers (probeDatabase), removes the
// schemas of lab runs whose process is gone, then creates this run's main
// schema. A server that is down, silent or refuses us fails here, in one
// line within 5 s, and leaves nothing behind.
func openPostgres(ctx context.Context, dir string, server dialect.Database, scenario string, keep bool) (*postgresRun, error) {
	rawURL := server.Location().URL()
	if err := probeDatabase(ctx, server); err != nil {
		return nil, err
	}
	// Best effort: a schema the sweep may not drop is another user's.
	pgdb.SweepOrphans(ctx, rawURL)
	env, err := scenarios.NewPostgresEnv(ctx, dir, server, scenario)
	if err != nil {
		if ctx.Err() != nil {
			return nil, cmdutil.Interrupted("%s interrupted; no report was written", scenario)
		}
		return nil, cmdutil.DatabaseError(err, rawURL)
	}
	return &postgresRun{env: env, url: rawURL, keep: keep}, nil
}

// used reports whether the run created a table anywhere: a scenario that
// computes without a database leaves its main schema empty.
func (p *postgresRun) used(ctx context.Context) bool {
	schemas := p.env.Schemas()
	if len(schemas) > 1 {
		return true
	}
	var n int
	err := schemas[0].DB.QueryRowContext(ctx,
		`SELECT count(*) FROM pg_class WHERE relnamespace = $1::regnamespace`, schemas[0].Schema).Scan(&n)
	return err != nil || n > 0 // unsure: keep it like a used one
}

// note is the header's and the last lines' account of the database, one
// thing a line (see report.Labelled), so that each fits the terminal: the
// backend and the server (password redacted), each schema, and what became
// of them.
func (p *postgresRun) note(ctx context.Context) string {
	if !p.used(ctx) {
		p.keep = false // nothing to inspect: the empty schema is dropped
		return noDatabase
	}
	lines := []string{"PostgreSQL " + pgdb.Redact(p.url)}
	for _, r := range p.env.Schemas() {
		lines = append(lines, "schema "+r.Schema)
	}
	if !p.keep {
		return strings.Join(append(lines, "(temporary; dropped after the run)"), "\n")
	}
	lines = append(lines, keptNote)
	for _, r := range p.env.Schemas() {
		u, err := pgdb.WithSchema(p.url, r.Schema, "")
		if err != nil {
			continue
		}
		lines = append(lines, "outboxlab "+pgdb.InspectHint(u))
	}
	return strings.Join(lines, "\n")
}

// close drops the run's schemas, or keeps them, with a fresh context when
// the run's own was cancelled (Ctrl-C): the cleanup must still happen. It
// returns what went wrong as one clause ("" if nothing), each distinct
// trouble once (one per schema would repeat itself), password scrubbed:
// see withCleanup.
func (p *postgresRun) close(ctx context.Context) string {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
	defer cancel()
	_, err := p.env.Close(cctx, p.keep)
	if err == nil {
		return ""
	}
	var parts []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = cmdutil.OneLine(cmdutil.Scrub(l, p.url)); l != "" && !slices.Contains(parts, l) {
			parts = append(parts, l)
		}
	}
	return "cleanup: " + strings.Join(parts, "; ")
}

// withCleanup is a run's outcome with its cleanup trouble (close's clause):
// one line, cause first (docs/CONTRACT.md). A run that failed keeps its
// error, and its class, with the clause after it; a run that succeeded says
// the clause alone on stderr, and keeps its exit code.
func withCleanup(err error, clause string, stderr io.Writer) error {
	switch {
	case clause == "":
		return err
	case err == nil:
		fmt.Fprintf(stderr, "outboxlab: %s\n", clause)
		return nil
	}
	return clauseError{err, clause}
}

// clauseError is err with a clause after it; errors.Is, errors.As and the
// exit code see err.
type clauseError struct {
	err    error
	clause string
}

func (e clauseError) Error() string { return e.err.Error() + "; " + e.clause }
func (e clauseError) Unwrap() error { return e.err }

// noDatabase is the header's database line of a run that used none.
const noDatabase = "none (this scenario computes without a database)"

// keptNote introduces the commands that read a kept database.
const keptNote = "(kept; inspect it with:)"

// sqliteNote is the account of a run's SQLite file (see postgresRun.note).
func sqliteNote(path string, kept bool) string {
	if !kept {
		return path + "\n(temporary; deleted after the run)"
	}
	return path + "\n" + keptNote + "\noutboxlab inspect --db " + shellQuote(path)
}

// shellQuote quotes s for a shell when it holds anything but the
// characters of a plain path.
func shellQuote(s string) string {
	plain := func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:@,", r))
	}
	if s != "" && strings.IndexFunc(s, plain) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
