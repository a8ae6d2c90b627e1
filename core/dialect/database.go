package dialect

import (
	"context"
	"database/sql"
	"fmt"

	"outboxlab/core/dblocation"
	"outboxlab/core/pgdb"
)

// Database is one database of the lab: where it is (a location parsed once,
// by Parse) and the dialect that reads it. It is what every store, the
// scenarios' environment, the change-log recorder, inspect and the grader
// are given, as database/sql hands a *sql.DB and River its driver: nothing
// that holds one asks again which database it is. Each Open of it is a pool
// of its own (two stores on one Database are two workers' connections).
//
// The zero Database is none. Its location may hold a password: print
// Redacted, hand the Database on.
type Database struct {
	loc     dblocation.Location
	dialect Dialect
}

// Parse makes the Database a user named (--database, the environment,
// inspect --db): a PostgreSQL URL (any letter case of postgres:// or
// postgresql://) or else a SQLite file path (see dblocation.Parse, whose
// errors it returns).
func Parse(location string) (Database, error) {
	loc, err := dblocation.Parse(location)
	if err != nil {
		return Database{}, err
	}
	return At(loc), nil
}

// At is the Database at loc, read by the dialect of its kind.
func At(loc dblocation.Location) Database {
	switch loc.Kind() {
	case dblocation.SQLite:
		return Database{loc, SQLite}
	case dblocation.Postgres:
		return Database{loc, Postgres}
	}
	return Database{}
}

// File is the SQLite file at path: a database the lab makes itself in a
// folder of its own.
func File(path string) Database { return At(dblocation.File(path)) }

// Dialect is the database's dialect; nil for the zero Database.
func (d Database) Dialect() Dialect { return d.dialect }

// Location is where the database is.
func (d Database) Location() dblocation.Location { return d.loc }

// IsZero reports whether d is no database.
func (d Database) IsZero() bool { return d.dialect == nil }

// String is the location (a path, or a URL that may hold a password): what
// a child process is handed on its command line. Print Redacted instead.
func (d Database) String() string { return d.loc.String() }

// Redacted is the location with any password replaced, for a message.
func (d Database) Redacted() string { return pgdb.Redact(d.loc.String()) }

// Open opens (creating if needed) the database, applies each of schemas
// (SQLite DDL, translated by the dialect) in order and records version in
// LabInfo unless the database already has one.
func (d Database) Open(ctx context.Context, version string, schemas ...string) (*sql.DB, error) {
	if d.IsZero() {
		return nil, errNone
	}
	return d.dialect.Open(ctx, d.loc, version, schemas...)
}

// OpenExisting opens the database, which must already be a lab database
// (LabInfo with an "outboxlab" version); it creates nothing.
func (d Database) OpenExisting(ctx context.Context) (*sql.DB, error) {
	if d.IsZero() {
		return nil, errNone
	}
	return d.dialect.OpenExisting(ctx, d.loc)
}

// OpenReader opens one connection that only reads the database, whatever
// its writers hold: what a watcher reads the rows through between a run's
// events.
func (d Database) OpenReader(ctx context.Context) (*sql.DB, error) {
	if d.IsZero() {
		return nil, errNone
	}
	return d.dialect.OpenReader(ctx, d.loc)
}

var errNone = fmt.Errorf("open database: no database named")

// Set parses s into d (Parse): a child process's --db flag is a Database
// (flag.Value and pflag.Value), parsed once where the child starts.
func (d *Database) Set(s string) error {
	v, err := Parse(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Type names the flag's value for pflag's help.
func (*Database) Type() string { return "database" }

// Passwords are the password d's location holds, in each spelling a message
// may quote it (none for a file): what output shown to a user must never
// hold.
func (d Database) Passwords() []string { return pgdb.Passwords(d.loc.String()) }
