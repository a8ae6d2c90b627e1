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
	"outboxlab/core/dialect"
)

// open connects to the watched database once: one connection, that only
// reads (the dialect's reader).
func (w *watch) open(ctx context.Context) error {
	if w.db != nil {
		return nil
	}
	var err error
	w.db, err = w.database.OpenReader(ctx)
	return err
}

// read returns every table of the database but LabInfo, by name, each with
// its rows in key order.
func (w *watch) read(ctx context.Context) ([]Table, error) {
	if err := w.open(ctx); err != nil {
		return nil, err
	}
	data, schema, counted, err := w.database.Dialect().Commits(ctx, w.db)
	if err != nil {
		return nil, err
	}
	if !counted {
		return w.readAll(ctx)
	}
	// Where the database counts the commits of other connections and the
	// changes of the schema (SQLite): no commit since the last read, nothing
	// to read again; no new table, the same names. The run's driver writes
	// between events, never during a read, so one connection with no
	// transaction reads a state that stands still, through statements
	// prepared once.
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
		w.stmts = map[string]*sql.Stmt{}
	}
	return w.readTables(ctx, w.db, w.names)
}

// readAll reads every table again in one read-only transaction, where the
// database counts no commits.
func (w *watch) readAll(ctx context.Context) ([]Table, error) {
	tx, err := w.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
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

func (w *watch) readTables(ctx context.Context, q dialect.Querier, names []string) ([]Table, error) {
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

// rows runs a table's SELECT: through a statement prepared once when the
// reads run on the one connection (stmts set), else on q.
func (w *watch) rows(ctx context.Context, q dialect.Querier, table, query string) (*sql.Rows, error) {
	if w.stmts == nil {
		return q.QueryContext(ctx, query)
	}
	stmt, ok := w.stmts[table]
	if !ok {
		var err error
		if stmt, err = w.db.PrepareContext(ctx, query); err != nil {
			return nil, err
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

func (w *watch) tableNames(ctx context.Context, q dialect.Querier) ([]string, error) {
	names, err := w.database.Dialect().TableNames(ctx, q)
	if err != nil {
		return nil, err
	}
	names = slices.DeleteFunc(names, func(n string) bool { return strings.EqualFold(n, "LabInfo") })
	slices.SortFunc(names, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	return names, nil
}

// keyColumns are the table's primary key's columns, in key order, read
// once per table.
func (w *watch) keyColumns(ctx context.Context, tx dialect.Querier, table string) ([]string, error) {
	if keys, ok := w.keys[table]; ok {
		return keys, nil
	}
	keys, err := w.database.Dialect().PrimaryKey(ctx, tx, table)
	if err == nil {
		if w.keys == nil {
			w.keys = map[string][]string{}
		}
		w.keys[table] = keys
	}
	return keys, err
}

func (w *watch) readTable(ctx context.Context, tx dialect.Querier, name string) (Table, error) {
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
