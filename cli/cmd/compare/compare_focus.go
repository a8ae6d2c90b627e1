package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
)

// compareChecks prints the two reports' checks side by side, read from the
// bodies (a golden body has them too), and reports whether they agree: the
// same checks, in the same order, with the same result and figure.
func compareChecks(w io.Writer, a, b report.Doc) bool {
	ca, cb := report.BodyChecks(a.Body), report.BodyChecks(b.Body)
	ka, kb := report.KindOf(a), report.KindOf(b)
	byName := func(cs []report.Check) map[string]report.Check {
		m := map[string]report.Check{}
		for _, c := range cs {
			m[c.Name] = c
		}
		return m
	}
	ma, mb := byName(ca), byName(cb)
	var lines []string
	changed, onlyA, onlyB := 0, 0, 0
	for _, c := range ca {
		d, ok := mb[c.Name]
		switch {
		case !ok:
			onlyA++
			lines = append(lines, "- "+checkText(ka, c)+"  (only in A)")
		case d != c:
			changed++
			lines = append(lines, "~ "+cmdutil.Show(c.Name), "    A  "+checkResult(ka, c), "    B  "+checkResult(kb, d))
		default:
			lines = append(lines, "  "+checkText(ka, c))
		}
	}
	for _, c := range cb {
		if _, ok := ma[c.Name]; !ok {
			onlyB++
			lines = append(lines, "+ "+checkText(kb, c)+"  (only in B)")
		}
	}
	differ := changed + onlyA + onlyB
	order := len(ca) == len(cb) && differ == 0 && !slices.Equal(ca, cb)
	fmt.Fprintf(w, "checks: A %s, B %s; ", passedOf(ca), passedOf(cb))
	switch {
	case order:
		fmt.Fprintln(w, "the same checks in another order")
	case differ == 0:
		fmt.Fprintln(w, "the same")
	default:
		// Counted over every check either side has: a check only in A and
		// one only in B are two of them.
		var parts []string
		for _, p := range []struct {
			n    int
			what string
		}{{changed, "changed"}, {onlyA, "only in A"}, {onlyB, "only in B"}} {
			if p.n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
			}
		}
		fmt.Fprintf(w, "%d of %d differ (%s)\n", differ, len(ca)+onlyB, strings.Join(parts, ", "))
	}
	if order {
		differ++
	}
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	return differ == 0
}

// passedOf is how many of a side's checks passed, and how many were not
// exercised (N/A) when any were.
func passedOf(checks []report.Check) string {
	s := fmt.Sprintf("%d/%d passed", report.ChecksPassed(checks), len(checks))
	if n := report.ChecksNotExercised(checks); n > 0 {
		s += fmt.Sprintf(" (%d %s)", n, report.MarkNotExercised)
	}
	return s
}

// checkResult is a check's mark, as its report prints it (HOLDS, N/A,
// REPRODUCED...), and its detail.
func checkResult(kind report.Kind, c report.Check) string {
	return report.Mark(kind, c) + "  " + cmdutil.Show(c.Detail)
}

func checkText(kind report.Kind, c report.Check) string {
	return report.Mark(kind, c) + "  " + cmdutil.Show(c.Name) + " → " + cmdutil.Show(c.Detail)
}

// compareMetrics prints the metrics as a table (metric, A, B, changed?) and
// reports whether they agree. The metrics come from the headers' records;
// when a side has none (a golden body), from the body's metric tables.
func compareMetrics(w io.Writer, a, b report.Doc) bool {
	var ma, mb map[string]string
	if a.Info.Record != nil && b.Info.Record != nil {
		ma, mb = recordMetrics(a.Info.Record), recordMetrics(b.Info.Record)
		fmt.Fprint(w, "metrics (as --json records them): ")
	} else {
		ma, mb = tableMetrics(a.Body), tableMetrics(b.Body)
		fmt.Fprint(w, "metrics (from the bodies' metric tables: a body without a header records no others): ")
	}
	keys := make([]string, 0, len(ma)+len(mb))
	for k := range ma {
		keys = append(keys, k)
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		fmt.Fprintln(w, "none to compare")
		return true
	}
	var rows [][]string
	changed := 0
	keyWidth, valueWidth := metricWidths(keys, ma, mb)
	for _, k := range keys {
		va, okA := ma[k]
		vb, okB := mb[k]
		mark := ""
		if va != vb || okA != okB {
			mark = "changed"
			changed++
		}
		rows = append(rows, []string{cmdutil.Cut(k, keyWidth), cmdutil.Cut(orNone(va, okA), valueWidth), cmdutil.Cut(orNone(vb, okB), valueWidth), mark})
	}
	if changed == 0 {
		fmt.Fprintf(w, "the same (%d)\n", len(keys))
	} else {
		fmt.Fprintf(w, "%d of %d changed\n", changed, len(keys))
	}
	fmt.Fprint(w, showLines(report.RenderTable([]string{"Metric", "A", "B", "Changed?"}, rows)))
	return changed == 0
}

// metricWidths shares the metrics table's 100 columns: the key column is
// as wide as the widest key (cut only past half the room), and the two value
// columns share what is left, so a key is never cut while a value has room.
func metricWidths(keys []string, ma, mb map[string]string) (key, value int) {
	room := report.MaxWidth - (3*4 + 1) - len("Changed?")
	for _, k := range keys {
		key = max(key, len([]rune(k)))
		for _, m := range []map[string]string{ma, mb} {
			value = max(value, len([]rune(report.Dash(m[k]))), len("(none)"))
		}
	}
	key = min(key, max(room/2, room-2*value))
	return key, max(min(value, (room-key)/2), 8)
}

func orNone(v string, ok bool) string {
	if !ok {
		return "(none)"
	}
	return report.Dash(v)
}

// recordMetrics flattens a record's metrics to strings: numbers and
// strings as they are, lists and maps as compact JSON.
func recordMetrics(r *report.Record) map[string]string {
	m := map[string]string{}
	for k, v := range r.Metrics {
		switch v := v.(type) {
		case string:
			m[k] = v
		case float64:
			m[k] = strconv.FormatFloat(v, 'f', -1, 64)
		default:
			js, _ := json.Marshal(v)
			m[k] = string(js)
		}
	}
	return m
}

// tableMetrics reads the cells of the tables in a body's metrics sections
// (titles mentioning metrics or figures), keyed "row · column".
func tableMetrics(body string) map[string]string {
	m := map[string]string{}
	for _, it := range report.Items(body) {
		title := strings.ToLower(it.Section)
		if it.Table == nil || !(strings.Contains(title, "metrics") || strings.Contains(title, "figures")) {
			continue
		}
		for _, row := range it.Table.Rows {
			for c := 1; c < len(row) && c < len(it.Table.Header); c++ {
				m[row[0]+" · "+it.Table.Header[c]] = row[c]
			}
		}
	}
	return m
}
