package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/plot"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// TestSchemaOnlyWithTheFlag runs a scenario that writes a schema section:
// by default neither the terminal nor the report shows it; --schema brings
// it back in both.
func TestSchemaOnlyWithTheFlag(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	for _, withSchema := range []bool{false, true} {
		dir := t.TempDir()
		args := []string{"session-16-retry-with-dead-letter", "--report-dir", dir}
		if withSchema {
			args = append(args, "--schema")
		}
		out, code := runCLI(t, args...)
		if code != cmdutil.ExitOK {
			t.Fatalf("%v: exit %d:\n%s", args, code, out)
		}
		reports, _ := filepath.Glob(filepath.Join(dir, "session-16", "*.txt"))
		if len(reports) != 1 {
			t.Fatalf("%v: %d reports, want 1", args, len(reports))
		}
		raw, err := os.ReadFile(reports[0])
		if err != nil {
			t.Fatal(err)
		}
		for what, text := range map[string]string{"output": out, "report": string(raw)} {
			title := report.SchemaTitle
			if what == "output" { // the terminal shows no compare marker
				title = strings.TrimSpace(strings.TrimSuffix(title, report.DatabaseMarker))
			}
			has := strings.Contains(text, "\n## "+title+"\n")
			ddl := strings.Contains(text, "CREATE TABLE")
			if has != withSchema || ddl != withSchema {
				t.Errorf("--schema=%v: the %s has the schema section %v, CREATE TABLE %v; want both %v",
					withSchema, what, has, ddl, withSchema)
			}
		}
		// The schema says how to show a run, not what runs: not a parameter.
		if strings.Contains(string(raw), `"name":"schema"`) {
			t.Errorf("--schema recorded as a scenario parameter")
		}
	}
}

// envProbe is a scenario that records the environment the harness gave it
// and draws one figure.
type envProbe struct{ got *scenarios.Env }

func (envProbe) Validate() error { return nil }

func (p envProbe) Run(_ context.Context, env scenarios.Env) (*report.Report, error) {
	*p.got = env
	r := report.New("session-99-probe", report.Experiment)
	r.Title("Probe")
	r.Section(report.SchemaTitle)
	r.Line("CREATE TABLE Probe (Id INTEGER);")
	r.Section("Result")
	r.Figure(plot.Bars("waits", "Waits per attempt", []plot.Bar{{Label: "attempt 1", Value: 100, Note: "100 ms"}}, 20, 0))
	r.Check("ran", true, "yes")
	r.Checks("Checks")
	r.Verdict("ok", "not ok")
	return r, nil
}

// TestVerboseAndProgressReachTheRun binds the common flags as every scenario
// does, parses --verbose, and requires the run's Env to carry it and the
// progress writer, and an SVG written beside the report to be captioned
// with the scenario and its non-default flags.
func TestVerboseAndProgressReachTheRun(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		var c commonOptions
		fs := pflag.NewFlagSet("probe", pflag.ContinueOnError)
		attempts := fs.Int("max-attempts", 3, "")
		fs.Int("batch", 10, "")
		bindCommon(fs, &c)
		args := []string{"--max-attempts", "5", "--batch", "10", "--report-dir", t.TempDir()}
		if verbose {
			args = append(args, "--verbose")
		}
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		c.params = scenarioParams(fs)
		var progress bytes.Buffer
		c.progress = &progress
		var env scenarios.Env
		s := &scenarios.Scenario{Name: "session-99-probe", Family: "test"}
		var shown string
		out, err := execute(context.Background(), s, envProbe{&env}, c, "outboxlab x", &bytes.Buffer{},
			func(header string, rep *report.Report, _ report.Result) { shown = header + rep.Body() })
		if err != nil {
			t.Fatal(err)
		}
		if *attempts != 5 {
			t.Fatalf("--max-attempts = %d", *attempts)
		}
		if env.Verbose != verbose {
			t.Errorf("--verbose=%v: Env.Verbose = %v", verbose, env.Verbose)
		}
		if env.Progress != &progress {
			t.Errorf("Env.Progress = %v, want the harness's progress writer", env.Progress)
		}
		if strings.Contains(shown, "CREATE TABLE") {
			t.Errorf("schema shown without --schema:\n%s", shown)
		}
		if len(out.result.Plots) != 1 {
			t.Fatalf("plots %v, want 1", out.result.Plots)
		}
		svg, err := os.ReadFile(out.result.Plots[0])
		if err != nil {
			t.Fatal(err)
		}
		// Only the flag that differs: --batch was typed at its default.
		want := "<title>session-99-probe --max-attempts=5 — Waits per attempt</title>"
		if !strings.Contains(string(svg), want) {
			t.Errorf("SVG lacks %q:\n%.300s", want, svg)
		}
	}
}

// TestCaptionNamesOnlyNonDefaultFlags: a run at its defaults is captioned
// with its name alone.
func TestCaptionNamesOnlyNonDefaultFlags(t *testing.T) {
	params := []report.Param{{Name: "batch", Value: "10", Default: "10", Set: true}, {Name: "seed", Value: "7", Default: "1"},
		{Name: "dead-letter", Value: "false", Default: "true"}}
	if got, want := runCaption("jitter-wave", params), "jitter-wave --seed=7 --dead-letter=false"; got != want {
		t.Errorf("runCaption = %q, want %q", got, want)
	}
	if got := runCaption("jitter-wave", params[:1]); got != "jitter-wave" {
		t.Errorf("runCaption at the defaults = %q, want the name alone", got)
	}
}
