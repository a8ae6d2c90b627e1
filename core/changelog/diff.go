package changelog

import "strings"

// diff is what changed from before to after: rows added, removed, and each
// changed cell, table by table in name order, rows in key order.
func diff(before, after []Table) []Change {
	old := map[string]Table{}
	for _, t := range before {
		old[t.Name] = t
	}
	var out []Change
	for _, t := range after {
		out = append(out, diffTable(old[t.Name], t)...)
		delete(old, t.Name)
	}
	for _, t := range before {
		if _, gone := old[t.Name]; gone {
			out = append(out, diffTable(t, Table{Name: t.Name, Columns: t.Columns, Key: t.Key})...)
		}
	}
	return out
}

func diffTable(before, after Table) []Change {
	was := make(map[string][]*string, len(before.Rows))
	for _, r := range before.Rows {
		was[rowKey(r, before.Key)] = r
	}
	var out []Change
	for _, r := range after.Rows {
		k := rowKey(r, after.Key)
		prev, ok := was[k]
		delete(was, k)
		if !ok {
			out = append(out, Change{Table: after.Name, Key: k, Op: "added", Row: r})
			continue
		}
		var cells []Cell
		for i, c := range after.Columns {
			if i < len(prev) && !same(prev[i], r[i]) {
				cells = append(cells, Cell{Column: c, Old: prev[i], New: r[i]})
			}
		}
		if len(cells) > 0 {
			out = append(out, Change{Table: after.Name, Key: k, Op: "changed", Cells: cells})
		}
	}
	for _, r := range before.Rows {
		if k := rowKey(r, before.Key); was[k] != nil {
			out = append(out, Change{Table: before.Name, Key: k, Op: "removed", Row: r})
		}
	}
	return out
}

// rowKey is a row's primary key as text: its key cells joined by "/".
func rowKey(row []*string, key []int) string {
	parts := make([]string, len(key))
	for i, k := range key {
		if row[k] == nil {
			parts[i] = "NULL"
		} else {
			parts[i] = *row[k]
		}
	}
	return strings.Join(parts, "/")
}

func same(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
