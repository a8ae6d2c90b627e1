package scenarios

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"sync"

	"outboxlab/core/changelog"
	"outboxlab/core/dialect"
	"outboxlab/core/pgdb"
)

// Env is what the harness gives a run: a fresh directory and its databases.
//
// A database (dialect.Database) is on SQLite (the default) a file in Dir;
// on PostgreSQL a schema of its own on the server, created for this run and
// dropped after it. Store openers take either. Its location may hold a
// password: never print one. Print the name that was given to DB instead,
// and mark lines that describe the database itself (report.DatabaseMarker).
type Env struct {
	Dir      string           // a fresh temporary directory, removed after the run unless kept
	Database dialect.Database // the run's main database (DB("outbox")): a SQLite file or a PostgreSQL schema

	// Verbose asks for the full ledgers and tables (--verbose); by default a
	// report shows what its lesson needs and says how to see the rest.
	Verbose bool

	// Progress is where a run that takes over a second may say how far it
	// has got (a line redrawn with "\r"); nil shows nothing. The harness
	// sets it only when stderr is a terminal that can redraw a line: it is
	// never part of the output or the report.
	Progress io.Writer

	// Recorder records, after each timeline event, the rows it changed
	// (changelog); nil records nothing. RunPair hands it each design's
	// database, and a design's drive calls changelog.Seeded and Event.
	Recorder *changelog.Recorder

	pg *pgDatabases // nil on SQLite
}

// NewEnv is the SQLite environment of a run in dir: its main database is
// outbox.db there.
func NewEnv(dir string) Env {
	return Env{Dir: dir, Database: dialect.File(filepath.Join(dir, "outbox.db"))}
}

// dbName is what a database name may be: it becomes a file name on SQLite
// and part of a schema name on PostgreSQL.
var dbName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,23}$`)

// DB returns the run's database named name ("outbox" is the main one,
// Database; others are "partner", "ceiling" and the like): name.db
// in Dir on SQLite, a schema of its own on PostgreSQL, created on the first
// call. The same name gives the same database for the whole run.
func (e Env) DB(ctx context.Context, name string) (dialect.Database, error) {
	if !dbName.MatchString(name) {
		return dialect.Database{}, fmt.Errorf("database name %q: want lower-case letters, digits and dashes", name)
	}
	if e.pg == nil {
		return dialect.File(filepath.Join(e.Dir, name+".db")), nil
	}
	return e.pg.schema(ctx, name)
}

// Dialect is the dialect of the run's databases: what a run asks of its
// database beyond the SQL every store writes once (can it be copied whole,
// do its writers take turns), never which database it is.
func (e Env) Dialect() dialect.Dialect { return e.Database.Dialect() }

// NewPostgresEnv is the environment of one run of scenario on the server
// named by server: its main database is a fresh schema there (see
// pgdb.CreateRunSchema), and DB creates one more per name. Close drops them,
// or keeps them.
func NewPostgresEnv(ctx context.Context, dir string, server dialect.Database, scenario string) (Env, error) {
	pg := &pgDatabases{url: server.Location().URL(), scenario: scenario, runs: map[string]*pgdb.Run{}}
	e := Env{Dir: dir, pg: pg}
	main, err := pg.schema(ctx, "outbox")
	if err != nil {
		return Env{}, err
	}
	e.Database = main
	return e, nil
}

// Schemas returns the run's PostgreSQL schemas, main first (nil on SQLite).
func (e Env) Schemas() []*pgdb.Run {
	if e.pg == nil {
		return nil
	}
	e.pg.mu.Lock()
	defer e.pg.mu.Unlock()
	out := make([]*pgdb.Run, 0, len(e.pg.order))
	for _, name := range e.pg.order {
		out = append(out, e.pg.runs[name])
	}
	return out
}

// Close ends a PostgreSQL run: it drops every schema the run created, or,
// with keep, keeps them and returns the URLs inspect --db reads them with
// (secret: print pgdb.Redact of each). On SQLite it does nothing: the
// harness removes Dir.
func (e Env) Close(ctx context.Context, keep bool) (kept []string, err error) {
	for _, r := range e.Schemas() {
		if keep {
			u, kerr := r.Keep(ctx)
			err = errors.Join(err, kerr)
			if kerr == nil {
				kept = append(kept, u)
			}
			continue
		}
		err = errors.Join(err, r.Drop(ctx))
	}
	return kept, err
}

type pgDatabases struct {
	url, scenario string

	mu    sync.Mutex
	runs  map[string]*pgdb.Run
	order []string
}

func (p *pgDatabases) schema(ctx context.Context, name string) (dialect.Database, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.runs[name]; ok {
		return dialect.Parse(r.URL)
	}
	label := p.scenario
	if name != "outbox" {
		label += "-" + name
	}
	r, err := pgdb.CreateRunSchema(ctx, p.url, label)
	if err != nil {
		return dialect.Database{}, err
	}
	p.runs[name] = r
	p.order = append(p.order, name)
	return dialect.Parse(r.URL)
}
