package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/dialect"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// commonOptions are the flags every scenario has (CONTRACT.md).
type commonOptions struct {
	ReportDir string
	NoReport  bool
	JSON      bool
	KeepDB    bool
	KeepDBAt  string // --keep-db-at DIR: keep the SQLite file in DIR (on PostgreSQL, as --keep-db)
	Database  string // --database as given: a postgres:// URL, or "" for a temporary SQLite file; secret: print pgdb.Redact
	Schema    bool   // keep the report's schema section (report.SchemaTitle)
	Verbose   bool   // full ledgers and tables (scenarios.Env.Verbose)
	Student   string // whose run this is, recorded in the report's header
	ShowSQL   bool   // --show-sql: print the statements the workers ran after the report
	Brief     bool   // the terminal shows the story alone (report.Brief); the report is whole
	StopAfter int    // --stop-after K: end the run after its K-th event (0: run to the end)
	Step      bool   // --step: step through the run's events in the terminal after it

	// db is the database selectDatabase made of Database, parsed once: the
	// server the run's schemas go on; zero for a temporary SQLite file.
	db dialect.Database

	// progress is where a run may redraw a progress line (scenarios.Env.Progress):
	// stderr when it is a terminal that can redraw one, else nil.
	progress io.Writer

	// params are the scenario's parameters as the run uses them, read from
	// its flags (scenarioParams) before execute: the header and --json record them.
	params []report.Param
}

// notParameters are the flags that say where and how to show a run, not
// what runs: they are not recorded as the scenario's parameters.
var notParameters = map[string]bool{
	"report-dir": true, "no-report": true, "json": true, "keep-db": true, "keep-db-at": true, "database": true, "help": true,
	"schema": true, "verbose": true, "student": true, "show-sql": true, "brief": true, "stop-after": true, "step": true,
}

// shown are the presentation flags the run was given, as typed (--schema):
// they change what a body shows, not what runs, so the header records them
// apart from the parameters (report.Record.Shown) and verify reruns with them.
func (c commonOptions) shown() []string {
	var shown []string
	if c.Schema {
		shown = append(shown, "--schema")
	}
	if c.Verbose {
		shown = append(shown, "--verbose")
	}
	return shown
}

// checkStudent refuses a --student name that is blank or too long.
func checkStudent(name string) error {
	// Its length is checked with every string flag's (checkStringFlags).
	if name != "" && strings.TrimSpace(name) == "" {
		return cmdutil.Usagef("--student must not be empty")
	}
	return nil
}

// scenarioParams walks a scenario command's flags and returns its parameters,
// defaults included, in the flag set's (sorted) order. Generic: every flag a
// scenario binds is a parameter, whatever its type.
func scenarioParams(fs *pflag.FlagSet) []report.Param {
	params := []report.Param{}
	fs.VisitAll(func(f *pflag.Flag) {
		if notParameters[f.Name] {
			return
		}
		value, def := f.Value.String(), f.DefValue
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			// As typed: --poison-key=PAY-003,PAY-004, not [PAY-003 PAY-004].
			value, def = strings.Join(sv.GetSlice(), ","), strings.Trim(def, "[]")
		}
		params = append(params, report.Param{Name: f.Name, Value: value, Default: def, Set: f.Changed})
	})
	return params
}

func bindCommon(fs *pflag.FlagSet, c *commonOptions) {
	fs.StringVar(&c.ReportDir, "report-dir", "reports", "where reports go (one folder per group inside it)")
	fs.BoolVar(&c.NoReport, "no-report", false, "write no report file")
	fs.BoolVar(&c.JSON, "json", false, "print the result as one JSON document instead of the text")
	fs.BoolVar(&c.Schema, "schema", false, "show the tables' schema (CREATE TABLE) in the output and the report")
	fs.BoolVar(&c.Verbose, "verbose", false, "show the full ledgers and tables a default run leaves out")
	fs.StringVar(&c.Student, "student", "", "whose run this is, recorded in the report's header")
	bindDatabase(fs, c)
}

func newScenarioCmd(s *scenarios.Scenario, cmdline string) *cobra.Command {
	var common commonOptions
	cmd := &cobra.Command{
		Use:     s.Name + " [flags]",
		Aliases: s.Aliases,
		Short:   s.Summary,
		Long:    scenarioLong(s),
		Example: scenarioExample(s),
		GroupID: s.Family,
		Args:    cmdutil.NoArgs,
	}
	opts := s.Bind(cmd.Flags())
	bindCommon(cmd.Flags(), &common)
	cmd.Flags().BoolVar(&common.KeepDB, "keep-db", false, "keep the database (the temporary SQLite file, or the PostgreSQL schema) and print how to inspect it")
	cmd.Flags().StringVar(&common.KeepDBAt, "keep-db-at", "", "keep the SQLite database as a new file in this directory (PostgreSQL: as --keep-db)")
	cmd.Flags().BoolVar(&common.ShowSQL, "show-sql", false, "after the report, show the statements the workers ran (claim, settle, retry, dead-letter), with their parameters and rows, in the order they ran; not written into the report")
	cmd.Flags().BoolVar(&common.Brief, "brief", false, "show the setup in a line or two, the timeline, the checks and the verdict (the report keeps everything)")
	bindStopAfter(cmd.Flags(), &common)
	bindStep(cmd.Flags(), &common)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		common.params = scenarioParams(cmd.Flags())
		if err := checkKeepAt(cmd.Flags(), common); err != nil {
			return err
		}
		if common.ShowSQL && common.JSON {
			return cmdutil.Usage(fmt.Errorf("--show-sql prints the statements on the terminal after the report; --json prints one JSON document: use one of them"))
		}
		if err := checkStep(cmd, common); err != nil {
			return err
		}
		if report.Redrawable(cmd.ErrOrStderr()) {
			common.progress = cmd.ErrOrStderr()
		}
		if err := selectDatabase(cmd, &common); err != nil {
			return err
		}
		out, err := execute(cmd.Context(), s, opts, common, cmdline, cmd.ErrOrStderr(), showRun(cmd, common))
		if err != nil {
			return err
		}
		if out.stopped != nil {
			return printStopped(cmd, out, common)
		}
		if common.Step {
			if err := stepThrough(cmd, out); err != nil {
				return err
			}
		}
		if err := printOutcome(cmd, s, common, out); err != nil {
			return err
		}
		if !out.result.Passed {
			return cmdutil.ErrChecksFailed
		}
		return nil
	}
	return cmd
}

// printOutcome ends a run on the terminal: the JSON document, or after the
// report (shown as it ran) the SQL with --show-sql and where the report,
// the figures and the database are.
func printOutcome(cmd *cobra.Command, s *scenarios.Scenario, common commonOptions, out outcome) error {
	w := cmd.OutOrStdout()
	if common.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(runJSON(out)); err != nil && !closedOutput(err) {
			return cmdutil.CannotRun(fmt.Errorf("print result: %w", err))
		}
		if common.keepsDB() {
			io.WriteString(cmd.ErrOrStderr(), cmdutil.Printed(cmd, report.Labelled("database: ", out.dbNote+keepAtNote(common))))
		}
	} else {
		if common.ShowSQL {
			fmt.Fprintln(w)
			writeSQL(w, s, out.backend, out.own, out.sql)
		}
		fmt.Fprintln(w)
		if out.result.ReportPath != "" {
			fmt.Fprintf(w, "report:   %s\n", out.result.ReportPath)
		}
		for _, p := range out.result.Plots {
			fmt.Fprintf(w, "plot:     %s\n", p)
		}
		// A database that is gone is told once, in the report's header;
		// without a report, or when it is kept, the terminal tells it.
		if out.result.ReportPath == "" || common.keepsDB() {
			io.WriteString(w, cmdutil.Printed(cmd, report.Labelled("database: ", out.dbNote+keepAtNote(common))))
		}
	}
	return nil
}

// scenarioLong is a scenario's --help text: what it shows, then its place
// in the course: its family, its kind and what it is to the others.
func scenarioLong(s *scenarios.Scenario) string {
	kind := string(s.Kind)
	switch {
	case s.Pair != "":
		kind += "; pairs with " + s.Pair
	case s.Answers != "":
		kind += "; answers " + s.Answers
	}
	var b strings.Builder
	for _, f := range [][2]string{{"Kind:    ", kind}, {"Family:  ", scenarios.FamilyTitle(s.Family)}, {"Source:  ", scenarios.Source(s.Family)}} {
		b.WriteString(report.Labelled(f[0], report.Wrap(f[1], report.MaxWidth-len(f[0]))))
	}
	return strings.TrimRight(s.Long, "\n") + "\n\n" + strings.TrimRight(b.String(), "\n")
}

// notExercisedExample is the comment over the example of a scenario's
// NotExercisedWith flags.
const notExercisedExample = "# nothing for the checks to judge: NOT EXERCISED, exit 1"

// scenarioExample is the scenario's own examples, then the one under which
// its mechanism is not exercised, then the one that makes its checks fail,
// so every --help shows how to watch a check catch something. A BEFORE
// whose failure no legal flag prevents once it is exercised fails only by
// not being exercised: its two are one example.
func scenarioExample(s *scenarios.Scenario) string {
	ex := strings.TrimRight(s.Example, "\n")
	if len(s.NotExercisedWith) > 0 {
		ex += "\n  " + notExercisedExample + "\n  outboxlab " + s.Name + " " + strings.Join(s.NotExercisedWith, " ")
	}
	if len(s.FailsWith) == 0 || slices.Equal(s.FailsWith, s.NotExercisedWith) {
		return ex
	}
	because := "the fix switched off"
	switch {
	case s.Kind == report.Before:
		because = "the failure does not happen"
	case s.Kind == report.Experiment:
		because = "the property breaks"
	}
	return fmt.Sprintf("%s\n  # %s: the checks fail, exit 1\n  outboxlab %s %s", ex, because, s.Name, strings.Join(s.FailsWith, " "))
}

// closedOutput reports whether err is a write to the lab's own output
// (os.Stdout or os.Stderr) that the reader has closed (`| head`): the run
// still counts, so it is not an error. Only those: a broken pipe anywhere
// else (a database server that went away under its connection, a worker
// process that closed its stdin) is a run that could not happen.
func closedOutput(err error) bool {
	var pe *os.PathError
	return errors.Is(err, syscall.EPIPE) && errors.As(err, &pe) && pe.Op == "write" &&
		(pe.Path == os.Stdout.Name() || pe.Path == os.Stderr.Name())
}

// showRun is how a run's report reaches the terminal: on standard output,
// laid out for its width (report.View: the body as the report file keeps
// it, a narrower terminal's reflowed), its commands (the header's, Next's)
// started as the user started the lab and never broken (forLayout), with
// --brief the story alone (report.Brief), coloured when that is a terminal,
// and not at all with --json (the JSON document is printed after the run
// instead).
func showRun(cmd *cobra.Command, common commonOptions) showFunc {
	return func(header string, rep *report.Report, res report.Result) {
		if common.JSON {
			return
		}
		w := cmd.OutOrStdout()
		width := report.TerminalWidth(w)
		body := rep.Body()
		if common.Brief {
			body = report.Brief(body)
		}
		content := report.View(cmdutil.ForLayout(cmd, header), width) + report.View(cmdutil.ForLayout(cmd, body), width, rep.Figures()...)
		if cmdutil.UseColor(w) {
			content = cmdutil.Colorize(content, res)
		}
		io.WriteString(w, content)
	}
}
