package wassal

import (
	"context"
	"fmt"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
	"outboxlab/core/plot"
	"outboxlab/core/provider"
	"outboxlab/core/report"
	"outboxlab/scenarios"

	"github.com/spf13/pflag"
)

// What every Wassal day's report is made of. Each day tells its story in the
// same sections and order: setup, schema, timeline, per-message table,
// ledgers, the BEFORE vs AFTER metrics, safety checks, a verdict and the
// JSON metrics. writeDay is that order, written once; a day fills it in.

// day is one Wassal day: its BEFORE/AFTER pair and the verdicts its reports end on.
type day struct {
	number int // the course day, 13 to 17; 18 is the lab's own continuation
	scenarios.Pair
	reproduced string   // BEFORE, every check passed: the failure mode shown
	held       string   // AFTER, every check passed: the fix held
	broken     string   // AFTER, a check failed
	columns    []string // the metrics table's header: label, BEFORE, AFTER
	source     string   // the header's Source line, when not the course's (Day 18, the lab's own)
}

// verdictNotReproduced is every day's BEFORE verdict when a check failed.
const verdictNotReproduced = "THE FAILURE MODE WAS NOT REPRODUCED"

// design is what a day gives the report skeleton: R is one design's run,
// F the metrics read from what that run left behind.
type design[R, F any] interface {
	writeSetup(r *report.Report, own R)
	// story is the run's own story, told between the setup and the metrics.
	story(own R, f F) story
	metrics(run R) F
	// metricList is every metric of the day, declared once: its row in the
	// BEFORE vs AFTER table and its JSON metric.
	metricList() []scenarios.Metric[F]
	// checks records the safety checks of the scenario's own design.
	checks(r *report.Report, own R, f F)
}

// story is what a run left to tell: the tables it created, its timeline, a
// picture drawn under it, the per-message table and the ledgers.
type story struct {
	tables      []outbox.Table
	timeline    []string
	figure      *plot.Figure // drawn after the timeline, when set
	perMessage  func(r *report.Report)
	ledger      Ledger
	design      outbox.Design // the run's store: its outbox ledger shows only its columns (when it has an outbox)
	emptyOutbox string        // said instead of an outbox table with no rows, when set
	own         []ledgerTable // the day's own tables, written among the ledgers
	// ledgersOnRequest prints the payment, outbox and provider ledgers only
	// with --verbose (env.Verbose); by default one line says so. The day's
	// own tables are written either way.
	ledgersOnRequest bool
	// footnote is written after the story, before the metrics: an aside
	// the story needs, not the setup.
	footnote string
}

// ledgerTable is a table of a day's own, written among the ledgers.
type ledgerTable struct {
	title string
	write func(r *report.Report)
}

// runDay runs a day's scenario as a scenarios.PairReport: drive runs one
// design (the AFTER one when after is set) on a fresh database, both designs
// run, and the report is the scenario's own (after: the AFTER scenario's).
func runDay[R, F any](ctx context.Context, env scenarios.Env, d day, after bool, x design[R, F],
	drive func(ctx context.Context, db dialect.Database, after bool) (R, error)) (*report.Report, error) {
	return dayReport(d, after, env.Verbose, x, drive).Run(ctx, env)
}

// dayReport is the spec of a day's report: verbose brings back the ledgers
// a story prints only on request.
func dayReport[R, F any](d day, after, verbose bool, x design[R, F],
	drive func(ctx context.Context, db dialect.Database, after bool) (R, error)) scenarios.PairReport[R] {
	pass, fail := d.reproduced, verdictNotReproduced
	if after {
		pass, fail = d.held, d.broken
	}
	return scenarios.PairReport[R]{
		Pair: d.Pair, After: after, Family: "wassal", Source: d.source, Drive: drive,
		Setup:       x.writeSetup,
		Story:       func(r *report.Report, own, _, _ R) { writeStory(r, x.story(own, x.metrics(own)), verbose) },
		Metrics:     scenarios.MetricsOf(x.metricList(), x.metrics),
		Columns:     d.columns,
		ChecksTitle: "Safety checks",
		Checks:      func(r *report.Report, own, _, _ R) { x.checks(r, own, x.metrics(own)) },
		Verdict:     func(R) (string, string) { return pass, fail },
	}
}

// writeStory writes what a day's run left to tell: the tables it created,
// its timeline and the picture drawn under it, the per-message table and
// the ledgers.
func writeStory(r *report.Report, s story, verbose bool) {
	scenarios.SchemaSection(r, s.tables)
	r.Section("Timeline (scenario clock)")
	for _, line := range s.timeline {
		for _, l := range wrapTimeline(line) {
			r.Line(l)
		}
	}
	if s.figure != nil {
		if s.figure.Text != "" {
			r.Line("")
		}
		r.Figure(*s.figure)
	} else if f, ok := timelinePlot(s.timeline); ok {
		r.Figure(f) // the picture beside the report; the terminal keeps the timeline's text
	}
	r.Section("Per-message table")
	s.perMessage(r)
	writeLedgers(r, s, verbose || !s.ledgersOnRequest)
	if s.footnote != "" {
		r.Line("")
		r.Line(report.Wrap(s.footnote, report.MaxWidth))
	}
}

// writeLedgers writes what a run left behind: the payments, the outbox, the
// day's own tables, then every call the provider received. Without full,
// only the day's own tables are written, and a line says how to see the rest.
func writeLedgers(r *report.Report, s story, full bool) {
	if !full {
		for _, t := range s.own {
			r.Section(t.title)
			t.write(r)
		}
		r.Line("")
		ledgers := "The Payments and OutboxMessages ledgers"
		if !s.design.HasOutbox() {
			ledgers = "The Payments ledger"
		}
		r.Line(ledgers + " and the provider's calls: --verbose prints them in full.")
		return
	}
	r.Section("Payment ledger (Payments table)")
	WritePaymentLedger(r, s.ledger.Payments)
	r.Section("Outbox ledger (OutboxMessages table)")
	switch {
	case len(s.ledger.Messages) == 0 && s.emptyOutbox != "":
		r.Line(s.emptyOutbox)
	case s.design.HasOutbox():
		writeOutboxLedger(r, s.ledger.Messages, s.design)
	default:
		scenarios.WriteOutboxLedger(r, s.ledger.Messages)
	}
	for _, t := range s.own {
		r.Section(t.title)
		t.write(r)
	}
	r.Section("Provider ledger (every call)")
	WriteProviderLedger(r, s.ledger)
}

// databaseLine is a line true of one database only: what SQLite does, its
// writers taking turns (serial, see dialect.Dialect.SerialWriters), or what
// the PostgreSQL server does instead. It ends with report.DatabaseMarker,
// so compare, and the comparison of a run on each, skip it.
func databaseLine(serial bool, sqlite, server string) string {
	if !serial {
		return server + " " + report.DatabaseMarker
	}
	return sqlite + " " + report.DatabaseMarker
}

// paymentRange says how many payments a day seeds: "6 payments PAY-001..PAY-006".
func paymentRange(n int) string {
	keys := PaymentKeys(n)
	return fmt.Sprintf("%d payments %s..%s", n, keys[0], keys[len(keys)-1])
}

// declinedText says which key the provider declines, for a setup line.
func declinedText(key string) string {
	if key == "" {
		return "no key is declined"
	}
	return key + " is declined"
}

// writeClockLine is every setup's last line.
func writeClockLine(r *report.Report, start time.Time) {
	r.Linef("Clock     scenario time starts %s; nothing sleeps", clock.ISO(start))
}

// txIDs are the numbers behind the check every day keeps, BEFORE and AFTER:
// transaction ids only from the provider, on Paid payments only.
type txIDs struct {
	fake          int // payments showing an outcome the provider never gave
	paidWithID    int // Paid, with an id the provider issued
	otherWithID   int // not Paid, yet carrying an id
	paidWithoutID int // Paid, without an id the provider issued
}

func readTxIDs(l Ledger, p *provider.Provider) txIDs {
	t := txIDs{fake: l.FakeSuccesses()}
	t.paidWithID, t.otherWithID, t.paidWithoutID = l.TxIDs(p)
	return t
}

// invariant records the transaction-id check, fake outcomes included, as an
// invariant: it must hold in both designs of every day, and this is the only
// place it is declared.
func (t txIDs) invariant(r *report.Report) {
	name, held, detail := t.judge()
	r.Invariant(name, held, detail)
}

// check records the transaction-id check as a demonstrating one (Day 17's
// reports, which keep their own roles).
func (t txIDs) check(r *report.Report) {
	name, held, detail := t.judge()
	r.Check(name, held, detail)
}

// judge is the transaction-id check: its name, whether it held, and the
// counts it read.
func (t txIDs) judge() (name string, held bool, detail string) {
	detail = fmt.Sprintf("%d Paid w/ id, %d Failed w/ id, %d fake", t.paidWithID, t.otherWithID, t.fake)
	if t.paidWithoutID > 0 {
		detail += fmt.Sprintf(", %d Paid without a provider id", t.paidWithoutID)
	}
	return "tx ids only from provider, Paid only", t.otherWithID == 0 && t.paidWithoutID == 0 && t.fake == 0, detail
}

// registerDay registers a day's BEFORE and AFTER scenarios. What makes them
// a pair is set here, once for every day: their names, family, day, kinds
// and pairing, and bind, told which design is the scenario's own (after:
// the AFTER one), which declares the flags and their ranges.
func registerDay(d day, bind func(fs *pflag.FlagSet, after bool) scenarios.Options, before, after scenarios.Scenario) {
	for i, s := range []*scenarios.Scenario{&before, &after} {
		own := i == 1
		s.Name, s.Pair, s.Kind = d.Before, d.After, report.Before
		if own {
			s.Name, s.Pair, s.Kind = d.After, d.Before, report.After
		}
		s.Family, s.Day = "wassal", d.number
		s.Bind = func(fs *pflag.FlagSet) scenarios.Options { return bind(fs, own) }
		scenarios.Register(s)
	}
}
