package dialect

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// The change log on SQLite: a table with an AUTOINCREMENT key and three
// triggers per table, each writing the row with json_object.

func (sqliteDialect) ChangeLogDDL(ctx context.Context, q Querier, tables []string) ([]string, error) {
	var b strings.Builder
	b.WriteString(`CREATE TABLE LabChangeLog (
    Seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    TableName TEXT    NOT NULL,
    RowId     INTEGER,
    Op        TEXT    NOT NULL,
    OldRow    TEXT,
    NewRow    TEXT
) STRICT;
`)
	for _, table := range tables {
		cols, err := sqliteColumns(ctx, q, table)
		if err != nil {
			return nil, err
		}
		obj := func(prefix string) string { return sqliteJSONRow(prefix, cols) }
		fmt.Fprintf(&b, "CREATE TRIGGER LabLog_%[1]s_Insert AFTER INSERT ON %[1]s BEGIN\n"+
			"    INSERT INTO LabChangeLog (TableName, RowId, Op, NewRow) VALUES ('%[1]s', NEW.Id, 'INSERT', %[2]s);\nEND;\n",
			table, obj("NEW"))
		fmt.Fprintf(&b, "CREATE TRIGGER LabLog_%[1]s_Update AFTER UPDATE ON %[1]s BEGIN\n"+
			"    INSERT INTO LabChangeLog (TableName, RowId, Op, OldRow, NewRow) VALUES ('%[1]s', NEW.Id, 'UPDATE', %[2]s, %[3]s);\nEND;\n",
			table, obj("OLD"), obj("NEW"))
		fmt.Fprintf(&b, "CREATE TRIGGER LabLog_%[1]s_Delete AFTER DELETE ON %[1]s BEGIN\n"+
			"    INSERT INTO LabChangeLog (TableName, RowId, Op, OldRow) VALUES ('%[1]s', OLD.Id, 'DELETE', %[2]s);\nEND;\n",
			table, obj("OLD"))
	}
	return []string{b.String()}, nil
}

func (sqliteDialect) RowsAsJSON(ctx context.Context, q Querier, table string) (string, error) {
	cols, err := sqliteColumns(ctx, q, table)
	if err != nil {
		return "", err
	}
	return `SELECT Id, ` + sqliteJSONRow(table, cols) + ` FROM ` + table + ` ORDER BY Id`, nil
}

func (sqliteDialect) ShapeQuery() string {
	return `SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_schema
		WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`
}

// StructureQuery: every object's SQL on one line (SQLite's catalog keeps
// no object ids).
func (sqliteDialect) StructureQuery() string {
	return `SELECT type || ' ' || name || ' ' || replace(replace(coalesce(sql, ''), char(10), ' '), char(13), ' ')
		FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'`
}

// SnapshotTx is a deferred BEGIN: it waits for no writer.
func (sqliteDialect) SnapshotTx() *sql.TxOptions { return &sql.TxOptions{ReadOnly: true} }

func (sqliteDialect) GaplessKeys() bool { return true }

// sqliteJSONRow is the JSON of a row as the log holds it: the columns'
// values under their names in lower case; prefix names the row (NEW, OLD,
// a table).
func sqliteJSONRow(prefix string, columns []string) string {
	parts := make([]string, 0, 2*len(columns))
	for _, c := range columns {
		parts = append(parts, fmt.Sprintf("'%s', %s.%s", strings.ToLower(c), prefix, c))
	}
	return "json_object(" + strings.Join(parts, ", ") + ")"
}

// sqliteColumns are a table's columns, in order.
func sqliteColumns(ctx context.Context, q Querier, table string) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM pragma_table_info('`+table+`') ORDER BY cid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("no table %s", table)
	}
	return cols, nil
}
