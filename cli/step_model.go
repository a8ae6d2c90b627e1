package cli

// The --step view: a model over a run's change log, one event at a time,
// with the cells it changed, who holds each lease and when each message is
// next due. It knows keys by name (stepKeys names them) and draws text; the
// terminal loop in step.go feeds it.

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/changelog"
	"outboxlab/core/report"
)

// stepModel is the state of the --step view: the log and the event shown
// (pos 0 is the seeded tables, pos n the n-th event), how far its screen is
// scrolled, and whether the list of keys is shown.
type stepModel struct {
	log    changelog.Log
	checks []changelog.PageCheck
	pos    int
	scroll int // the first line of the screen's text in sight
	help   bool
	width  int
	height int
	color  bool   // highlight with the terminal's colours; off under NO_COLOR
	status string // what the last key could not do ("no later failure")
}

func newStepModel(d changelog.PageData, color bool) stepModel {
	return stepModel{log: d.Log, checks: d.Checks, width: 80, height: 24, color: color}
}

// resize lays the view out for a terminal of width×height: no wider than
// report.MaxWidth, as every output of the lab.
func (m stepModel) resize(width, height int) stepModel {
	m.width, m.height = min(max(40, width), report.MaxWidth), max(12, height)
	return m.clamp()
}

// press applies one key, named as stepKeys names it ("n", "right",
// "ctrl+c"), and reports whether it quits the view. While the list of keys
// is shown, a key closes it (q still quits; the others then do their work).
func (m stepModel) press(key string) (next stepModel, quit bool) {
	m.status = ""
	if m.help {
		m.help, m.scroll = false, 0
		if key == "?" || key == "esc" || key == "enter" {
			return m, false
		}
	}
	at := m.pos
	switch key {
	case "q", "esc", "ctrl+c":
		return m, true
	case "?":
		m.help, m.scroll = true, 0
		return m, false
	case "down", "j":
		m.scroll++
	case "up", "k":
		m.scroll--
	case "pgdown", "ctrl+f", "ctrl+d":
		m.scroll += m.room() - 1
	case "pgup", "ctrl+b", "ctrl+u":
		m.scroll -= m.room() - 1
	case "n", "right", "l", " ", "enter":
		m.pos = min(m.pos+1, len(m.log.Steps))
	case "p", "left", "h", "backspace":
		m.pos = max(m.pos-1, 0)
	case "home", "g":
		m.pos = 0
	case "end", "G":
		m.pos = len(m.log.Steps)
	case "f":
		m.jump(failed, "no later failure")
	case "c":
		m.jump(m.checkRead, "no later change a check reads")
	}
	if m.pos != at {
		m.scroll = 0 // a new event is read from its top
	}
	return m.clamp(), false
}

// jump moves to the next event after the one shown for which want holds,
// or says none is left.
func (m *stepModel) jump(want func(changelog.Step) bool, none string) {
	for i := m.pos; i < len(m.log.Steps); i++ {
		if want(m.log.Steps[i]) {
			m.pos = i + 1
			return
		}
	}
	m.status = none
}

var failureWords = regexp.MustCompile(`(?i)\b(failed|refused|dead-lettered|killed|crash)`)

// failed reports whether an event is a failure: its timeline line says so.
func failed(s changelog.Step) bool { return failureWords.MatchString(s.Text) }

// checkRead reports whether an event is one that decided a check (the
// replay page's link): a change a check reads.
func (m stepModel) checkRead(s changelog.Step) bool {
	return slices.ContainsFunc(m.checks, func(c changelog.PageCheck) bool { return c.Step == s.N })
}

func indented(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = "  " + l
	}
	return out
}

// shownN is the number of the event shown (0: seeded).
func (m stepModel) shownN() int {
	if m.pos == 0 {
		return 0
	}
	return m.log.Steps[m.pos-1].N
}

// design is the design whose tables are shown: the event's, or the
// scenario's own before the first.
func (m stepModel) design() string {
	if m.pos > 0 {
		return m.log.Steps[m.pos-1].Design
	}
	if len(m.log.Designs) > 0 {
		return m.log.Designs[0].Name
	}
	return ""
}

func (m stepModel) change(c changelog.Change) string {
	if c.Op != "changed" {
		return fmt.Sprintf("%s row %s %s", c.Table, c.Key, c.Op)
	}
	parts := make([]string, len(c.Cells))
	for i, cell := range c.Cells {
		parts[i] = cell.Column + " " + cellText(cell.Old) + " → " + m.mark(cellText(cell.New), cmdutil.AnsiReverse)
	}
	return c.Table + " row " + c.Key + ": " + strings.Join(parts, ", ")
}

// mark styles s when colour is on, and leaves it plain otherwise (NO_COLOR,
// not a terminal): the view never depends on colour to be read.
func (m stepModel) mark(s, style string) string {
	if !m.color {
		return s
	}
	return style + s + cmdutil.AnsiReset
}

func cellText(v *string) string {
	if v == nil {
		return "NULL"
	}
	return *v
}

// leases says who holds each leased row, read from the columns a lease is
// kept in (LockedBy and LockedUntilUtc, or the family's own names).
func leases(tables []changelog.Table) []string {
	var out []string
	for _, t := range tables {
		by, until := column(t, "lockedby", "owner", "leasedby", "claimedby"), column(t, "lockeduntilutc", "leaseuntilutc", "lockeduntil")
		if by < 0 {
			continue
		}
		for _, r := range t.Rows {
			if r[by] == nil {
				continue
			}
			l := fmt.Sprintf("%s %s held by %s", t.Name, rowLabel(t, r), *r[by])
			if until >= 0 && r[until] != nil {
				l += " until " + *r[until]
			}
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return []string{"no lease is held"}
	}
	return out
}

// nextDue says when each row with a next-attempt time is next due.
func nextDue(tables []changelog.Table) []string {
	var out []string
	for _, t := range tables {
		due := column(t, "nextattemptutc", "nextattemptat", "dueutc")
		status := column(t, "status")
		if due < 0 {
			continue
		}
		for _, r := range t.Rows {
			if r[due] == nil {
				continue
			}
			l := fmt.Sprintf("%s %s due %s", t.Name, rowLabel(t, r), *r[due])
			if status >= 0 && r[status] != nil {
				l += " (" + *r[status] + ")"
			}
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return []string{"nothing is waiting for a backoff"}
	}
	return out
}

// column is the index of the first of names among t's columns, or -1.
func column(t changelog.Table, names ...string) int {
	for _, n := range names { // the columns as the report spells them: AttemptCount
		if i := slices.IndexFunc(t.Columns, func(c string) bool { return strings.EqualFold(c, n) }); i >= 0 {
			return i
		}
	}
	return -1
}

// rowLabel names a row by its key column (MessageKey, PaymentKey, ...) when
// it has one, else by its primary key.
func rowLabel(t changelog.Table, r []*string) string {
	for i, c := range t.Columns {
		if strings.HasSuffix(strings.ToLower(c), "key") && r[i] != nil {
			return *r[i]
		}
	}
	parts := make([]string, len(t.Key))
	for i, k := range t.Key {
		parts[i] = cellText(r[k])
	}
	return "row " + strings.Join(parts, "/")
}
