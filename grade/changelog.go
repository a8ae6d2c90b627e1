package grade

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// The change log: triggers in the graded database record every insert,
// update and delete on the Day's tables, so the lab knows which row changed
// in which turn whatever the worker's language. The lab reads the new rows
// at every turn boundary and attributes them to the worker whose turn it was.

// logged are the tables whose rows the change log records on every Day
// (Day 17 adds its Redrives and AuditLog).
var logged = []string{"Payments", "OutboxMessages"}

// change is one row of LabChangeLog.
type change struct {
	Seq      int64
	Table    string            // as the lab names it: Payments, OutboxMessages
	RowID    int64             // the row's Id
	Op       string            // INSERT, UPDATE or DELETE
	Old, New map[string]string // column (lower case) → value as text; nil when absent
	OldNull  map[string]bool   // columns of Old that are NULL
	NewNull  map[string]bool   // columns of New that are NULL

	Turn int // the turn it happened in (index into the run's turns); -1: no worker's turn
}

// value is a column of the new row ("" and false when NULL or absent).
func (c change) value(col string) (string, bool) {
	col = strings.ToLower(col)
	v, ok := c.New[col]
	return v, ok && !c.NewNull[col]
}

// old is a column of the old row ("" and false when NULL or absent).
func (c change) old(col string) (string, bool) {
	col = strings.ToLower(col)
	v, ok := c.Old[col]
	return v, ok && !c.OldNull[col]
}

// changedCol reports whether an UPDATE changed col.
func (c change) changedCol(col string) bool {
	col = strings.ToLower(col)
	return c.Old[col] != c.New[col] || c.OldNull[col] != c.NewNull[col]
}

// sqliteChangeLogDDL creates the log and one trigger per table and operation.
func sqliteChangeLogDDL(tables []string, columns map[string][]string) string {
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
		obj := func(prefix string) string {
			parts := make([]string, 0, 2*len(columns[table]))
			for _, c := range columns[table] {
				parts = append(parts, fmt.Sprintf("'%s', %s.%s", strings.ToLower(c), prefix, c))
			}
			return "json_object(" + strings.Join(parts, ", ") + ")"
		}
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
	return b.String()
}

// postgresChangeLogDDL is the same log on PostgreSQL: one plpgsql function,
// one row trigger per table. The function keeps the run's search_path.
func postgresChangeLogDDL(tables []string) []string {
	stmts := []string{
		`CREATE TABLE LabChangeLog (
    Seq       BIGSERIAL PRIMARY KEY,
    TableName TEXT COLLATE "C" NOT NULL,
    RowId     BIGINT,
    Op        TEXT COLLATE "C" NOT NULL,
    OldRow    TEXT COLLATE "C",
    NewRow    TEXT COLLATE "C"
)`,
		`CREATE FUNCTION LabLogChange() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO LabChangeLog (TableName, RowId, Op, OldRow)
            VALUES (TG_ARGV[0], OLD.id, TG_OP, row_to_json(OLD)::text);
        RETURN OLD;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO LabChangeLog (TableName, RowId, Op, OldRow, NewRow)
            VALUES (TG_ARGV[0], NEW.id, TG_OP, row_to_json(OLD)::text, row_to_json(NEW)::text);
        RETURN NEW;
    END IF;
    INSERT INTO LabChangeLog (TableName, RowId, Op, NewRow)
        VALUES (TG_ARGV[0], NEW.id, TG_OP, row_to_json(NEW)::text);
    RETURN NEW;
END $$`,
	}
	for _, table := range tables {
		stmts = append(stmts, fmt.Sprintf(`CREATE TRIGGER LabLog_%[1]s AFTER INSERT OR UPDATE OR DELETE ON %[1]s
    FOR EACH ROW EXECUTE FUNCTION LabLogChange('%[1]s')`, table))
	}
	return stmts
}

// readChanges reads the log's rows after seq.
func readChanges(ctx context.Context, db *sql.DB, after int64) ([]change, error) {
	rows, err := db.QueryContext(ctx,
		`SELECT Seq, TableName, RowId, Op, OldRow, NewRow FROM LabChangeLog WHERE Seq > $1 ORDER BY Seq`, after)
	if err != nil {
		return nil, fmt.Errorf("read the change log: %w", err)
	}
	defer rows.Close()
	var out []change
	for rows.Next() {
		var c change
		var rowID sql.NullInt64
		var oldRow, newRow sql.NullString
		if err := rows.Scan(&c.Seq, &c.Table, &rowID, &c.Op, &oldRow, &newRow); err != nil {
			return nil, fmt.Errorf("read the change log: %w", err)
		}
		c.RowID = rowID.Int64
		if oldRow.Valid {
			c.Old, c.OldNull = decodeRow(oldRow.String)
		}
		if newRow.Valid {
			c.New, c.NewNull = decodeRow(newRow.String)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// decodeRow turns a row's JSON into column → text, and which are NULL.
func decodeRow(text string) (map[string]string, map[string]bool) {
	values, isNull := map[string]string{}, map[string]bool{}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return values, isNull
	}
	for k, v := range m {
		k = strings.ToLower(k)
		switch v := v.(type) {
		case nil:
			isNull[k] = true
			values[k] = ""
		case string:
			values[k] = v
		case json.Number:
			values[k] = v.String()
		default:
			raw, _ := json.Marshal(v)
			values[k] = string(raw)
		}
	}
	return values, isNull
}

// schemaShape is what the lab compares before and after a run to know that
// no table, column, index or trigger was dropped or altered.
func schemaShape(ctx context.Context, db *sql.DB, postgres bool) (string, error) {
	query := `SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_schema
		WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`
	if postgres {
		query = `SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable
			FROM information_schema.columns WHERE table_schema = current_schema()
			UNION ALL
			SELECT 'trigger ' || t.tgname || ' ' || t.tgenabled::text || ' ' || c.relname
			FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
			WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
			UNION ALL
			SELECT 'function ' || p.proname || ' ' || md5(p.prosrc) FROM pg_proc p
			WHERE p.pronamespace = current_schema()::regnamespace
			UNION ALL
			SELECT 'index ' || indexname || ' ' || indexdef FROM pg_indexes WHERE schemaname = current_schema()`
	}
	rows, err := db.QueryContext(ctx, query)
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

// installChangeLog creates LabChangeLog and its triggers.
func installChangeLog(ctx context.Context, db *sql.DB, pg bool, tables []string) error {
	if pg {
		for _, stmt := range postgresChangeLogDDL(tables) {
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("install the change log: %w", err)
			}
		}
		return nil
	}
	cols := map[string][]string{}
	for _, t := range tables {
		rows, err := db.QueryContext(ctx, `SELECT name FROM pragma_table_info('`+t+`') ORDER BY cid`)
		if err != nil {
			return fmt.Errorf("install the change log: %w", err)
		}
		for rows.Next() {
			var c string
			rows.Scan(&c)
			cols[t] = append(cols[t], c)
		}
		rows.Close()
	}
	if _, err := db.ExecContext(ctx, sqliteChangeLogDDL(tables, cols)); err != nil {
		return fmt.Errorf("install the change log: %w", err)
	}
	return nil
}

func schemaDiff(before, after string, err error) string {
	if err != nil {
		return "the schema cannot be read: " + oneLine(err)
	}
	b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
	var gone, added []string
	for _, l := range b {
		if !slices.Contains(a, l) {
			gone = append(gone, firstWords(l, 3))
		}
	}
	for _, l := range a {
		if !slices.Contains(b, l) {
			added = append(added, firstWords(l, 3))
		}
	}
	sort.Strings(gone)
	sort.Strings(added)
	return fmt.Sprintf("the schema changed: gone or altered %s; new %s",
		orNone(strings.Join(gone, ", ")), orNone(strings.Join(added, ", ")))
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
