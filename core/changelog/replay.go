package changelog

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// State is every design's tables as they stood after the run's first n
// events: each design as seeded, with the changes of its events among
// the first n applied.
func (l Log) State(n int) map[string][]Table {
	out := map[string][]Table{}
	for _, d := range l.Designs {
		out[d.Name] = cloneTables(d.Tables)
	}
	for _, s := range l.Steps {
		if s.N > n {
			break
		}
		out[s.Design] = apply(out[s.Design], s.Changes)
	}
	return out
}

func cloneTables(ts []Table) []Table {
	out := make([]Table, len(ts))
	for i, t := range ts {
		out[i] = t
		out[i].Rows = slices.Clone(t.Rows)
	}
	return out
}

// apply returns tables with changes applied, rows kept in key order.
func apply(tables []Table, changes []Change) []Table {
	for _, c := range changes {
		i := slices.IndexFunc(tables, func(t Table) bool { return t.Name == c.Table })
		if i < 0 {
			continue
		}
		t := &tables[i]
		at := slices.IndexFunc(t.Rows, func(r []*string) bool { return rowKey(r, t.Key) == c.Key })
		switch c.Op {
		case "added":
			if at < 0 {
				// Rows stay in key order, as the database orders them.
				i := slices.IndexFunc(t.Rows, func(r []*string) bool { return keyOrder(r, c.Row, t.Key) > 0 })
				if i < 0 {
					i = len(t.Rows)
				}
				t.Rows = slices.Insert(t.Rows, i, c.Row)
			}
		case "removed":
			if at >= 0 {
				t.Rows = slices.Delete(t.Rows, at, at+1)
			}
		case "changed":
			if at < 0 {
				continue
			}
			row := slices.Clone(t.Rows[at])
			for _, cell := range c.Cells {
				if j := slices.Index(t.Columns, cell.Column); j >= 0 {
					row[j] = cell.New
				}
			}
			t.Rows[at] = row
		}
	}
	return tables
}

// namePattern finds what a check names a row by: a key such as PAY-003,
// order-7 or A-12 (letters, a dash, then letters or digits).
var namePattern = regexp.MustCompile(`\b[A-Za-z]+-[0-9A-Za-z-]*[0-9][0-9A-Za-z-]*\b`)

// DecidingStep is the event a check's verdict turns on, as far as the log
// shows it: the last event of the design that changed a row holding a key
// the check names (PAY-003 in "PAY-003 dead-lettered ..."), else the last
// event of design, else the run's last event; 0 when nothing was recorded.
func (l Log) DecidingStep(design, check string) int {
	names := namePattern.FindAllString(check, -1)
	last, lastOfDesign := 0, 0
	if len(l.Steps) > 0 {
		last = l.Steps[len(l.Steps)-1].N
	}
	state := l.State(0)
	decided := 0
	for _, s := range l.Steps {
		before := state[s.Design]
		state[s.Design] = apply(cloneTables(before), s.Changes)
		if s.Design != design {
			continue
		}
		lastOfDesign = s.N
		if len(names) > 0 && touches(state[s.Design], s.Changes, names) {
			decided = s.N
		}
	}
	switch {
	case decided > 0:
		return decided
	case lastOfDesign > 0:
		return lastOfDesign
	}
	return last
}

// touches reports whether one of changes is to a row (as it now stands, or
// as it was when removed) holding one of names.
func touches(tables []Table, changes []Change, names []string) bool {
	for _, c := range changes {
		row := c.Row
		if c.Op == "changed" {
			i := slices.IndexFunc(tables, func(t Table) bool { return t.Name == c.Table })
			if i < 0 {
				continue
			}
			t := tables[i]
			if at := slices.IndexFunc(t.Rows, func(r []*string) bool { return rowKey(r, t.Key) == c.Key }); at >= 0 {
				row = t.Rows[at]
			}
		}
		for _, v := range row {
			if v != nil && slices.ContainsFunc(names, func(n string) bool { return strings.Contains(*v, n) }) {
				return true
			}
		}
	}
	return false
}

// keyOrder compares rows a and b by key as ORDER BY the key does: integers
// as numbers, text as text, NULL first.
func keyOrder(a, b []*string, key []int) int {
	for _, k := range key {
		x, y := a[k], b[k]
		switch {
		case same(x, y):
			continue
		case x == nil:
			return -1
		case y == nil:
			return 1
		}
		xi, xerr := strconv.ParseInt(*x, 10, 64)
		yi, yerr := strconv.ParseInt(*y, 10, 64)
		if xerr == nil && yerr == nil {
			return cmp.Compare(xi, yi)
		}
		return strings.Compare(*x, *y)
	}
	return 0
}
