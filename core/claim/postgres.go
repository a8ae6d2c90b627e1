package claim

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/sqlitedb"
)

// Postgres is the dialect of a run schema on PostgreSQL (see core/pgdb). It
// writes gate.go's statements with $n placeholders; the claim's read ends in
// FOR UPDATE SKIP LOCKED (the batch claim's subquery too), so two claimers
// in READ COMMITTED transactions never take the same row and never wait on
// each other's. Times are clock.ISO text, as on SQLite: every text column is
// COLLATE "C" (OpenPostgres refuses a schema where one is not), so
// comparisons, MIN, GREATEST and ORDER BY go by bytes as they do on SQLite.
// Nothing reads the server's clock: now is always an argument.
var Postgres Dialect = postgresDialect{}

type postgresDialect struct{}

// skipLocked ends the claim's read: lock the rows it returns, passing over
// rows another claim has locked.
const skipLocked = ` FOR UPDATE SKIP LOCKED`

func (postgresDialect) Name() string { return "postgres" }

func (postgresDialect) Time(t time.Time) any { return sqlitedb.NullTime(t) }

func (d postgresDialect) ClaimSelect(q *Queue, r Request) (string, []any) {
	query, args := q.claimSelect(r, skipLocked)
	return d.Bind(query, args...)
}

func (d postgresDialect) ClaimRow(q *Queue, returning string, r Request, id int64) (string, []any) {
	query, args := q.claimRow(returning, r, id)
	return d.Bind(query, args...)
}

func (d postgresDialect) ClaimBatch(q *Queue, returning string, r Request) (string, []any) {
	sel, _ := q.claimSelect(r, skipLocked)
	query, args := q.claimBatch(returning, r, sel)
	return d.Bind(query, args...)
}

func (d postgresDialect) Settle(q *Queue, o Owner, sets []Set) (string, []any) {
	query, args := q.settle(d, o, sets)
	return d.Bind(query, args...)
}

func (d postgresDialect) Update(q *Queue, id int64, sets []Set) (string, []any) {
	query, args := q.update(d, id, sets)
	return d.Bind(query, args...)
}

// SettleAll passes the batch's rows as one array per column and reads them
// with unnest: one statement whatever the batch's size. A column whose
// values are all integers (or NULL) is a bigint[], any other a text[]; the
// owner is read COLLATE "C", the collation of every text column of the schema.
func (d postgresDialect) SettleAll(q *Queue, columns []string, rows []Settlement) (string, []any) {
	sh, values := shapeOf(d, columns, rows)
	ids, tokens := make([]int64, len(rows)), make([]int64, len(rows))
	for i, r := range rows {
		ids[i], tokens[i] = r.Owner.ID, r.Owner.Token
	}
	before, after := sh.args(rows, values)
	args := append(before, ids, tokens)
	arrays := []string{`?::bigint[]`, `?::bigint[]`}
	names := []string{`claim_id`, `claim_token`}
	selected := []string{`claim_id`, `claim_token`}
	if !sh.ownerSame {
		owners := make([]*string, len(rows))
		for i, r := range rows {
			owners[i] = &r.Owner.Owner
		}
		args, arrays = append(args, owners), append(arrays, `?::text[]`)
		names, selected = append(names, `claim_owner`), append(selected, `claim_owner COLLATE "C" AS claim_owner`)
	}
	for i, same := range sh.same {
		if same {
			continue
		}
		array, cast := pgArray(values, i)
		args, arrays = append(args, array), append(arrays, `?::`+cast)
		name := `set_` + strconv.Itoa(i)
		names, selected = append(names, name), append(selected, name)
	}
	from := `(SELECT ` + strings.Join(selected, ", ") + ` FROM unnest(` + strings.Join(arrays, ", ") + `) AS u(` +
		strings.Join(names, ", ") + `)) AS c`
	return d.Bind(q.settleAll(columns, sh, from), append(args, after...)...)
}

// pgArray is column i of values as a PostgreSQL array and its type.
func pgArray(values [][]any, i int) (any, string) {
	ints := true
	for _, row := range values {
		switch row[i].(type) {
		case nil, int, int64:
		default:
			ints = false
		}
	}
	if ints {
		out := make([]*int64, len(values))
		for j, row := range values {
			switch v := row[i].(type) {
			case int:
				n := int64(v)
				out[j] = &n
			case int64:
				out[j] = &v
			}
		}
		return out, "bigint[]"
	}
	out := make([]*string, len(values))
	for j, row := range values {
		switch v := row[i].(type) {
		case nil:
		case string:
			out[j] = &v
		default:
			panic(fmt.Sprintf("claim: settle a batch: column value %T is neither text nor an integer", v))
		}
	}
	return out, "text[]"
}

// Claimed passes the ids as one bigint[].
func (d postgresDialect) Claimed(q *Queue, returning string, ids []int64) (string, []any) {
	return d.Bind(q.claimed(returning, `SELECT unnest(?::bigint[])`), ids)
}

// NextDue names its subquery: PostgreSQL before 16 requires it.
func (d postgresDialect) NextDue(q *Queue, now time.Time) (string, []any) {
	query, args := q.nextDue(now, "GREATEST")
	return d.Bind(query+` AS due`, args...)
}

// InTx runs fn in one READ COMMITTED transaction (the server's default). The
// claim's row locks, not the transaction, keep claimers apart.
func (postgresDialect) InTx(ctx context.Context, db *sql.DB, fn func(tx *sql.Tx) error) error {
	return sqlitedb.InTx(ctx, db, fn) // a plain BeginTx: only the SQLite driver makes it IMMEDIATE
}

// Bind rewrites ? and :name placeholders as $1, $2, ... and orders args to
// match: each ? takes the next argument that is not a sql.NamedArg, each
// :name the sql.Named argument of that name (the same $n every time the name
// recurs). Quoted text and identifiers, comments and :: casts are left alone.
// A placeholder without an argument is a bug in the statement's writer and
// panics.
func (postgresDialect) Bind(query string, args ...any) (string, []any) {
	var positional []any
	named := map[string]any{}
	for _, a := range args {
		if n, ok := a.(sql.NamedArg); ok {
			named[n.Name] = n.Value
		} else {
			positional = append(positional, a)
		}
	}
	var b strings.Builder
	out := make([]any, 0, len(args))
	number := map[string]int{}
	bind := func(v any) {
		out = append(out, v)
		b.WriteString("$" + strconv.Itoa(len(out)))
	}
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case c == '\'' || c == '"':
			end := strings.IndexByte(query[i+1:], c)
			if end < 0 {
				end = len(query) - i - 1
			}
			b.WriteString(query[i : i+end+2])
			i += end + 1
		case c == '-' && strings.HasPrefix(query[i:], "--"):
			end := strings.IndexByte(query[i:], '\n')
			if end < 0 {
				end = len(query) - i
			}
			b.WriteString(query[i : i+end])
			i += end - 1
		case c == ':' && strings.HasPrefix(query[i:], "::"):
			b.WriteString("::")
			i++
		case c == ':' && i+1 < len(query) && isNameStart(query[i+1]):
			j := i + 1
			for j < len(query) && isNamePart(query[j]) {
				j++
			}
			name := query[i+1 : j]
			if n, ok := number[name]; ok {
				b.WriteString("$" + strconv.Itoa(n))
			} else if v, ok := named[name]; ok {
				bind(v)
				number[name] = len(out)
			} else {
				panic(fmt.Sprintf("claim: bind %q: no argument named %s", query, name))
			}
			i = j - 1
		case c == '?':
			if len(positional) == 0 {
				panic(fmt.Sprintf("claim: bind %q: more ? than arguments", query))
			}
			bind(positional[0])
			positional = positional[1:]
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), out
}

func isNameStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isNamePart(c byte) bool { return isNameStart(c) || c >= '0' && c <= '9' }
