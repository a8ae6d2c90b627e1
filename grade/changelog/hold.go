package changelog

import (
	"fmt"
	"sort"
	"strconv"
)

// How the lab holds new log rows against the rows: it applies them, in
// order, to the rows as it last read them; each must fit the row as it
// stood, and the result must be the rows as they stand now.

// replay applies news to the rows the lab last read, and says where a log
// row does not fit them or does not follow the one before it.
func (g *Guard) replay(news []Change) []string {
	var problems []string
	last := g.lastSeq
	for _, c := range news {
		switch {
		case g.dialect.GaplessKeys() && c.Seq == last+2:
			problems = append(problems, fmt.Sprintf("log row %d is missing", last+1))
		case g.dialect.GaplessKeys() && c.Seq > last+2:
			problems = append(problems, fmt.Sprintf("log rows %d to %d are missing", last+1, c.Seq-1))
		}
		last = c.Seq
		rows, ok := g.rows[c.Table]
		if !ok {
			problems = append(problems, fmt.Sprintf("log row %d names a table the lab does not log (%q)",
				c.Seq, Clip(c.Table, 24)))
			continue
		}
		if p := apply(rows, c); p != "" {
			problems = append(problems, fmt.Sprintf("log row %d (%s %d %s): %s", c.Seq, c.Table, c.RowID, Clip(c.Op, 8), p))
		}
	}
	return problems
}

// apply changes rows as c says, or says why c does not fit them.
func apply(rows map[int64]image, c Change) string {
	oldID, hasOld := rowKey(c.Old)
	newID, hasNew := rowKey(c.New)
	switch c.Op {
	case "INSERT":
		switch {
		case !hasNew || c.Old != nil || newID != c.RowID:
			return "not a row inserted with its Id"
		case stands(rows, newID):
			return "that row already stood"
		}
		rows[newID] = newImage(c.New, c.NewNull)
	case "UPDATE":
		if !hasOld || !hasNew || newID != c.RowID {
			return "not a row updated with its Id"
		}
		if p := fits(rows, oldID, newImage(c.Old, c.OldNull)); p != "" {
			return p
		}
		delete(rows, oldID)
		if stands(rows, newID) {
			return fmt.Sprintf("its new Id %d already stood", newID)
		}
		rows[newID] = newImage(c.New, c.NewNull)
	case "DELETE":
		if !hasOld || c.New != nil || oldID != c.RowID {
			return "not a row deleted with its Id"
		}
		if p := fits(rows, oldID, newImage(c.Old, c.OldNull)); p != "" {
			return p
		}
		delete(rows, oldID)
	default:
		return "not an insert, an update or a delete"
	}
	return ""
}

// fits says why the old row a log row names is not row id as it stood.
func fits(rows map[int64]image, id int64, old image) string {
	cur, ok := rows[id]
	if !ok {
		return "no such row stood"
	}
	if col, stood, logged := firstDiff(cur, old); col != "" {
		return fmt.Sprintf("its old row is not the row as it stood (%s %s, the log says %s)", col, stood, logged)
	}
	return ""
}

// unexplained compares the rows as the log rows leave them (want) with the
// rows as they stand (now): a difference is a change no log row holds.
func unexplained(tables []string, want, now map[string]map[int64]image) []string {
	var problems []string
	for _, t := range tables {
		ids := map[int64]bool{}
		for id := range want[t] {
			ids[id] = true
		}
		for id := range now[t] {
			ids[id] = true
		}
		for _, id := range sortedKeys(ids) {
			w, inWant := want[t][id]
			n, inNow := now[t][id]
			switch {
			case !inNow:
				problems = append(problems, fmt.Sprintf("%s row %d is gone, and no log row deletes it", t, id))
			case !inWant:
				problems = append(problems, fmt.Sprintf("%s row %d stands, and no log row inserts it", t, id))
			default:
				if col, logged, stands := firstDiff(w, n); col != "" {
					problems = append(problems, fmt.Sprintf("%s row %d is not what the log says (%s: the log says %s, the row is %s)",
						t, id, col, logged, stands))
				}
			}
		}
	}
	return problems
}

func stands(rows map[int64]image, id int64) bool {
	_, ok := rows[id]
	return ok
}

// rowKey is a row's Id ("id" of its JSON); ok is false without one.
func rowKey(vals map[string]string) (int64, bool) {
	if vals == nil {
		return 0, false
	}
	id, err := strconv.ParseInt(vals["id"], 10, 64)
	return id, err == nil
}

// firstDiff is the first column (by name) where a and b differ, and its
// value in each ("" when they are the same).
func firstDiff(a, b image) (col, av, bv string) {
	if a.text == b.text {
		return "", "", ""
	}
	cols := map[string]bool{}
	for k := range a.vals {
		cols[k] = true
	}
	for k := range b.vals {
		cols[k] = true
	}
	names := make([]string, 0, len(cols))
	for k := range cols {
		names = append(names, k)
	}
	sortStrings(names)
	for _, k := range names {
		_, inA := a.vals[k]
		_, inB := b.vals[k]
		if inA != inB || a.null[k] != b.null[k] || a.vals[k] != b.vals[k] {
			return k, show(a, k), show(b, k)
		}
	}
	return "(the row's text)", "", ""
}

// show is one column of a row as a problem names it.
func show(r image, col string) string {
	v, ok := r.vals[col]
	switch {
	case !ok:
		return "(no such column)"
	case r.null[col]:
		return "NULL"
	}
	return Clip(v, 24)
}

func sortStrings(s []string) { sort.Strings(s) }

func sortedKeys[V any](m map[int64]V) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
