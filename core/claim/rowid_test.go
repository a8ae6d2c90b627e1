package claim

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"outboxlab/internal/pgtest"
)

// rowidSchema has SQLite's rowid alias, a unique key for ON CONFLICT, and a
// reserved word for a table name.
const rowidSchema = `CREATE TABLE IF NOT EXISTS Items (
    Id   INTEGER PRIMARY KEY,
    Name TEXT NOT NULL UNIQUE
) STRICT;
CREATE TABLE IF NOT EXISTS "Order" (Id INTEGER PRIMARY KEY, N INTEGER) STRICT;`

// openRowid opens rowidSchema on b through Open, the way families do.
func openRowid(t *testing.T, b backend) *Store {
	if b.name == "sqlite" {
		return b.database(t, ddl{sqlite: rowidSchema})()
	}
	run := pgtestRun(t)
	s, err := Open(context.Background(), pgtest.Parse(t, run.URL), testVersion, rowidSchema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func insertItem(ctx context.Context, s *Store, tx *sql.Tx, name string) (int64, error) {
	var id int64
	q, args := s.Dialect().Bind(`INSERT INTO Items (Name) VALUES (?) ON CONFLICT DO NOTHING RETURNING Id`, name)
	err := tx.QueryRowContext(ctx, q, args...).Scan(&id)
	return id, err
}

// Ids are numbered as SQLite numbers a rowid alias on both databases: a
// rolled-back insert and one that hit ON CONFLICT DO NOTHING take no number
// (a PostgreSQL sequence would skip 3 and 4 here), an explicit id moves the
// numbering on, and a statement inserting several rows numbers them in turn.
func TestRowidNumberingIsSQLites(t *testing.T) {
	onEachDialect(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		s := openRowid(t, b)
		var got []int64
		add := func(name string) {
			err := s.InTx(ctx, func(tx *sql.Tx) error {
				id, err := insertItem(ctx, s, tx, name)
				if errors.Is(err, sql.ErrNoRows) {
					return nil // the conflict: nothing inserted
				}
				got = append(got, id)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		add("a")
		add("b")
		rollback := errors.New("rolled back")
		if err := s.InTx(ctx, func(tx *sql.Tx) error {
			if _, err := insertItem(ctx, s, tx, "gone"); err != nil {
				return err
			}
			return rollback
		}); !errors.Is(err, rollback) {
			t.Fatal(err)
		}
		add("a") // conflict
		add("c")
		q, args := s.Dialect().Bind(`INSERT INTO Items (Id, Name) VALUES (?, ?)`, 10, "ten")
		if _, err := s.DB().ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
		add("d")
		if _, err := s.DB().ExecContext(ctx, `INSERT INTO Items (Name) VALUES ('e'), ('f')`); err != nil {
			t.Fatal(err)
		}
		q = `INSERT INTO "Order" (N) VALUES (7) RETURNING Id`
		var order int64
		if err := s.DB().QueryRowContext(ctx, q).Scan(&order); err != nil || order != 1 {
			t.Fatalf("insert into \"Order\" = id %d, %v; want 1", order, err)
		}
		rows, err := s.DB().QueryContext(ctx, `SELECT Id FROM Items ORDER BY Id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var all []int64
		for rows.Next() {
			var id int64
			rows.Scan(&id)
			all = append(all, id)
		}
		if want := []int64{1, 2, 3, 11}; !slices.Equal(got, want) {
			t.Errorf("ids returned = %v, want %v", got, want)
		}
		if want := []int64{1, 2, 3, 10, 11, 12, 13}; !slices.Equal(all, want) {
			t.Errorf("ids stored = %v, want %v", all, want)
		}
	})
}

// Concurrent inserts on PostgreSQL (READ COMMITTED, each in a transaction
// that also does other work) never collide: every one commits, ids 1..n.
func TestRowidConcurrentInsertsOnPostgres(t *testing.T) {
	s := openRowid(t, postgres)
	ctx := context.Background()
	const workers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				err := s.InTx(ctx, func(tx *sql.Tx) error {
					_, err := insertItem(ctx, s, tx, fmt.Sprintf("w%d-%d", w, i))
					return err
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var n, lo, hi int64
	if err := s.DB().QueryRowContext(ctx, `SELECT count(*), MIN(Id), MAX(Id) FROM Items`).Scan(&n, &lo, &hi); err != nil {
		t.Fatal(err)
	}
	if n != workers*each || lo != 1 || hi != workers*each {
		t.Fatalf("%d rows with ids %d..%d, want %d rows 1..%d", n, lo, hi, workers*each, workers*each)
	}
}
