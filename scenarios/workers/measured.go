package workers

import (
	"fmt"
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
	measuredTable(metricColumns(o.measuredMetrics(ceiling, drains), drains))
	measured(fmt.Sprintf("Speed-up: against %s with the same claim size; × ceiling: against the raw ceiling;",
		report.Plural(o.Workers[0], "worker")))
	measured("per worker: the fewest and the most messages one worker processed.")
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

// findings are the measured ratios the conclusion judges.
type findings struct {
	batch      int     // the batched claim size
	first      int     // the baseline's worker count
	best, most int     // the fastest worker count with claims of 1; the largest
	bestGain   float64 // messages/s of best workers over first, claims of 1
	mostGain   float64 // the same for most workers
	batchGain  float64 // messages/s of claims of batch over claims of 1, first workers
}

func (o *throughputOptions) findings(drains []*drainRun) findings {
	f := findings{batch: o.Batch, first: o.Workers[0], best: o.Workers[0], most: o.Workers[0]}
	one := baseline(drains, f.first, 1)
	for _, w := range o.Workers {
		gain := baseline(drains, w, 1).rate() / one.rate()
		if gain > f.bestGain {
			f.best, f.bestGain = w, gain
		}
		if w >= f.most {
			f.most, f.mostGain = w, gain
		}
	}
	f.batchGain = baseline(drains, f.first, o.Batch).rate() / one.rate()
	return f
}

// A ratio of two messages/s of one short run moves by tens of percent from
// run to run on a loaded machine: below gainNone it is no gain, from
// gainClear on a clear one, in between a little.
const (
	gainNone  = 1.2
	gainClear = 1.5
)

func gainWords(g float64, clear, little, none, loss string) string {
	switch {
	case g >= gainClear:
		return clear
	case g >= gainNone:
		return little
	case g > 1/gainNone:
		return none
	}
	return loss
}

// conclusion says what this run's numbers show, on the run's database: the
// lesson the database's design predicts where the numbers agree, and what
// the numbers say where they do not.
func conclusion(db backend, slowHandler bool, f findings) []string {
	lines := []string{"Conclusion, computed from this run's numbers:"}
	many := len(map[int]bool{f.first: true, f.best: true, f.most: true}) > 1
	if many {
		line := fmt.Sprintf("- Claims of 1: %s reached %.2f× the messages/s of %s", report.Plural(f.best, "worker"),
			f.bestGain, report.Plural(f.first, "worker"))
		if f.best == f.first {
			line = fmt.Sprintf("- Claims of 1: no worker count beat %s; %d workers reached %.2f× its messages/s",
				report.Plural(f.first, "worker"), f.most, f.mostGain)
		} else if f.most != f.best {
			line += fmt.Sprintf("; %d, %.2f×", f.most, f.mostGain)
		}
		lines = append(lines, line+".", "  "+gainWords(f.bestGain, "More workers paid.", "More workers paid a little.",
			"More workers bought nothing.", "More workers made the drain slower."))
	}
	lines = append(lines, fmt.Sprintf("- Claims of %d reached %.1f× the messages/s of claims of 1, with %s.",
		f.batch, f.batchGain, report.Plural(f.first, "worker")),
		"  "+gainWords(f.batchGain, "Batching paid.", "Batching paid a little.", "Batching bought nothing.",
			"Batching made the drain slower."))
	scaled := f.bestGain >= gainClear
	switch {
	case !many:
	case db.serial && !scaled:
		lines = append(lines, "- SQLite lets one writer in at a time: more workers wait for the lock,",
			"  and fewer write transactions per message (batching) is the lever.")
	case db.serial && slowHandler:
		lines = append(lines, "- More workers paid on SQLite in this run: they overlapped what happens outside",
			"  the write lock (the handler, --handler-delay), since the writes still take turns.")
	case db.serial:
		lines = append(lines, "- More workers looked faster on SQLite in this run, though the handler does nothing",
			"  outside the write lock: short drains on a busy machine vary this much; a bigger",
			"  --messages measures more steadily.")
	case scaled && f.most != f.best && f.mostGain*gainNone < f.bestGain:
		lines = append(lines, fmt.Sprintf("- PostgreSQL let %d workers commit side by side (FOR UPDATE SKIP LOCKED);", f.best),
			fmt.Sprintf("  with %d, this server's CPU or the WAL flush each commit waits for was the limit.", f.most))
	case scaled:
		lines = append(lines, "- PostgreSQL let the workers commit side by side (FOR UPDATE SKIP LOCKED): they",
			"  scale until the server's CPU or the WAL flush each commit waits for limits them.")
	default:
		lines = append(lines, "- The workers did not scale on this server: its CPU or the WAL flush each commit",
			fmt.Sprintf("  waits for was already the limit with %s.", report.Plural(f.first, "worker")))
	}
	if f.batchGain < gainNone {
		lines = append(lines, "- Batching did not pay in this run: a bigger --messages measures it more steadily.")
	}
	return lines
}
