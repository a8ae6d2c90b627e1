package grade

import (
	"fmt"

	"outboxlab/core/report"
	"outboxlab/grade/changelog"
)

// render writes a variation's setup, timeline and tables into rep.
func (g *graded) render(rep *report.Report, title, tag string) {
	rep.Section(title)
	for _, l := range g.v.Describe() {
		rep.Line(report.WrapLine(l, "          "))
	}
	rep.Section("Timeline — " + tag + " (what the lab saw: calls, provider, row changes, kills)")
	for _, l := range timelineLines(g.r.Events, false) {
		rep.Line(l)
	}
	if g.r.Ended != "" {
		rep.Linef("  the run stopped early: %s", g.r.Ended)
	}
	rep.Section("Tables — " + tag)
	rows := make([][]string, 0, len(g.msgs))
	for _, m := range g.msgs {
		rows = append(rows, []string{m.Get("Id"), m.Get("MessageKey"), m.Get("Status"), m.Get("AttemptCount"),
			changelog.OrDash(m.Get("MaxAttempts")), changelog.Stamp(m.Get("NextAttemptUtc")),
			changelog.Clip(changelog.OrDash(m.Get("LastError")), 22), changelog.OrDash(m.Get("LockedBy")),
			m.Get("ClaimToken")})
	}
	rep.Line("OutboxMessages, as the worker left them:")
	rep.Table([]string{"Id", "Key", "Status", "Att", "Max", "NextAttempt", "LastError", "LockedBy", "Tok"}, rows)
	rows = rows[:0]
	for _, p := range g.pays {
		k := p.Get("PaymentKey")
		rows = append(rows, []string{k, p.Get("Status"), changelog.OrDash(p.Get("ProviderTransactionId")),
			changelog.Stamp(p.Get("UpdatedAtUtc")), g.statusChecks(k)})
	}
	rep.Line("")
	rep.Line("Payments, and the provider's ledger for each key:")
	rep.Table([]string{"Key", "Status", "Transaction", "UpdatedAt", "Status checks (failed)"}, rows)
	for _, t := range g.day.Tables {
		if t.Show != nil {
			t.Show(rep, g.tables[t.Name])
		}
	}
}

// statusChecks is a key's status checks in the ledger, with how many failed.
func (g *graded) statusChecks(key string) string {
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
