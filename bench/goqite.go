package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"time"

	"maragu.dev/goqite"
)

// goqiteSchema is maragu.dev/goqite v0.4.0's schema_sqlite.sql, verbatim:
// the package embeds it only in an internal test helper.
const goqiteSchema = `create table goqite (
  id text primary key default ('m_' || lower(hex(randomblob(16)))),
  created text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  updated text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  queue text not null,
  body blob not null,
  timeout text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  received integer not null default 0,
  priority integer not null default 0
) strict;

create trigger goqite_updated_timestamp after update on goqite begin
  update goqite set updated = strftime('%Y-%m-%dT%H:%M:%fZ') where id = old.id;
end;

create index goqite_queue_priority_created_idx on goqite (queue, priority desc, created);`

// goqiteDrain sends n messages (SendTx, one transaction), then receives,
// processes and deletes them one by one with Receive and Delete, as goqite's
// API does: each is a transaction of its own.
func goqiteDrain(ctx context.Context, dir string, n int) (result, error) {
	res := result{name: "goqite v0.4.0 Receive + Delete", n: n}
	db, err := openDB(filepath.Join(dir, "goqite.db"))
	if err != nil {
		return res, err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, goqiteSchema); err != nil {
		return res, fmt.Errorf("goqite schema: %w", err)
	}
	q := goqite.New(goqite.NewOpts{DB: db, Name: "bench", Timeout: time.Minute})
	start := time.Now()
	err = inTx(ctx, db, func(tx *sql.Tx) error {
		for range n {
			if err := q.SendTx(ctx, tx, goqite.Message{Body: []byte(`{"n":1}`)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("goqite send: %w", err)
	}
	res.send = time.Since(start)
	// goqite compares timeouts at millisecond precision: let the last send's become due.
	time.Sleep(2 * time.Millisecond)
	processed := 0
	start = time.Now()
	for {
		m, err := q.Receive(ctx)
		if err != nil {
			return res, fmt.Errorf("goqite receive: %w", err)
		}
		if m == nil {
			break
		}
		processed++
		if err := q.Delete(ctx, m.ID); err != nil {
			return res, fmt.Errorf("goqite delete: %w", err)
		}
	}
	res.drain = time.Since(start)
	if processed != n {
		return res, fmt.Errorf("goqite drained %d of %d", processed, n)
	}
	return res, nil
}
