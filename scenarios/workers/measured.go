package workers

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"outboxlab/core/plot"
	"outboxlab/core/report"
)

// writeMeasured writes what the drains measured on this machine: every line
// ends with [measured], and the conclusion is computed from these numbers.
func (o *throughputOptions) writeMeasured(r *report.Report, db backend, verbose bool, ceiling float64, drains []*drainRun) {
	measured := func(line string) { r.Line(line + " " + report.MeasuredMarker) }
	measuredTable := func(header []string, rows [][]string) {
		table := report.RenderTable(header, rows)
		for _, l := range strings.Split(strings.TrimSuffix(table, "\n"), "\n") {
			measured(l)
		}
	}
	measured(fmt.Sprintf("Raw ceiling: %.0f single-row %s/s %s (%d timed)", ceiling,
		db.pick("BEGIN IMMEDIATE; UPDATE; COMMIT", "BEGIN; UPDATE; COMMIT"), db.pick("here", "on this server"),
		ceilingTransactions))
	measuredTable(metricColumns(o.measuredMetrics(drains), drains))
	measured(fmt.Sprintf("Messages/s: the median of the %s; range: the slowest and the fastest round;",
		report.Plural(len(drains[0].rounds), "round")))
	measured(fmt.Sprintf("speed-up: the median ratio to %s with the same claim size, round by round; judged:",
		report.Plural(o.Workers[0], "worker")))
	measured("by the rule below; per worker: the fewest and the most messages one worker processed.")
	fastest := drains[0]
	for _, d := range drains {
		if d.rate() > fastest.rate() {
			fastest = d
		}
	}
	measured(fmt.Sprintf("The fastest median, %s's %.0f/s, is %.2f× the raw ceiling.", fastest.cfg.label(),
		fastest.rate(), fastest.rate()/ceiling))
	if verbose {
		measured("Messages each worker processed:")
		var rows [][]string
		for _, d := range drains {
			for _, t := range d.tallies {
				rows = append(rows, []string{d.cfg.label(), t.Worker, strconv.Itoa(t.Processed)})
			}
		}
		measuredTable([]string{"Configuration", "Worker", "Messages"}, rows)
	}
	for _, l := range conclusion(db, o.HandlerDelay > 0, o.findings(drains)) {
		measured(l)
	}
	r.Figure(rateFigure(db, drains))
}

// rateFigure draws each configuration's messages/s as bars, as an SVG beside
// the report only: its numbers are measured, and the body holds nothing
// measured but [measured] lines.
func rateFigure(db backend, drains []*drainRun) plot.Figure {
	bars := make([]plot.Bar, len(drains))
	for i, d := range drains {
		bars[i] = plot.Bar{Label: d.cfg.label(), Value: d.rate(), Note: fmt.Sprintf("%.0f/s", d.rate())}
	}
	f := plot.Bars("messages-per-second", "Messages per second, each configuration (wall clock, this machine, "+
		db.pick("SQLite", "PostgreSQL")+")", bars, 40, 0,
		plot.Axes{X: "messages processed per second (wall clock)", Y: "workers, claim size"})
	f.Text = ""
	return f
}

// findings are the comparisons the conclusion judges.
type findings struct {
	batch, first int          // the batched claim size; the baseline's worker count
	rounds       int          // rounds per configuration
	workers      []workerFind // claims of 1: each other configuration against the baseline
	batching     comparison   // claims of batch against claims of 1, first workers
}

// workerFind is one configuration with claims of 1 against the baseline.
type workerFind struct {
	label string // "4 workers", "1 worker (2nd)"
	comparison
}

func (o *throughputOptions) findings(drains []*drainRun) findings {
	f := findings{batch: o.Batch, first: o.Workers[0]}
	one := baseline(drains, f.first, 1)
	f.rounds = len(one.rounds)
	for _, d := range drains {
		if d.cfg.Batch != 1 || d == one {
			continue
		}
		label := strings.TrimSuffix(d.cfg.label(), ", claim 1")
		f.workers = append(f.workers, workerFind{label: label, comparison: compare(d, one)})
	}
	f.batching = compare(baseline(drains, f.first, o.Batch), one)
	return f
}

// any reports whether a configuration with claims of 1 was judged diff.
func (f findings) any(diff difference) bool {
	return slices.ContainsFunc(f.workers, func(w workerFind) bool { return w.diff == diff })
}

// conclusion says what this run's numbers show, on the run's database, by
// the rule in noise.go: the lesson the database's design predicts where
// the numbers agree, and what the numbers say where they do not.
func conclusion(db backend, slowHandler bool, f findings) []string {
	lines := []string{
		fmt.Sprintf("Conclusion, from this run's %s per configuration. A difference counts only when",
			report.Plural(f.rounds, "round")),
		fmt.Sprintf("the two configurations' rounds barely mix: of the %d pairs of a round of each, at most",
			f.rounds*f.rounds),
		fmt.Sprintf("%d go against it (two series of one configuration do so less than 1 time in %d), and",
			allowedAgainst(f.rounds, f.rounds), int(1/noiseChance)),
		fmt.Sprintf("the median of the round-by-round ratios is beyond %.1f×; else it is inside the noise.", noiseRatio),
	}
	if f.rounds < minRounds {
		lines = append(lines, fmt.Sprintf("With fewer than %d rounds nothing is told apart (--repeats %d or more).",
			minRounds, minRounds))
	}
	if len(f.workers) > 0 {
		lines = append(lines, fmt.Sprintf("- Claims of 1, against %s (median ratio of the rounds, lowest–highest):",
			report.Plural(f.first, "worker")))
		width := 0
		for _, w := range f.workers {
			width = max(width, len([]rune(w.label)))
		}
		for _, w := range f.workers {
			lines = append(lines, fmt.Sprintf("  %-*s  %s  %s (%s)", width, w.label, w.ratioText(), w.diff, w.mixText()))
		}
		var verdict string
		switch {
		case f.any(faster) && f.any(slower):
			verdict = "Some worker counts paid, others made the drain slower."
		case f.any(faster):
			verdict = "More workers paid."
		case f.any(slower):
			verdict = "More workers made the drain slower."
		case f.rounds < minRounds:
			verdict = "Whether more workers paid, these rounds cannot tell."
		default:
			verdict = "More workers bought nothing this run could tell from the noise."
		}
		lines = append(lines, "  "+verdict)
	}
	lines = append(lines, fmt.Sprintf("- Claims of %d against claims of 1, with %s: %s (%s).",
		f.batch, report.Plural(f.first, "worker"), f.batching.ratioText(), f.batching.mixText()),
		"  "+map[difference]string{faster: "Batching paid.", slower: "Batching made the drain slower.",
			inNoise: "Batching bought nothing this run could tell from the noise.",
			untold:  "Whether batching paid, these rounds cannot tell."}[f.batching.diff])
	paid := f.any(faster)
	switch {
	case len(f.workers) == 0 || f.rounds < minRounds:
	case db.serial && !paid:
		lines = append(lines, "- SQLite lets one writer in at a time: more workers wait for the lock,",
			"  and fewer write transactions per message (batching) is the lever.")
	case db.serial && slowHandler:
		lines = append(lines, "- More workers paid on SQLite in this run: they overlapped what happens outside",
			"  the write lock (the handler, --handler-delay), since the writes still take turns.")
	case db.serial:
		lines = append(lines, "- More workers were faster on SQLite in this run, though the handler waits for nothing:",
			"  the writes still take turns, so what they overlapped is the work between them.")
	case paid:
		lines = append(lines, "- PostgreSQL let the workers commit side by side (FOR UPDATE SKIP LOCKED): they",
			"  scale until the server's CPU or the WAL flush each commit waits for limits them.")
	default:
		lines = append(lines, "- The workers did not scale on this server: its CPU or the WAL flush each commit",
			fmt.Sprintf("  waits for was already the limit with %s.", report.Plural(f.first, "worker")))
	}
	if f.batching.diff != faster && f.rounds >= minRounds {
		lines = append(lines, "- Batching did not pay in this run: a bigger --messages measures it more steadily.")
	}
	return lines
}
