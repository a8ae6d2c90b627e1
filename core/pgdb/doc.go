// Package pgdb connects the lab to a PostgreSQL server given as a postgres:// URL and gives
// each run a schema of its own, dropped afterwards, so runs never see each other's rows.
//
// Connections go through pgx's database/sql driver (pgx/v5/stdlib), so stores keep
// *sql.DB and *sql.Tx on both backends. A run's schema is named for its scenario
// plus a random suffix and its comment names the owning process and host;
// SweepOrphans drops the schemas of runs that were killed before they could.
//
// Notes for the stores and reports, so a report body is byte-identical on SQLite and
// PostgreSQL:
//   - Rows come back in no defined order without ORDER BY on either backend, and
//     PostgreSQL really does return them in another order (after updates, in parallel
//     plans): every query whose rows reach a report orders by ids.
//   - Text sorts by the database's collation on PostgreSQL (en_US.UTF-8 on many servers:
//     case-insensitive-ish, punctuation ignored) and by bytes on SQLite: an ORDER BY on
//     text says COLLATE "C", or the sort happens in Go.
//   - Placeholders are $1, $2 (SQLite's ? does not parse); a claim is SELECT ... FOR
//     UPDATE SKIP LOCKED in a transaction instead of BEGIN IMMEDIATE; timestamps kept as
//     TEXT or integer milliseconds read back the same on both, timestamptz does not.
//   - The schema name is random: it may appear only on report lines marked as
//     describing the database, which compare skips.
//
// Errors for the server being down, a refused login and a missing privilege are
// classified (ErrServerDown, ErrLoginRefused, ErrNoPrivilege), arrive within the connect
// timeout (5 s unless the URL says connect_timeout), and never hold the password.
package pgdb
