package cli

// --show-sql: the statements the run's workers executed, as the engine
// recorded them (claim.Trace), printed after the report on the terminal and
// never written into it.

import (
	"database/sql"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
	"outboxlab/core/report"
	"outboxlab/scenarios"
	"outboxlab/scenarios/wassal"
)

// sqlTitle heads what --show-sql prints.
const sqlTitle = "The SQL the workers ran"

// writeSQL prints the statements of trace: each distinct statement once, as
// the database received it (S1, S2 …), then every run of one in the order
// the workers ran them, with its parameters and the rows it affected. Day
// 16's scenarios show the course's claim beside the lab's.
func writeSQL(w io.Writer, s *scenarios.Scenario, backend string, own dialect.Database, trace []claim.Traced) {
	width := report.TerminalWidth(w)
	hang := func(label, text string) string { return hanging(label, text, width) }
	r := report.New(s.Name, s.Kind)
	r.Section(fmt.Sprintf("%s (%s; %s, not part of the report)", sqlTitle, backend, report.Plural(len(trace), "statement")))
	if len(trace) == 0 {
		r.Line("  This run's workers did not go through the claim engine: its statements are the")
		r.Line("  scenario's own (see the timeline).")
		io.WriteString(w, r.Body())
		return
	}
	if s.Day == 16 {
		r.Line("The course's claim (Day 16, §4), one row at a time, SELECT then UPDATE:")
		for _, l := range strings.Split(wassal.CourseClaim, "\n") {
			if report.Width(l)+2 > width { // the comment goes under its clause, not past the edge
				if code, comment, ok := strings.Cut(l, "  --"); ok {
					r.Line("  " + strings.TrimRight(code, " "))
					l = strings.Repeat(" ", len(code)-len(strings.TrimLeft(code, " "))+2) + "--" + comment
				}
			}
			r.Line("  " + l)
		}
		r.Line("")
		r.Line(hang("", "The lab's claim is the same gate in one statement: the lease (Status 'Pending' or "+
			"LockedUntilUtc passed) and the backoff (NextAttemptUtc), then the lease taken, AttemptCount "+
			"and the fencing token counted, for up to the batch's rows at once."))
		r.Line("")
	}
	index := map[string]int{}
	var order []claim.Traced
	for _, t := range trace {
		if _, ok := index[t.Query]; !ok {
			index[t.Query] = len(order) + 1
			order = append(order, t)
		}
	}
	r.Line("Statements, each as the database received it:")
	for i, t := range order {
		label := fmt.Sprintf("  S%-2d %-11s ", i+1, t.Kind)
		r.Line(hang(label, strings.Join(strings.Fields(t.Query), " ")))
	}
	r.Line("")
	r.Line(hang("", "In the order they ran (parameters in order; → the rows each affected or returned):"))
	var database dialect.Database
	for i, t := range trace {
		if t.Database != database {
			database = t.Database
			r.Line(hang("  ", designLine(s, t.Database == own)))
		}
		label := fmt.Sprintf("  %3d  S%-2d %-11s ", i+1, index[t.Query], t.Kind)
		r.Line(hang(label, formatArgs(t.Args)+" → "+report.Plural(t.Rows, "row")))
	}
	io.WriteString(w, r.Body())
}

// hanging is label then text wrapped to width, its continuation lines
// indented under the text.
func hanging(label, text string, width int) string {
	pad := strings.Repeat(" ", report.Width(label))
	lines := strings.Split(report.Wrap(text, max(width-len(pad), 20)), "\n")
	for i := range lines {
		if i == 0 {
			lines[i] = label + lines[i]
		} else {
			lines[i] = pad + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

// designLine heads the statements run on one design's database: the
// scenario's own, or the other design a pair drives on the same seeded data.
func designLine(s *scenarios.Scenario, own bool) string {
	switch {
	case own:
		return fmt.Sprintf("On this scenario's own database (the %s design):", s.Kind)
	case s.Pair != "":
		return "On the other design's database (" + s.Pair + ", the same seeded data):"
	}
	return "On another database of the run:"
}

// formatArgs writes a statement's parameters as SQL literals, a named one
// as :name = value.
func formatArgs(args []any) string {
	out := make([]string, len(args))
	for i, a := range args {
		if n, ok := a.(sql.NamedArg); ok {
			out[i] = ":" + n.Name + " = " + literal(n.Value)
			continue
		}
		out[i] = literal(a)
	}
	if len(out) == 0 {
		return "(no parameters)"
	}
	return strings.Join(out, ", ")
}

// literal is one parameter as SQL would spell it.
func literal(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	case time.Time:
		return "'" + clock.ISO(x) + "'"
	case sql.NullString:
		if !x.Valid {
			return "NULL"
		}
		return literal(x.String)
	case sql.NullInt64:
		if !x.Valid {
			return "NULL"
		}
		return strconv.FormatInt(x.Int64, 10)
	case sql.NullTime:
		if !x.Valid {
			return "NULL"
		}
		return literal(x.Time)
	case []byte:
		return literal(string(x))
	}
	return fmt.Sprint(v)
}
