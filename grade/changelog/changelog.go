// Package changelog is how the lab sees a worker's rows whatever its
// language: triggers in the graded database record every insert, update and
// delete on the Day's tables in LabChangeLog, which the lab reads at every
// turn boundary; the rows a run leaves behind are read back as text.
package changelog

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Logged are the tables whose rows the change log records on every Day (a
// Day may add its own).
var Logged = []string{"Payments", "OutboxMessages"}

// Change is one row of LabChangeLog.
type Change struct {
	Seq      int64
	Table    string            // as the lab names it: Payments, OutboxMessages
	RowID    int64             // the row's Id
	Op       string            // INSERT, UPDATE or DELETE
	Old, New map[string]string // column (lower case) → value as text; nil when absent
	OldNull  map[string]bool   // columns of Old that are NULL
	NewNull  map[string]bool   // columns of New that are NULL

	Turn int // the turn it happened in (an index into the run's turns); -1: no worker's turn
}

// NewValue is a column of the new row ("" and false when NULL or absent).
func (c Change) NewValue(col string) (string, bool) {
	col = strings.ToLower(col)
	v, ok := c.New[col]
	return v, ok && !c.NewNull[col]
}

// OldValue is a column of the old row ("" and false when NULL or absent).
func (c Change) OldValue(col string) (string, bool) {
	col = strings.ToLower(col)
	v, ok := c.Old[col]
	return v, ok && !c.OldNull[col]
}

// NewInt and OldInt are a column of the new or old row as a number (0 when
// it is not one).
func (c Change) NewInt(col string) int { return atoi(c.New[strings.ToLower(col)]) }
func (c Change) OldInt(col string) int { return atoi(c.Old[strings.ToLower(col)]) }

// Changed reports whether an UPDATE changed col.
func (c Change) Changed(col string) bool {
	col = strings.ToLower(col)
	return c.Old[col] != c.New[col] || c.OldNull[col] != c.NewNull[col]
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// sqliteDDL creates the log and one trigger per table and operation.
func sqliteDDL(tables []string, columns map[string][]string) string {
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
		obj := func(prefix string) string { return jsonRow(prefix, columns[table]) }
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

// jsonRow is the JSON of a row as the log holds it: the columns' values
// under their names in lower case; prefix names the row (NEW, OLD, a table).
func jsonRow(prefix string, columns []string) string {
	parts := make([]string, 0, 2*len(columns))
	for _, c := range columns {
		parts = append(parts, fmt.Sprintf("'%s', %s.%s", strings.ToLower(c), prefix, c))
	}
	return "json_object(" + strings.Join(parts, ", ") + ")"
}

// postgresDDL is the same log on PostgreSQL: one plpgsql function, one row
// trigger per table. The function's search_path is the run's schema, then
// pg_temp: a worker's TEMP table named LabChangeLog does not catch its rows.
func postgresDDL(schema string, tables []string) []string {
	stmts := []string{
		`CREATE TABLE LabChangeLog (
    Seq       BIGSERIAL PRIMARY KEY,
    TableName TEXT COLLATE "C" NOT NULL,
    RowId     BIGINT,
    Op        TEXT COLLATE "C" NOT NULL,
    OldRow    TEXT COLLATE "C",
    NewRow    TEXT COLLATE "C"
)`,
		`CREATE FUNCTION LabLogChange() RETURNS trigger LANGUAGE plpgsql SET search_path = ` + schema + `, pg_temp AS $$
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

// Install creates LabChangeLog and its triggers on tables.
func Install(ctx context.Context, db *sql.DB, postgres bool, tables []string) error {
	if postgres {
		var schema string
		if err := db.QueryRowContext(ctx, `SELECT quote_ident(current_schema())`).Scan(&schema); err != nil {
			return fmt.Errorf("install the change log: %w", err)
		}
		for _, stmt := range postgresDDL(schema, tables) {
			if _, err := db.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("install the change log: %w", err)
			}
		}
		return nil
	}
	cols := map[string][]string{}
	for _, t := range tables {
		var err error
		if cols[t], err = columns(ctx, db, t); err != nil {
			return fmt.Errorf("install the change log: %w", err)
		}
	}
	if _, err := db.ExecContext(ctx, sqliteDDL(tables, cols)); err != nil {
		return fmt.Errorf("install the change log: %w", err)
	}
	return nil
}

// Read reads the log's rows after seq.
func Read(ctx context.Context, db *sql.DB, after int64) ([]Change, error) {
	out, _, err := readLog(ctx, db, after)
	return out, err
}

// readLog reads the log's rows after seq, and a digest of each as stored.
func readLog(ctx context.Context, q querier, after int64) ([]Change, [][sha256.Size]byte, error) {
	rows, err := q.QueryContext(ctx,
		`SELECT Seq, TableName, RowId, Op, OldRow, NewRow FROM LabChangeLog WHERE Seq > $1 ORDER BY Seq`, after)
	if err != nil {
		return nil, nil, fmt.Errorf("read the change log: %w", err)
	}
	defer rows.Close()
	var out []Change
	var sums [][sha256.Size]byte
	for rows.Next() {
		var c Change
		var rowID sql.NullInt64
		var oldRow, newRow sql.NullString
		if err := rows.Scan(&c.Seq, &c.Table, &rowID, &c.Op, &oldRow, &newRow); err != nil {
			return nil, nil, fmt.Errorf("read the change log: %w", err)
		}
		c.RowID = rowID.Int64
		if oldRow.Valid {
			c.Old, c.OldNull = decodeRow(oldRow.String)
		}
		if newRow.Valid {
			c.New, c.NewNull = decodeRow(newRow.String)
		}
		out = append(out, c)
		sums = append(sums, sha256.Sum256(fmt.Appendf(nil, "%s\x00%v\x00%s\x00%v %q\x00%v %q",
			c.Table, rowID, c.Op, oldRow.Valid, oldRow.String, newRow.Valid, newRow.String)))
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("read the change log: %w", err)
	}
	return out, sums, nil
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
