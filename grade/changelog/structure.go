package changelog

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// The schema as the guard holds it at every read: any table, index,
// trigger or function dropped, added or altered, even when made again the
// same by the end of the run.

// structureOf is the schema as sorted lines, each starting with its kind
// and name: on SQLite every object's SQL on one line; on PostgreSQL the schema's relations, triggers
// and functions with their object ids, so that one dropped and made again
// the same differs.
func structureOf(ctx context.Context, q querier, postgres bool) (string, error) {
	query := `SELECT type || ' ' || name || ' ' || replace(replace(coalesce(sql, ''), char(10), ' '), char(13), ' ')
		FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'`
	if postgres {
		query = `
		SELECT 'relation ' || c.relname || ' ' || c.relkind::text || ' #' || c.oid::text FROM pg_class c
		WHERE c.relnamespace = current_schema()::regnamespace
		UNION ALL
		SELECT 'trigger ' || t.tgname || ' ' || t.tgenabled::text || ' #' || t.oid::text || ' on ' || c.relname
		FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
		WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
		UNION ALL
		SELECT 'function ' || p.proname || ' ' || md5(p.prosrc) || ' #' || p.oid::text FROM pg_proc p
		WHERE p.pronamespace = current_schema()::regnamespace`
	}
	rows, err := q.QueryContext(ctx, query)
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
	now, err := structureOf(ctx, q, g.postgres)
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
