package cli

// Running one scenario: validate, run it in a fresh directory and database,
// say what went wrong or where the database is, then show and write the
// report.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/changelog"
	"outboxlab/core/claim"
	"outboxlab/core/dialect"
	"outboxlab/core/plot"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// outcome is a finished run.
type outcome struct {
	result  report.Result
	dbNote  string           // where the database is, or that it was deleted
	sql     []claim.Traced   // with --show-sql: the statements the engine ran, in order
	backend string           // the database the run used, as --show-sql names it
	own     dialect.Database // the scenario's own database (its location never printed)
	// stopped is the event --stop-after ended the run after; nil when it finished.
	stopped *changelog.Step
	log     changelog.Log // what the run's events changed (changelog)
	// spelling is how the report spells the log's tables and columns.
	spelling changelog.Spelling
}

// execute validates opts, runs the scenario in a fresh temporary directory,
// shows the report through show (before it is written, so a write failure
// still leaves the run on screen) and writes it unless told not to.
func execute(ctx context.Context, s *scenarios.Scenario, opts scenarios.Options, c commonOptions, cmdline string, stderr io.Writer, show showFunc) (_ outcome, err error) {
	if err := validateRun(opts, c); err != nil {
		return outcome{}, err
	}
	started := time.Now()
	var dir string
	if !c.NoReport {
		reportDir, err := cmdutil.ResolveReportDir(c.ReportDir, stderr)
		if err != nil {
			return outcome{}, err
		}
		if dir, err = report.PrepareDir(reportDir, s.Group()); err != nil {
			return outcome{}, cmdutil.CannotRun(err)
		}
	}
	cmdutil.SweepRunDirs()
	tmp, err := cmdutil.MakeRunDir(s.Name)
	if err != nil {
		return outcome{}, cmdutil.CannotRun(err)
	}
	// On PostgreSQL the directory stays temporary (some scenarios write
	// files); --keep-db keeps the schemas.
	keepDir := c.KeepDB && c.db.IsZero()
	if keepDir {
		cmdutil.KeepRunDir(tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	env := scenarios.NewEnv(tmp)
	keepAt := c.KeepDBAt != "" && c.db.IsZero() // --keep-db-at DIR on SQLite: the file is made in DIR
	if keepAt {
		path, err := reserveKeptFile(c.KeepDBAt, s.Name, started)
		if err != nil {
			return outcome{}, err
		}
		env.Database = dialect.File(path)
	}
	var pg *postgresRun
	if !c.db.IsZero() {
		if pg, err = openPostgres(ctx, tmp, c.db, s.Name, c.keepsDB()); err != nil {
			return outcome{}, err
		}
		defer func() { err = withCleanup(err, pg.close(ctx), stderr) }()
		env = pg.env
	}
	env.Verbose, env.Progress = c.Verbose, c.progress
	env.Recorder = changelog.New(c.StopAfter)

	trace := &claim.Trace{}
	if c.ShowSQL {
		ctx = claim.WithTrace(ctx, trace)
	}
	rep, err := runGuarded(ctx, s, opts, env, c.params)
	err = errors.Join(err, env.Recorder.Close())
	if errors.Is(err, changelog.ErrStopped) {
		return stoppedRun(ctx, env, pg, keepDir, keepAt, tmp), nil
	}
	noteNotStopped(stderr, c.StopAfter, env.Recorder)
	if err := runError(ctx, err, s.Name, c, keepDir || keepAt, env, pg); err != nil {
		return outcome{}, err
	}
	dbNote := databaseNote(ctx, env, pg, keepDir, keepAt, tmp)
	res, err := present(rep, env.Recorder.Log(), s.Name, c,
		report.Meta{Started: started, Command: cmdline, Database: dbNote, Version: cmdutil.Version}, dir, stderr, show)
	if err != nil {
		return outcome{}, err
	}
	return outcome{result: res, dbNote: dbNote, sql: trace.Entries(), backend: env.Database.Location().Kind().String(), own: env.Database,
		log: env.Recorder.Log(), spelling: changelog.SpellingOf(rep.Body())}, nil
}

// showFunc shows a finished run on the terminal: the header the terminal
// gets (report.TerminalHeader) and the report, whose body the report file
// keeps as it is.
type showFunc func(header string, rep *report.Report, res report.Result)

// validateRun refuses bad parameters (exit 2) before anything is created:
// the scenario's own, --student, and those the database cannot run in time.
func validateRun(opts scenarios.Options, c commonOptions) error {
	if err := scenarios.CheckDeclared(opts); err != nil {
		return cmdutil.Usage(err)
	}
	if err := opts.Validate(); err != nil {
		return cmdutil.Usage(err)
	}
	if err := checkStudent(c.Student); err != nil {
		return err
	}
	if c.StopAfter < 0 || c.StopAfter > maxStopAfter {
		return cmdutil.Usagef("--stop-after must be an event number from 1 to %d, got %d", maxStopAfter, c.StopAfter)
	}
	if v, ok := opts.(scenarios.BackendValidator); ok {
		backend := dialect.SQLite
		if !c.db.IsZero() {
			backend = c.db.Dialect()
		}
		if err := v.ValidateOn(backend.Name()); err != nil {
			return cmdutil.Usage(err)
		}
	}
	return nil
}

// runError is the error a run that was interrupted or failed ends with
// (exit 3), saying where a kept database is; nil for a run that finished.
func runError(ctx context.Context, err error, name string, c commonOptions, keepDir bool, env scenarios.Env, pg *postgresRun) error {
	if ctx.Err() != nil {
		msg := fmt.Sprintf("%s interrupted; no report was written", name)
		if keepDir {
			msg += "; database kept at " + env.Database.Location().Path()
		} else if pg != nil && c.keepsDB() {
			msg += "; " + pg.note(context.WithoutCancel(ctx))
		}
		return cmdutil.Interrupted("%s", msg)
	}
	if err != nil {
		err = fmt.Errorf("run %s: %w", name, err)
		if pg != nil && c.keepsDB() {
			err = fmt.Errorf("%w; %s", err, pg.note(ctx))
		}
		return cmdutil.CannotRun(cmdutil.WithoutPassword(err, c.db.String()))
	}
	return nil
}

// databaseNote says where the run's database is, or that it is gone, for
// the report's header; a kept directory with no database is removed, and so
// is a --keep-db-at file the run never opened (keepAt: env.Database is in
// the user's directory).
func databaseNote(ctx context.Context, env scenarios.Env, pg *postgresRun, keepDir, keepAt bool, tmp string) string {
	switch {
	case pg != nil:
		return pg.note(ctx)
	}
	path := env.Database.Location().Path()
	switch {
	case missing(path) || keepAt && empty(path):
		if keepDir {
			os.RemoveAll(tmp)
		}
		if keepAt {
			os.Remove(path) // reserved, never used: nothing to keep
		}
		return noDatabase
	case keepDir || keepAt:
		return sqliteNote(path, true)
	}
	return sqliteNote(path, false)
}

// present shows a finished run's report (show) and, unless --no-report,
// writes it and its pictures to dir and updates the index.
func present(rep *report.Report, log changelog.Log, name string, c commonOptions, meta report.Meta, dir string, stderr io.Writer,
	show showFunc) (report.Result, error) {
	if !c.Schema {
		rep.DropSection(report.SchemaTitle)
	}
	res := rep.Result()
	res.Version, res.Params = cmdutil.Version, c.params
	rec := record(res)
	rec.Student, rec.Shown = strings.TrimSpace(c.Student), c.shown()
	meta.Record = rec
	show(report.TerminalHeader(meta), rep, res)
	if c.NoReport {
		return res, nil
	}
	content := []byte(report.Header(meta) + rep.Body())
	figures := captioned(rep.Figures(), runCaption(name, c.params))
	var err error
	if res.ReportPath, res.Plots, err = report.WriteAll(dir, name, meta.Started, content, figures); err != nil {
		return res, cmdutil.CannotRun(err)
	}
	if err := writeReplay(res, log, changelog.SpellingOf(rep.Body())); err != nil {
		return res, cmdutil.CannotRun(err)
	}
	cmdutil.UpdateIndex(filepath.Dir(dir), res.ReportPath, stderr)
	return res, nil
}

// runCaption names a run as a figure's caption says it: the scenario and
// the flags that differ from the defaults, as typed (--max-attempts=5).
func runCaption(name string, params []report.Param) string {
	caption := name
	for _, p := range report.NonDefault(params) {
		caption += " " + p.String()
	}
	return caption
}

// captioned returns figures, each captioned, so that an SVG saved beside a
// report still says which run drew it.
func captioned(figures []plot.Figure, caption string) []plot.Figure {
	out := make([]plot.Figure, len(figures))
	for i, f := range figures {
		out[i] = f.Captioned(caption)
	}
	return out
}

// missing reports whether no file is at path.
func missing(path string) bool {
	_, err := os.Stat(path)
	return os.IsNotExist(err)
}

// record is what the report file's header records of a run.
func record(res report.Result) *report.Record {
	exit := cmdutil.ExitOK
	if !res.Passed {
		exit = cmdutil.ExitChecksFailed
	}
	return &report.Record{Scenario: res.Scenario, Kind: res.Kind, Version: res.Version, Params: res.Params,
		Checks: res.Checks, Metrics: res.Metrics, Verdict: res.Verdict, Passed: res.Passed, ExitCode: exit}
}

// runGuarded runs a scenario, turning a panic into an error so that the
// temporary directory is still removed and the user sees one line, and ends
// its report with the scenario's Next section, computed from the run's
// flags (params).
func runGuarded(ctx context.Context, s *scenarios.Scenario, opts scenarios.Options, env scenarios.Env,
	params []report.Param) (rep *report.Report, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if rep, err = opts.Run(ctx, env); err == nil && rep != nil {
		s.WriteNext(rep, scenarios.NextRun{Params: params, Worker: cmdutil.WorkerDay(s)})
	}
	return rep, err
}
