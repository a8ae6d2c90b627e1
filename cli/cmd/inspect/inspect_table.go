package inspect

// How inspect draws a table: the rows read a page at a time, their cells
// made printable, in a bordered table or, when that is wider than the
// terminal, one record at a time.

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
)

// eachRow runs query with limit, calls header with the column names and row
// with each row's cells, both made printable, and returns the number of rows.
func eachRow(ctx context.Context, tx *sql.Tx, query string, limit any, wide bool,
	header, row func(cells []string) error) (int64, error) {
	rows, err := tx.QueryContext(ctx, query, limit)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	cells := make([]string, len(cols))
	for i, c := range cols {
		cells[i] = cmdutil.Cell(c, wide)
	}
	if err := header(cells); err != nil {
		return 0, err
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var n int64
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		for i, v := range vals {
			cells[i] = "NULL"
			if v.Valid {
				cells[i] = cmdutil.Cell(v.String, wide)
			}
		}
		if err := row(cells); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

// tableWidth is the width of a table whose columns are widths wide: each
// column, a space either side and a rule.
func tableWidth(widths []int) int {
	n := 1
	for _, w := range widths {
		n += w + 3
	}
	return n
}

// printVertical prints the rows of a table too wide for the terminal one
// `column: value` line per column, a blank line between rows, each value
// whole, wrapped under itself when it is wider than the line.
func printVertical(ctx context.Context, w *bufio.Writer, tx *sql.Tx, query string, limit any, total int64) error {
	var labels []string
	header := func(cols []string) error {
		width := 0
		for _, c := range cols {
			width = max(width, report.Width(c)+1)
		}
		for _, c := range cols {
			labels = append(labels, c+":"+strings.Repeat(" ", width-report.Width(c)+1))
		}
		return nil
	}
	first := true
	shown, err := eachRow(ctx, tx, query, limit, true, header, func(cells []string) error {
		if !first {
			w.WriteString("\n")
		}
		first = false
		var err error
		for i, c := range cells {
			// A value that fits is printed as it is; a longer one wraps at its spaces.
			if width := max(report.MaxWidth-report.Width(labels[i]), 20); report.Width(c) > width {
				c = report.Wrap(c, width)
			}
			_, err = w.WriteString(report.Labelled(labels[i], c))
		}
		return err
	})
	if err != nil {
		return err
	}
	if shown < total {
		fmt.Fprintf(w, "\n… %s; --limit 0 shows all\n", rowCount(total-shown, "more row"))
	}
	return nil
}

func writeBorder(w *bufio.Writer, widths []int, left, mid, right string) {
	w.WriteString(left)
	for i, n := range widths {
		if i > 0 {
			w.WriteString(mid)
		}
		w.WriteString(strings.Repeat("─", n+2))
	}
	w.WriteString(right + "\n")
}

// writeCells writes one table line; its error is the writer's, so a closed
// stdout ends the listing.
func writeCells(w *bufio.Writer, widths []int, cells []string) error {
	for i, c := range cells {
		w.WriteString("│ ")
		w.WriteString(c)
		w.WriteString(strings.Repeat(" ", widths[i]-report.Width(c)+1))
	}
	_, err := w.WriteString("│\n")
	return err
}

// rowCount says n of noun: "1 row", "1,200 rows".
func rowCount(n int64, noun string) string { return thousands(n) + " " + report.Noun(n, noun) }

// thousands writes n with a comma between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
