package inspect

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"slices"
	"strings"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/report"
)

// checkSelection checks inspect's --table, --columns and --where before the
// database is opened: the columns and the expression need tables to apply
// to, and the expression must be one expression, never a second statement.
func checkSelection(opts inspectOptions) error {
	if len(opts.Tables) == 0 && (len(opts.Columns) > 0 || opts.Where != "") {
		return cmdutil.Usagef("--columns and --where apply to the tables --table names; add --table NAME")
	}
	for _, n := range append(slices.Clone(opts.Tables), opts.Columns...) {
		if strings.TrimSpace(n) == "" {
			return cmdutil.Usagef("--table and --columns take names, got an empty one")
		}
	}
	return checkWhere(opts.Where)
}

// checkWhere refuses a --where that is not one expression: a ";", a
// comment, an unclosed quote, or a parenthesis that closes one it did not
// open (which would end the lab's "WHERE (...)" early and start something
// else). What is left is parsed by the database, read-only.
func checkWhere(expr string) error {
	if expr == "" {
		return nil
	}
	if strings.TrimSpace(expr) == "" {
		return cmdutil.Usagef("--where is empty; give an expression such as \"Status = 'Done'\"")
	}
	depth := 0
	var quote rune
	prev := rune(0)
	for _, r := range expr {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0 // a doubled quote closes and reopens: the same
			}
		case r == '\'' || r == '"' || r == '`':
			quote = r
		case r == ';':
			return cmdutil.Usagef("--where %s: one expression, no \";\"", cmdutil.Show(quoted(expr)))
		case (r == '-' && prev == '-') || (r == '*' && prev == '/'):
			return cmdutil.Usagef("--where %s: one expression, no comments", cmdutil.Show(quoted(expr)))
		case r == '(':
			depth++
		case r == ')':
			if depth--; depth < 0 {
				return cmdutil.Usagef("--where %s: a \")\" with no \"(\" before it", cmdutil.Show(quoted(expr)))
			}
		}
		prev = r
		if quote != 0 {
			prev = 0 // a comment starts only outside a quote
		}
	}
	switch {
	case quote != 0:
		return cmdutil.Usagef("--where %s: a quote (%c) is not closed", cmdutil.Show(quoted(expr)), quote)
	case depth > 0:
		return cmdutil.Usagef("--where %s: a \"(\" is not closed", cmdutil.Show(quoted(expr)))
	}
	return nil
}

// chosenListings are the tables --table names, in the order given, each with
// the columns --columns names and the rows --where picks. Names match
// whatever their case (PostgreSQL folds them to lower case); one that is not
// there is a usage error naming what there is.
func chosenListings(ctx context.Context, tx *sql.Tx, tables []string, opts inspectOptions) ([]listing, error) {
	shown := slices.DeleteFunc(slices.Clone(tables), func(t string) bool { return strings.EqualFold(t, "LabInfo") })
	var out []listing
	for _, want := range opts.Tables {
		i := slices.IndexFunc(shown, func(t string) bool { return strings.EqualFold(t, want) })
		if i < 0 {
			return nil, cmdutil.Usagef("--table %s is not a table here (there are: %s)", cmdutil.Show(quoted(want)), cmdutil.Show(strings.Join(shown, ", ")))
		}
		l := tableListing(shown[i])
		l.compact = true
		if len(opts.Columns) > 0 {
			cols, err := columnNames(ctx, tx, shown[i])
			if err != nil {
				return nil, err
			}
			var picked []string
			for _, c := range opts.Columns {
				j := slices.IndexFunc(cols, func(have string) bool { return strings.EqualFold(have, c) })
				if j < 0 {
					return nil, cmdutil.Usagef("--columns %s is not a column of %s (it has: %s)",
						cmdutil.Show(quoted(c)), cmdutil.Show(shown[i]), cmdutil.Show(strings.Join(cols, ", ")))
				}
				picked = append(picked, quoteIdent(cols[j]))
			}
			l.columns = strings.Join(picked, ", ")
		}
		if opts.Where != "" {
			l.where = opts.Where
			l.from += " WHERE (" + opts.Where + ")"
		}
		out = append(out, l)
	}
	return out, nil
}

// quoted is s in double quotes, as an error names a value.
func quoted(s string) string { return `"` + s + `"` }

// columnNames are table's columns, in their order.
func columnNames(ctx context.Context, tx *sql.Tx, table string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, "SELECT * FROM "+quoteIdent(table)+" WHERE 1 = 0")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return rows.Columns()
}

// compactWidth is the width of a compact listing whose columns are widths
// wide: two spaces before each.
func compactWidth(widths []int) int {
	n := 0
	for _, w := range widths {
		n += w + 2
	}
	return n
}

// printCompact prints a chosen table as a line of column names and a line
// per row, each column two spaces in and padded to widths.
func printCompact(ctx context.Context, w *bufio.Writer, tx *sql.Tx, query string, limit any, wide bool, widths []int, total int64) error {
	line := func(cells []string) error {
		var b strings.Builder
		for i, c := range cells {
			b.WriteString("  ")
			b.WriteString(c)
			if i < len(cells)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-report.Width(c)))
			}
		}
		_, err := io.WriteString(w, b.String()+"\n")
		return err
	}
	shown, err := eachRow(ctx, tx, query, limit, wide, line, line)
	if err != nil {
		return err
	}
	if shown < total {
		fmt.Fprintf(w, "  … %s; --limit 0 shows all\n", rowCount(total-shown, "more row"))
	}
	return nil
}

// shellWord is path as a shell word: as it is when every byte is plain,
// else in single quotes.
func shellWord(path string) string {
	if path != "" && strings.Trim(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@%,=") == "" {
		return path
	}
	return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
}
