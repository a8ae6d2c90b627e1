package changelog

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dblocation"
	"outboxlab/core/pgdb"
	"outboxlab/core/sqlitedb"
)

// open connects to the watched database once: one connection, that only reads.
func (w *watch) open(ctx context.Context) error {
	if w.db != nil {
		return nil
	}
	w.postgres = dblocation.IsPostgres(w.location)
	var err error
	if w.postgres {
		w.db, err = pgdb.Open(ctx, w.location)
	} else {
		// Not the store's settings (BEGIN IMMEDIATE): a reader takes no write lock.
		w.db, err = sql.Open("sqlite", "file:"+sqlitedb.EscapePath(w.location)+
			"?_pragma=busy_timeout(30000)&_pragma=query_only(1)")
	}
	if err != nil {
		return err
	}
	w.db.SetMaxOpenConns(1)
	return nil
}

// querier is what reads run through: the transaction a PostgreSQL read
// takes, or SQLite's one connection.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// read returns every table of the database but LabInfo, by name, each with
// its rows in key order.
func (w *watch) read(ctx context.Context) ([]Table, error) {
	if err := w.open(ctx); err != nil {
		return nil, err
	}
	if w.postgres {
		tx, err := w.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}) // one snapshot of every table
		if err != nil {
			return nil, err
		}
		defer tx.Rollback()
		names, err := w.tableNames(ctx, tx)
		if err != nil {
			return nil, err
		}
		tables, err := w.readTables(ctx, tx, names)
		if err != nil {
			return nil, err
		}
		return tables, tx.Commit()
	}
	// SQLite counts the commits of other connections (data_version) and the
	// changes of the schema (schema_version): no commit since the last read,
	// nothing to read again; no new table, the same names. The run's driver
	// writes between events, never during a read, so one connection with
	// no transaction reads a state that stands still.
	var data, schema int64
	err := w.db.QueryRowContext(ctx, `SELECT d.data_version, s.schema_version
		FROM pragma_data_version() d, pragma_schema_version() s`).Scan(&data, &schema)
	if err != nil {
		return nil, err
	}
	if w.last != nil && data == w.version {
		return w.last, nil
	}
	w.version = data
	if w.names == nil || schema != w.schema {
		if w.names, err = w.tableNames(ctx, w.db); err != nil {
			return nil, err
		}
		w.schema = schema
		w.closeStmts()
	}
	return w.readTables(ctx, w.db, w.names)
}

func (w *watch) readTables(ctx context.Context, q querier, names []string) ([]Table, error) {
	tables := make([]Table, 0, len(names))
	for _, name := range names {
		t, err := w.readTable(ctx, q, name)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		tables = append(tables, t)
	}
	return tables, nil
}

// rows runs a table's SELECT: on SQLite through a statement prepared once.
func (w *watch) rows(ctx context.Context, q querier, table, query string) (*sql.Rows, error) {
	if w.postgres {
		return q.QueryContext(ctx, query)
	}
	stmt, ok := w.stmts[table]
	if !ok {
		var err error
		if stmt, err = w.db.PrepareContext(ctx, query); err != nil {
			return nil, err
		}
		if w.stmts == nil {
			w.stmts = map[string]*sql.Stmt{}
		}
		w.stmts[table] = stmt
	}
	return stmt.QueryContext(ctx)
}

func (w *watch) closeStmts() {
	for _, st := range w.stmts {
		st.Close()
	}
	w.stmts = nil
}

func (w *watch) tableNames(ctx context.Context, tx querier) ([]string, error) {
	query := `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
	if w.postgres {
		query = `SELECT relname FROM pg_class
		          WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p')`
	}
	names, err := strings1(ctx, tx, query)
	if err != nil {
		return nil, err
	}
	names = slices.DeleteFunc(names, func(n string) bool { return strings.EqualFold(n, "LabInfo") })
	slices.SortFunc(names, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	return names, nil
}

// keyColumns are the table's primary key's columns, in key order, read
// once per table.
func (w *watch) keyColumns(ctx context.Context, tx querier, table string) ([]string, error) {
	if keys, ok := w.keys[table]; ok {
		return keys, nil
	}
	keys, err := w.readKeyColumns(ctx, tx, table)
	if err == nil {
		if w.keys == nil {
			w.keys = map[string][]string{}
		}
		w.keys[table] = keys
	}
	return keys, err
}

func (w *watch) readKeyColumns(ctx context.Context, tx querier, table string) ([]string, error) {
	if w.postgres {
		return strings1(ctx, tx, `
			SELECT a.attname FROM pg_index i
			  JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
			 WHERE i.indrelid = (quote_ident(current_schema()) || '.' || quote_ident($1))::regclass
			   AND i.indisprimary
			 ORDER BY array_position(i.indkey::int2[], a.attnum)`, table)
	}
	return strings1(ctx, tx, `SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk`, table)
}

func (w *watch) readTable(ctx context.Context, tx querier, name string) (Table, error) {
	keys, err := w.keyColumns(ctx, tx, name)
	if err != nil {
		return Table{}, err
	}
	order := "1"
	if len(keys) > 0 {
		quotedKeys := make([]string, len(keys))
		for i, k := range keys {
			quotedKeys[i] = quote(k)
		}
		order = strings.Join(quotedKeys, ", ")
	}
	rows, err := w.rows(ctx, tx, name, "SELECT * FROM "+quote(name)+" ORDER BY "+order)
	if err != nil {
		return Table{}, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return Table{}, err
	}
	t := Table{Name: strings.ToLower(name), Columns: make([]string, len(cols))}
	for i, c := range cols {
		t.Columns[i] = strings.ToLower(c)
		if slices.ContainsFunc(keys, func(k string) bool { return strings.EqualFold(k, c) }) {
			t.Key = append(t.Key, i)
		}
	}
	if len(t.Key) == 0 {
		for i := range cols {
			t.Key = append(t.Key, i)
		}
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return Table{}, err
		}
		row := make([]*string, len(cols))
		for i, v := range vals {
			row[i] = text(v)
		}
		t.Rows = append(t.Rows, row)
	}
	if len(keys) == 0 {
		// Ordered by every column, as text, the same on both databases.
		slices.SortFunc(t.Rows, func(a, b []*string) int { return strings.Compare(rowKey(a, t.Key), rowKey(b, t.Key)) })
	}
	return t, rows.Err()
}

// text is a cell as the change log shows it; nil for NULL.
func text(v any) *string {
	var s string
	switch v := v.(type) {
	case nil:
		return nil
	case int64:
		s = strconv.FormatInt(v, 10)
	case int32:
		s = strconv.FormatInt(int64(v), 10)
	case float64:
		s = strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		s = strconv.FormatBool(v)
	case []byte:
		s = string(v)
	case string:
		s = v
	case time.Time:
		s = clock.ISO(v)
	default:
		s = fmt.Sprint(v)
	}
	return &s
}

func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

func strings1(ctx context.Context, tx querier, query string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
