package dialect

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"outboxlab/core/sqlitedb"
)

// What inspect reads of a lab database besides its rows, database by
// database: the tables, the lab's version, the schema text, the order a
// table's rows were written in, and a transaction that cannot write.

// TableNames lists the tables in creation order, LabInfo included, from
// SQLite's schema table.
func (sqliteDialect) TableNames(ctx context.Context, q Querier) ([]string, error) {
	return names(ctx, q, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid`)
}

// TableNames lists the run schema's tables in creation order (catalog oid,
// which a fresh schema hands out in order), as the catalog names them.
func (postgresDialect) TableNames(ctx context.Context, q Querier) ([]string, error) {
	return names(ctx, q, `SELECT relname FROM pg_class
		WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p') ORDER BY oid`)
}

func (sqliteDialect) LabVersion(ctx context.Context, q Querier) (string, error) {
	return sqlitedb.LabVersion(ctx, q)
}

// LabVersion reads the LabInfo table whatever the case of its name.
func (d postgresDialect) LabVersion(ctx context.Context, q Querier) (string, error) {
	tables, err := d.TableNames(ctx, q)
	if err != nil {
		return "", err
	}
	for _, t := range tables {
		if !strings.EqualFold(t, "LabInfo") {
			continue
		}
		var version string
		err := q.QueryRowContext(ctx, `SELECT Value FROM `+QuoteIdent(t)+` WHERE Key = 'schema'`).Scan(&version)
		if errors.Is(err, sql.ErrNoRows) {
			return "", nil
		}
		return version, err
	}
	return "", nil
}

// Schema is the CREATE statements of the tables and indexes besides
// LabInfo, as SQLite keeps them, each ending in ";".
func (sqliteDialect) Schema(ctx context.Context, q Querier) ([]string, error) {
	out, err := names(ctx, q, `SELECT sql || ';' FROM sqlite_schema
		WHERE type IN ('table', 'index') AND sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND tbl_name <> 'LabInfo' ORDER BY rowid`)
	if out == nil && err == nil {
		out = []string{}
	}
	return out, err
}

// Schema is nil: the server keeps no statement text (Tables rebuilds one).
func (postgresDialect) Schema(context.Context, Querier) ([]string, error) { return nil, nil }

// InsertionOrder is empty: a plain scan reads a table in rowid order.
func (sqliteDialect) InsertionOrder() string { return "" }

// InsertionOrder orders by the first column, the id: without ORDER BY,
// rows come in no defined order (after updates, in parallel plans).
func (postgresDialect) InsertionOrder() string { return " ORDER BY 1" }

// QueryOnly makes tx's connection refuse to write (PRAGMA query_only), belt
// and braces beside a read-only file.
func (sqliteDialect) QueryOnly(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, "PRAGMA query_only = ON")
	return err
}

// QueryOnly has nothing to do: begin tx READ ONLY.
func (postgresDialect) QueryOnly(context.Context, *sql.Tx) error { return nil }

// QuoteIdent quotes a name read from the schema as an SQL identifier.
func QuoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// names runs query, which selects one text column, and returns its values.
func names(ctx context.Context, q Querier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}
