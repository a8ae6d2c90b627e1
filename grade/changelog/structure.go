package changelog

import (
	"context"
	"fmt"
	"outboxlab/core/dialect"
	"slices"
	"sort"
	"strings"
)

// The schema as the guard holds it at every read: any table, index,
// trigger or function dropped, added or altered, even when made again the
// same by the end of the run.

// structureOf is the schema as sorted lines, each starting with its kind
// and name (the dialect's StructureQuery).
func structureOf(ctx context.Context, q querier, d dialect.Dialect) (string, error) {
	rows, err := q.QueryContext(ctx, d.StructureQuery())
	if err != nil {
		return "", err
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

// structure reads the schema and says how it differs from the one the lab
// made, once, when it starts to differ ("" otherwise).
func (g *Guard) structure(ctx context.Context, q querier) (string, error) {
	now, err := structureOf(ctx, q, g.dialect)
	if err != nil {
		return "", fmt.Errorf("read the schema: %w", err)
	}
	if now == g.lastShape {
		return "", nil
	}
	g.lastShape = now
	if now == g.shape {
		return "", nil
	}
	return namesDiff(g.shape, now), nil
}

// namesDiff says which objects (kind and name) two structures do not share.
func namesDiff(before, after string) string {
	gone, added := linesDiff(before, after, 2)
	return fmt.Sprintf("the schema changed: gone or altered %s; new %s",
		orNone(strings.Join(slices.Compact(gone), ", ")), orNone(strings.Join(slices.Compact(added), ", ")))
}
