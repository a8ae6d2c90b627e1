package changelog

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"outboxlab/core/dialect"
	"strings"
)

// The lab's hold on the change log. The log lives in the run's database,
// where a worker can reach it: TEMP triggers that patch its rows, Lab
// triggers dropped and recreated, rows written, updated or deleted, a
// writable_schema edit, an ATTACH of the same file. So the lab trusts no
// row of it alone: at every turn boundary it reads, on a connection of its
// own and in one read transaction, the log's new rows and the Day's tables
// as they stand, and holds the one against the other — the rows at the
// last boundary, changed as the new log rows say, must be the rows now;
// every log row's old row must be the row as it stood; the log's numbers
// follow each other; and a log row the lab has read never changes after.

// Guard is the lab's record of the rows and of the log rows it has read.
type Guard struct {
	conn      *sql.Conn // the lab's own connection: no worker has it
	dialect   dialect.Dialect
	tables    []string
	selects   map[string]string // a table's snapshot query, rows as the triggers write them
	shape     string            // the schema as the lab made it (structureOf)
	lastShape string            // the schema at the last read
	rows      map[string]map[int64]image
	lastSeq   int64
	seen      map[int64][sha256.Size]byte // every log row read, by Seq: what it said
	version   int64                       // the database's commit count at the last read, where it keeps one
}

// image is one row as the triggers write it: column → text, and the NULLs.
type image struct {
	vals map[string]string
	null map[string]bool
	text string // canonical, to compare
}

func newImage(vals map[string]string, null map[string]bool) image {
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sortStrings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		if null[k] {
			b.WriteString("\x00N\x00")
		} else {
			b.WriteString("\x00V")
			b.WriteString(vals[k])
			b.WriteString("\x00")
		}
	}
	return image{vals: vals, null: null, text: b.String()}
}

// NewGuard takes the lab's first look, before any worker runs: the schema,
// the rows of tables (the ones the log records) and the log as it stands.
// The guard keeps a connection of db until Close.
func NewGuard(ctx context.Context, db *sql.DB, d dialect.Dialect, tables []string) (*Guard, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("hold the change log: %w", err)
	}
	g := &Guard{conn: conn, dialect: d, tables: tables,
		selects: map[string]string{}, seen: map[int64][sha256.Size]byte{}}
	for _, t := range tables {
		if g.selects[t], err = d.RowsAsJSON(ctx, conn, t); err != nil {
			conn.Close()
			return nil, fmt.Errorf("hold the change log: %w", err)
		}
	}
	if g.shape, err = structureOf(ctx, conn, d); err != nil {
		conn.Close()
		return nil, fmt.Errorf("hold the change log: %w", err)
	}
	g.lastShape = g.shape
	if _, err := g.Next(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return g, nil
}

// Close gives the lab's connection back.
func (g *Guard) Close() error { return g.conn.Close() }

// LastSeq is the last log row the lab has read.
func (g *Guard) LastSeq() int64 { return g.lastSeq }

// Next reads the log rows written since the last read and holds them
// against the rows as they stand now: its problems say what the log does
// not faithfully hold (the run was tampered with). The rows read become the
// lab's record whatever the log says.
func (g *Guard) Next(ctx context.Context) (look Look, err error) {
	tx, err := g.conn.BeginTx(ctx, g.dialect.SnapshotTx())
	if err != nil {
		return look, fmt.Errorf("read the change log: %w", err)
	}
	defer tx.Rollback()
	if look.Schema, err = g.structure(ctx, tx); err != nil {
		return look, err
	}
	news, raws, err := readLog(ctx, tx, g.lastSeq)
	if err != nil {
		return look, err
	}
	look.News = news
	now, err := g.snapshot(ctx, tx)
	if err != nil {
		look.Problems = []string{"the Day's tables cannot be read: " + OneLine(err)}
		return look, nil
	}
	g.version, _, _, _ = g.dialect.Commits(ctx, tx)
	if g.rows != nil {
		look.Problems = append(g.replay(news), unexplained(g.tables, g.rows, now)...)
	}
	for i, c := range news {
		g.seen[c.Seq] = raws[i]
		g.lastSeq = max(g.lastSeq, c.Seq)
	}
	g.rows = now
	return look, nil
}

// Look is what one read of the guard found.
type Look struct {
	News     []Change // the log rows written since the last read
	Problems []string // where they do not faithfully hold the rows: tampering
	// Schema says how the schema differs from the one the lab made, once
	// when it starts to ("" when it is the same, or the same as last time).
	Schema string
}

// Quiet reports whether nothing was written since the last read (SQLite:
// no other connection committed; PostgreSQL: the log has no new row). The
// scheduler asks it as a turn begins: what changed in between happened in
// nobody's turn.
func (g *Guard) Quiet(ctx context.Context) bool {
	if v, _, counted, err := g.dialect.Commits(ctx, g.conn); counted || err != nil {
		return err == nil && v == g.version
	}
	var seq sql.NullInt64
	err := g.conn.QueryRowContext(ctx, `SELECT max(Seq) FROM LabChangeLog`).Scan(&seq)
	return err == nil && seq.Int64 == g.lastSeq
}

// Rewritten reads the whole log once more and says which rows the lab read
// changed, vanished or appeared behind its back since.
func (g *Guard) Rewritten(ctx context.Context) ([]string, error) {
	all, raws, err := readLog(ctx, g.conn, -1<<62)
	if err != nil {
		return nil, err
	}
	var problems []string
	found := map[int64]bool{}
	for i, c := range all {
		found[c.Seq] = true
		sum, ok := g.seen[c.Seq]
		switch {
		case !ok && c.Seq <= g.lastSeq:
			problems = append(problems, fmt.Sprintf("log row %d (%s %d %s) appeared among rows already read",
				c.Seq, c.Table, c.RowID, c.Op))
		case ok && sum != raws[i]:
			problems = append(problems, fmt.Sprintf("log row %d (%s %d %s) was rewritten after the lab read it",
				c.Seq, c.Table, c.RowID, c.Op))
		}
	}
	for _, seq := range sortedKeys(g.seen) {
		if !found[seq] {
			problems = append(problems, fmt.Sprintf("log row %d was deleted after the lab read it", seq))
		}
	}
	return problems, nil
}

// snapshot reads every logged table's rows as the triggers write them.
func (g *Guard) snapshot(ctx context.Context, q querier) (map[string]map[int64]image, error) {
	out := map[string]map[int64]image{}
	for _, t := range g.tables {
		rows, err := q.QueryContext(ctx, g.selects[t])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t, err)
		}
		out[t] = map[int64]image{}
		for rows.Next() {
			var id int64
			var text string
			if err := rows.Scan(&id, &text); err != nil {
				rows.Close()
				return nil, fmt.Errorf("%s: %w", t, err)
			}
			out[t][id] = newImage(decodeRow(text))
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t, err)
		}
	}
	return out, nil
}

// querier is a *sql.Conn or a *sql.Tx.
type querier = dialect.Querier
