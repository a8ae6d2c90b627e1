package dialect

import (
	"context"
	"database/sql"

	"outboxlab/core/dblocation"
	"outboxlab/core/pgdb"
	"outboxlab/core/sqlitedb"
)

// What the lab asks of the sessions another process opens on a database: a
// name the lab gives them (a child's, a graded worker's), ending them when
// the process dies (a session may still hold row locks), and whether one
// left a transaction open across a call to the lab. A file has no sessions
// to name or end; its open transaction is a write lock another connection
// cannot take.

// Named is d with the sessions of whoever opens it named name, and the name
// they carry (PostgreSQL cuts it to its identifier limit); d itself and ""
// where the database names no sessions.
func (d Database) Named(name string) (Database, string, error) {
	loc, got, err := d.dialect.NameSessions(d.loc, name)
	if err != nil {
		return Database{}, "", err
	}
	return Database{loc, d.dialect}, got, nil
}

// SessionName is the name the sessions opened on d carry ("" for none).
func (d Database) SessionName() string { return d.dialect.SessionName(d.loc) }

// EndSessions ends the sessions of d's server named name and waits until
// they are gone, so that the locks they held are free; nothing to do where
// the database names no sessions.
func (d Database) EndSessions(ctx context.Context, name string) error {
	if name == "" || d.SessionName() == "" {
		return nil
	}
	db, err := d.OpenReader(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return d.dialect.EndSessions(ctx, db, name)
}

// OpenTxProbe opens what tells whether a session of d holds a transaction
// open; pool is a connection pool the caller keeps open on d.
func (d Database) OpenTxProbe(ctx context.Context, pool *sql.DB) (TxProbe, error) {
	return d.dialect.OpenTxProbe(ctx, d.loc, pool)
}

// TxProbe tells whether the sessions named name (see Database.Named) hold a
// transaction open, and what that transaction is to the database.
type TxProbe interface {
	Holds(ctx context.Context, name string) (held bool, what string)
	Close() error
}

// NameSessions has nothing to name: a file's connections have no name.
func (sqliteDialect) NameSessions(loc dblocation.Location, _ string) (dblocation.Location, string, error) {
	return loc, "", nil
}

func (sqliteDialect) SessionName(dblocation.Location) string { return "" }

// EndSessions has nothing to end: a dead process's locks on a file go with it.
func (sqliteDialect) EndSessions(context.Context, *sql.DB, string) error { return nil }

// OpenTxProbe opens the file with no busy timeout: its BEGIN IMMEDIATE fails
// at once while another connection holds the write lock.
func (sqliteDialect) OpenTxProbe(_ context.Context, loc dblocation.Location, _ *sql.DB) (TxProbe, error) {
	db, err := sql.Open("sqlite", "file:"+sqlitedb.EscapePath(loc.Path())+"?_txlock=immediate&_pragma=busy_timeout(0)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return writeLockProbe{db}, nil
}

// writeLockProbe finds a held transaction by the write lock it holds: the
// file has one, whoever holds it.
type writeLockProbe struct{ db *sql.DB }

func (p writeLockProbe) Holds(ctx context.Context, _ string) (bool, string) {
	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return sqlitedb.IsBusy(err), "the database's write lock"
	}
	tx.Rollback()
	return false, ""
}

func (p writeLockProbe) Close() error { return p.db.Close() }

// NameSessions sets the URL's application_name.
func (postgresDialect) NameSessions(loc dblocation.Location, name string) (dblocation.Location, string, error) {
	u, err := pgdb.WithAppName(loc.URL(), name)
	if err != nil {
		return dblocation.Location{}, "", err
	}
	named, err := dblocation.ParsePostgres(u)
	if err != nil {
		return dblocation.Location{}, "", err
	}
	return named, pgdb.AppName(u), nil
}

// SessionName is the URL's application_name.
func (postgresDialect) SessionName(loc dblocation.Location) string { return pgdb.AppName(loc.URL()) }

// EndSessions terminates the server's backends of that application_name and
// waits until they are gone.
func (postgresDialect) EndSessions(ctx context.Context, db *sql.DB, name string) error {
	_, err := pgdb.TerminateBackends(ctx, db, name)
	return err
}

// OpenTxProbe reads the server's activity through pool.
func (postgresDialect) OpenTxProbe(_ context.Context, _ dblocation.Location, pool *sql.DB) (TxProbe, error) {
	return activityProbe{pool}, nil
}

// activityProbe finds a held transaction by its session's state: idle in
// transaction.
type activityProbe struct{ db *sql.DB }

func (p activityProbe) Holds(ctx context.Context, name string) (bool, string) {
	var n int
	err := p.db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
		WHERE application_name = $1 AND state LIKE 'idle in transaction%'`, name).Scan(&n)
	return err == nil && n > 0, "an open transaction (idle in transaction)"
}

func (activityProbe) Close() error { return nil }
