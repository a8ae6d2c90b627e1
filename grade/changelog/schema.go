package changelog

import (
	"context"
	"database/sql"
	"fmt"
	"outboxlab/core/dialect"
	"slices"
	"sort"
	"strings"
)

// The schema's shape: what the lab compares before and after a run to know
// that no table, column, index or trigger was dropped or altered.

// Shape is the schema of db as sorted lines.
func Shape(ctx context.Context, db *sql.DB, d dialect.Dialect) (string, error) {
	return shapeOf(ctx, db, d)
}

func shapeOf(ctx context.Context, db querier, d dialect.Dialect) (string, error) {
	rows, err := db.QueryContext(ctx, d.ShapeQuery())
	if err != nil {
		return "", fmt.Errorf("read the schema: %w", err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return "", err
		}
		lines = append(lines, s)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n"), rows.Err()
}

// ShapeDiff says what changed between two shapes, or that the second could
// not be read (err).
func ShapeDiff(before, after string, err error) string {
	if err != nil {
		return "the schema cannot be read: " + OneLine(err)
	}
	gone, added := linesDiff(before, after, 3)
	return fmt.Sprintf("the schema changed: gone or altered %s; new %s",
		orNone(strings.Join(gone, ", ")), orNone(strings.Join(added, ", ")))
}

// linesDiff names, by their first words, the lines of one shape that the
// other lacks, each list sorted.
func linesDiff(before, after string, words int) (gone, added []string) {
	b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
	for _, l := range b {
		if !slices.Contains(a, l) {
			gone = append(gone, firstWords(l, words))
		}
	}
	for _, l := range a {
		if !slices.Contains(b, l) {
			added = append(added, firstWords(l, words))
		}
	}
	sort.Strings(gone)
	sort.Strings(added)
	return gone, added
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
