package changelog

import (
	"context"
	"database/sql"
	"strings"
)

// Row is one row read back as text, column names in lower case.
type Row map[string]sql.NullString

// Get is a column's text ("" when NULL).
func (r Row) Get(col string) string { return r[strings.ToLower(col)].String }

// Has reports whether a column is not NULL.
func (r Row) Has(col string) bool { return r[strings.ToLower(col)].Valid }

// Int is a column as a number (0 when it is not one).
func (r Row) Int(col string) int { return atoi(r.Get(col)) }

// ReadRows reads a table whole, every value as text.
func ReadRows(ctx context.Context, db *sql.DB, table string) ([]Row, error) {
	rows, err := db.QueryContext(ctx, `SELECT * FROM `+table+` ORDER BY Id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []Row
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		rw := Row{}
		for i, c := range cols {
			rw[strings.ToLower(c)] = vals[i]
		}
		out = append(out, rw)
	}
	return out, rows.Err()
}
