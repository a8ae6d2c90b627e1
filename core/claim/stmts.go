package claim

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// maxStatements bounds a Store's statement cache. The engine writes a fixed
// set of statements per queue, returning list and set columns, a few dozen
// in the largest scenario; a statement past the bound runs unprepared.
const maxStatements = 256

// statements is a Store's cache of the engine's statements, prepared once
// per connection: database/sql prepares a *sql.Stmt on each connection of
// the pool the first time it runs there and reuses it after (Tx.StmtContext
// finds the connection's own), so a drain parses each statement once per
// connection instead of once per call.
//
// The cache belongs to one Store and so to one pool, keyed by the
// statement's text. On PostgreSQL every connection of a Store's pool has the
// run schema as its search_path (pgdb sets it in the connection's startup
// options, never with SET), so an unqualified table name in a cached
// statement can only ever name that schema's table: a second run's Store,
// even on the same server with the same statement text, has a cache and
// connections of its own.
//
// A statement is prepared outside any transaction: preparing takes a
// connection of the pool, and the one a transaction holds may be the only
// one (SetMaxOpenConns(1)). A statement first met inside a transaction runs
// unprepared that once and is prepared by the store's next InTx, before it
// begins.
type statements struct {
	mu      sync.Mutex
	m       map[string]*sql.Stmt
	pending map[string]bool
	closed  bool
}

// lookup returns query's prepared statement, or nil after noting it to be
// prepared (see prepareAll).
func (c *statements) lookup(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.m[query]
	if !ok && !c.closed && len(c.m)+len(c.pending) < maxStatements {
		if c.pending == nil {
			c.pending = map[string]bool{}
		}
		c.pending[query] = true
	}
	return st
}

// prepared returns query prepared on db, preparing it now if it is not yet.
// Call it outside any transaction of db. It is nil when the cache is full
// or closed (the caller runs query unprepared).
func (c *statements) prepared(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	if st := c.lookup(query); st != nil {
		return st, nil
	}
	if err := c.prepareAll(ctx, db); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[query], nil
}

// prepareAll prepares every statement noted since the last call. One that
// does not prepare is kept as nil and runs unprepared from then on, where
// its error, if it has one, is the statement's own.
func (c *statements) prepareAll(ctx context.Context, db *sql.DB) error {
	c.mu.Lock()
	var queries []string
	for q := range c.pending {
		queries = append(queries, q)
	}
	c.pending = nil
	c.mu.Unlock()
	for _, q := range queries {
		st, err := db.PrepareContext(ctx, q)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			st = nil
		}
		c.mu.Lock()
		if _, dup := c.m[q]; dup || c.closed {
			c.mu.Unlock()
			if st != nil {
				st.Close()
			}
			continue
		}
		if c.m == nil {
			c.m = map[string]*sql.Stmt{}
		}
		c.m[q] = st
		c.mu.Unlock()
	}
	return nil
}

// close closes every cached statement; later lookups run unprepared.
func (c *statements) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, st := range c.m {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	c.m, c.pending, c.closed = nil, nil, true
	return errors.Join(errs...)
}

// stmtQuery runs query on on, a transaction of the store or the store's
// own pool, on the store's prepared statement for it once there is one
// (see statements). On the pool the statement is prepared at once, since no
// transaction holds a connection.
func (s *Store) stmtQuery(ctx context.Context, on Querier, query string, args ...any) (*sql.Rows, error) {
	if st := s.stmtOn(ctx, on, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return on.QueryContext(ctx, query, args...)
}

// stmtExec is stmtQuery for a statement that returns no rows.
func (s *Store) stmtExec(ctx context.Context, on Querier, query string, args ...any) (sql.Result, error) {
	if st := s.stmtOn(ctx, on, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return on.ExecContext(ctx, query, args...)
}

// stmtOn is query's prepared statement for on, or nil to run it unprepared:
// a transaction's own (Tx.StmtContext), or the pool's when on is the
// store's pool.
func (s *Store) stmtOn(ctx context.Context, on Querier, query string) *sql.Stmt {
	switch on := on.(type) {
	case *sql.Tx:
		if st := s.stmts.lookup(query); st != nil {
			return on.StmtContext(ctx, st)
		}
	case *sql.DB:
		if on == s.db {
			if st, err := s.stmts.prepared(ctx, s.db, query); err == nil {
				return st
			}
		}
	}
	return nil
}

// dbQueryRow is stmtQuery outside a transaction, on the store's pool.
func (s *Store) dbQueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := s.stmts.prepared(ctx, s.db, query)
	if err != nil || st == nil {
		return s.db.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}
