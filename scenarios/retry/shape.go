package retry

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/report"
	"outboxlab/scenarios"
)

// The report shapes of the family, written once: every experiment ends with
// a judgement, and both BEFORE/AFTER pairs (the retry storm, the visibility
// timeout) fill in scenarios.PairReport around their own story.

// judgement is how a report ends: the checks it recorded under a title, why
// the failed ones failed for these flags, and the verdict.
type judgement struct {
	title      string // the checks' section
	pass, fail string // the verdict when every check passed, and otherwise
}

// seedChecks is the checks' title of the experiments, which reproduce the
// properties of a script of the course.
const seedChecks = "Checks (the properties the course states)"

// write prints r's checks, the reasons why gives for the failed ones (by
// check name), and the verdict.
func (j judgement) write(r *report.Report, why func(failed map[string]bool) []string) {
	r.Checks(j.title)
	explain(r, why(failedChecks(r)))
	r.Verdict(j.pass, j.fail)
}

// designRun is what a pair's report tells of a design's run before its own
// story: the tables it created, its timeline and when it ended.
type designRun interface {
	schema() []outbox.Table
	timeline() []string
	endedAt() time.Time
}

// pairReport is what the family's BEFORE/AFTER pairs (the retry storm, the
// visibility timeout) fill in of scenarios.PairReport: the setup, the story
// told after the own run's schema and timeline, the comparison's BEFORE and
// AFTER column titles, the metrics, and each design's scenario's checks.
type pairReport[R designRun] struct {
	pair                  scenarios.Pair
	after                 bool // the scenario's own design is the AFTER one
	setup                 func(r *report.Report)
	story                 func(r *report.Report, own, before, after R) // the sections between the timeline and the comparison
	columns               []string
	metrics               []scenarios.Metric[R]
	beforeSide, afterSide pairSide[R]
}

// pairSide is what one design's scenario judges: check records its checks
// from both runs (its own is the one of its kind), why explains the failed
// ones, and pass and fail are its verdicts.
type pairSide[R designRun] struct {
	pass, fail string
	check      func(r *report.Report, before, after R)
	why        func(failed map[string]bool, before, after R) []string
}

// run drives both designs and writes the report (scenarios.PairReport). A
// BEFORE scenario's checks assert that it reproduced the failure mode.
// --verbose prints the whole timeline; by default runs of alike lines are
// condensed.
func (p pairReport[R]) run(ctx context.Context, env scenarios.Env, drive func(ctx context.Context, db dialect.Database, after bool) (R, error)) (*report.Report, error) {
	side, title := p.beforeSide, "Safety checks (the failure mode, reproduced)"
	if p.after {
		side, title = p.afterSide, "Safety checks"
	}
	return scenarios.PairReport[R]{
		Pair: p.pair, After: p.after, Family: "retry", Drive: drive,
		Setup: func(r *report.Report, _ R) { p.setup(r) },
		Story: func(r *report.Report, own, before, after R) {
			writeRunTimeline(r, own, env.Verbose)
			p.story(r, own, before, after)
		},
		Metrics:     p.metrics,
		Columns:     append([]string{"Metric (real run)"}, p.columns...),
		ChecksTitle: title,
		Checks:      func(r *report.Report, _, before, after R) { side.check(r, before, after) },
		Explain:     func(r *report.Report, before, after R) { explain(r, side.why(failedChecks(r), before, after)) },
		Verdict:     func(R) (string, string) { return side.pass, side.fail },
	}.Run(ctx, env)
}

// writeRunTimeline writes the tables a run created, its timeline (condensed
// unless verbose) and when it ended.
func writeRunTimeline(r *report.Report, run designRun, verbose bool) {
	scenarios.SchemaSection(r, run.schema())
	r.Section("Timeline (scenario clock)")
	lines := run.timeline()
	if !verbose {
		lines = condenseTimeline(lines)
	}
	for _, l := range lines {
		r.Line(wrapTimelineLine(l))
	}
	r.Linef("Run ended at %s scenario time", clock.Stamp(run.endedAt()))
}

// metricRows writes a table of runs, one row each: the run's name under
// first, then a cell for each metric with a label. It is MetricTable turned
// on its side, for the experiments whose runs are the rows.
func metricRows[F any](r *report.Report, first string, metrics []scenarios.Metric[F], names []string, runs []F) {
	header := []string{first}
	for _, f := range metrics {
		if f.Label != "" {
			header = append(header, f.Label)
		}
	}
	rows := make([][]string, len(runs))
	for i, x := range runs {
		rows[i] = []string{names[i]}
		for _, f := range metrics {
			if f.Label == "" {
				continue
			}
			if f.Show != nil {
				rows[i] = append(rows[i], f.Show(x))
			} else {
				rows[i] = append(rows[i], fmt.Sprint(f.Value(x)))
			}
		}
	}
	r.Table(header, rows)
}

// recordMetricsOf records the keyed metrics of x, one of several runs an
// experiment compares, each key followed by "_" and the run's key:
// restarts_on_catch, peak_full_jitter.
func recordMetricsOf[F any](r *report.Report, metrics []scenarios.Metric[F], run string, x F) {
	scenarios.RecordMetricsAs(r, metrics, x, func(key string) string { return key + "_" + run })
}

// timelineIndent is where a timeline line's text starts after its time
// stamp: the column a condensed run's summary line starts at.
const timelineIndent = 15

// wrapTimelineLine breaks a timeline line wider than report.MaxWidth at
// spaces, continuing under the event's text (report.EventIndent: after its
// stamp and its worker's column).
func wrapTimelineLine(line string) string {
	indent := report.EventIndent(line)
	var out []string
	for report.Width(line) > report.MaxWidth {
		cut := -1
		for i, c := range line {
			if c == ' ' && i > len(indent) && report.Width(line[:i]) <= report.MaxWidth {
				cut = i
			}
		}
		if cut < 0 {
			break
		}
		out = append(out, line[:cut])
		line = indent + strings.TrimLeft(line[cut:], " ")
	}
	return strings.Join(append(out, line), "\n")
}

// alikeParts are what may differ between two timeline lines that tell the
// same thing: the time stamps, the message keys and the send numbers.
var alikeParts = regexp.MustCompile(`\d\d:\d\d:\d\d\.\d{3}Z|NTF-\d+|#\d+`)

// condenseTimeline keeps the first line of each run of three or more
// consecutive lines that differ only in their time stamps, keys and send
// numbers, and says in one line which keys the rest were about.
func condenseTimeline(lines []string) []string {
	var out []string
	for i := 0; i < len(lines); {
		shape := alikeParts.ReplaceAllString(lines[i], "")
		j := i + 1
		for j < len(lines) && alikeParts.ReplaceAllString(lines[j], "") == shape {
			j++
		}
		out = append(out, lines[i])
		switch {
		case j-i == 2:
			out = append(out, lines[i+1])
		case j-i > 2:
			first, last := keyOf(lines[i+1]), keyOf(lines[j-1])
			out = append(out, fmt.Sprintf("%s… and %s alike, %s to %s (--verbose lists them)",
				strings.Repeat(" ", timelineIndent), report.Plural(j-i-1, "line"), first, last))
		}
		i = j
	}
	return out
}

// keyOf is the first message key in a timeline line.
func keyOf(line string) string {
	return regexp.MustCompile(`NTF-\d+`).FindString(line)
}
