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
	"outboxlab/core/dialect"
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

// Install creates LabChangeLog and its triggers on tables, in d's words.
func Install(ctx context.Context, db *sql.DB, d dialect.Dialect, tables []string) error {
	stmts, err := d.ChangeLogDDL(ctx, db, tables)
	if err != nil {
		return fmt.Errorf("install the change log: %w", err)
	}
	for _, stmt := range stmts {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("install the change log: %w", err)
		}
	}
	return nil
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
