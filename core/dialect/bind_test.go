package dialect

import (
	"database/sql"
	"reflect"
	"testing"
)

func TestPostgresBind(t *testing.T) {
	for _, tt := range []struct {
		query    string
		args     []any
		want     string
		wantArgs []any
	}{
		{`SELECT ? , ?`, []any{1, "a"}, `SELECT $1 , $2`, []any{1, "a"}},
		{`A < :now AND B <= :now LIMIT :limit`, []any{sql.Named("limit", 3), sql.Named("now", "t")},
			`A < $1 AND B <= $1 LIMIT $2`, []any{"t", 3}},
		{`SET X = ?, Y = ? WHERE Id = :id AND Z = ?`, []any{"x", sql.Named("id", 7), "y", "z"},
			`SET X = $1, Y = $2 WHERE Id = $3 AND Z = $4`, []any{"x", "y", 7, "z"}},
		{`SELECT 'a:b?', "c:d", x::text -- :e ?` + "\n" + `WHERE y = ?`, []any{5},
			`SELECT 'a:b?', "c:d", x::text -- :e ?` + "\n" + `WHERE y = $1`, []any{5}},
	} {
		got, gotArgs := Postgres.Bind(tt.query, tt.args...)
		if got != tt.want || !reflect.DeepEqual(gotArgs, tt.wantArgs) {
			t.Errorf("Bind(%q) = %q %v, want %q %v", tt.query, got, gotArgs, tt.want, tt.wantArgs)
		}
	}
}
