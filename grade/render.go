package grade

import (
	"fmt"
	"slices"
	"strings"

	"outboxlab/core/clock"
	"outboxlab/core/report"
)

// describeChange is one change log row as a timeline line.
func describeChange(c change) string {
	switch c.Op {
	case "INSERT":
		switch c.Table {
		case "AuditLog":
			return fmt.Sprintf("audit row %d: %s by %s", c.RowID, clip(c.New["action"], 24), clip(c.New["actor"], 24))
		case "Redrives":
			return fmt.Sprintf("redrive %d %s: released (batch %s, was AttemptCount %s)", c.RowID,
				c.New["messagekey"], c.New["batch"], c.New["originalattemptcount"])
		}
		return fmt.Sprintf("row INSERTED into %s (Id %d)", c.Table, c.RowID)
	case "DELETE":
		return fmt.Sprintf("row DELETED from %s (Id %d)", c.Table, c.RowID)
	}
	if c.Table == "Redrives" {
		var parts []string
		for _, col := range []string{"Outcome", "VerifiedTransactionId"} {
			if c.changedCol(col) {
				n, _ := c.value(col)
				parts = append(parts, fmt.Sprintf("%s %s", col, orDash(n)))
			}
		}
		return fmt.Sprintf("redrive %d %s: %s", c.RowID, c.New["messagekey"], strings.Join(parts, ", "))
	}
	var parts []string
	for _, col := range []string{"Status", "AttemptCount", "ProviderTransactionId"} {
		if c.changedCol(col) {
			o, _ := c.old(col)
			n, _ := c.value(col)
			parts = append(parts, fmt.Sprintf("%s %s→%s", col, orDash(o), clip(orDash(n), 24)))
		}
	}
	for _, col := range []string{"LockedBy", "NextAttemptUtc", "LastError"} {
		if !c.changedCol(col) {
			continue
		}
		if n, ok := c.value(col); ok {
			if t, ok := parseISO(n); ok {
				n = clock.DayStamp(t)
			}
			parts = append(parts, fmt.Sprintf("%s %s", col, clip(n, 24)))
		} else {
			parts = append(parts, col+" cleared")
		}
	}
	if len(parts) == 0 {
		parts = []string{"no column the timeline shows"}
	}
	key := c.New["messagekey"]
	if c.Table == "Payments" {
		key = c.New["paymentkey"]
	}
	what := "message"
	if c.Table == "Payments" {
		what = "payment"
	}
	return fmt.Sprintf("%s %d %s: %s", what, c.RowID, key, strings.Join(parts, ", "))
}

// render writes a variation's setup, timeline and tables into rep.
func (g *graded) render(rep *report.Report, title, tag string) {
	rep.Section(title)
	for _, l := range g.r.day.describe(g.v) {
		rep.Line(report.WrapLine(l, "          "))
	}
	rep.Section("Timeline — " + tag + " (what the lab saw: calls, provider, row changes, kills)")
	for _, e := range g.r.events {
		line := fmt.Sprintf("  %s  %-9s %s", clock.DayStamp(e.at), e.who, e.what)
		rep.Line(report.WrapLine(line, strings.Repeat(" ", 27)))
	}
	if g.r.ended != "" {
		rep.Linef("  the run stopped early: %s", g.r.ended)
	}
	rep.Section("Tables — " + tag)
	rows := make([][]string, 0, len(g.msgs))
	for _, m := range g.msgs {
		rows = append(rows, []string{m.get("Id"), m.get("MessageKey"), m.get("Status"), m.get("AttemptCount"),
			orDash(m.get("MaxAttempts")), stampText(m.get("NextAttemptUtc")), clip(orDash(m.get("LastError")), 22),
			orDash(m.get("LockedBy")), m.get("ClaimToken")})
	}
	rep.Line("OutboxMessages, as the worker left them:")
	rep.Table([]string{"Id", "Key", "Status", "Att", "Max", "NextAttempt", "LastError", "LockedBy", "Tok"}, rows)
	rows = rows[:0]
	for _, p := range g.pays {
		k := p.get("PaymentKey")
		checks := j0(g, k)
		rows = append(rows, []string{k, p.get("Status"), orDash(p.get("ProviderTransactionId")),
			stampText(p.get("UpdatedAtUtc")), checks})
	}
	rep.Line("")
	rep.Line("Payments, and the provider's ledger for each key:")
	rep.Table([]string{"Key", "Status", "Transaction", "UpdatedAt", "Status checks (failed)"}, rows)
	if slices.Contains(g.r.extraLogged, "Redrives") {
		rows = rows[:0]
		for _, rd := range g.redrives {
			rows = append(rows, []string{rd.get("MessageKey"), rd.get("Batch"), rd.get("OriginalAttemptCount"),
				orDash(rd.get("Outcome")), orDash(rd.get("VerifiedTransactionId")), stampText(rd.get("ClosedAtUtc"))})
		}
		rep.Line("")
		rep.Line("Redrives, as the redrive left them:")
		rep.Table([]string{"Key", "Batch", "Orig. attempts", "Outcome", "Verified", "ClosedAt"}, rows)
	}
}

// j0 is a key's status checks in the ledger, with how many failed.
func j0(g *graded, key string) string {
	n, failed := 0, 0
	for _, c := range g.calls {
		if c.Key == key && c.Op == "status-check" {
			n++
			if c.Failed() {
				failed++
			}
		}
	}
	return fmt.Sprintf("%d (%d)", n, failed)
}

// stampText shows a stored time as a timeline stamp, anything else clipped.
func stampText(s string) string {
	if s == "" {
		return "-"
	}
	if t, ok := parseISO(s); ok {
		return clock.DayStamp(t)
	}
	return clip(s, 14)
}

// orDash is s, or a dash for nothing.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
