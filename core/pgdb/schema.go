package pgdb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/jackc/pgx/v5"

	"outboxlab/core/proc"
)

// SchemaPrefix starts the name of every run's schema; SweepOrphans looks only
// at schemas named so.
const SchemaPrefix = "outboxlab_"

// maxIdent is PostgreSQL's identifier limit (NAMEDATALEN-1): longer names
// are cut silently by the server, so names are cut here first.
const maxIdent = 63

// Run is one run's schema and a pool whose every connection uses it.
type Run struct {
	DB     *sql.DB // every pooled connection has search_path = Schema
	Schema string  // e.g. outboxlab_session_16_retry_with_dead_letter_3f9a1c2b
	URL    string  // the given URL set to Schema; secret: print Redact(URL)
	base   string  // the URL as given
	id     string  // the random suffix, also in the sessions' application_name
}

// CreateRunSchema creates a schema for one run of scenario on the server at
// rawURL, records this process and host as its owner (so SweepOrphans drops
// it if the run is killed) and returns a Run whose pool uses it. On any error
// nothing is left on the server.
func CreateRunSchema(ctx context.Context, rawURL, scenario string) (*Run, error) {
	if _, err := ParseURL(rawURL); err != nil {
		return nil, err
	}
	var buf [4]byte
	if _, err := rand.Read(buf[:]); err != nil {
		return nil, fmt.Errorf("create run schema: %w", err)
	}
	r := &Run{base: rawURL, id: hex.EncodeToString(buf[:])}
	r.Schema = schemaName(scenario, r.id)
	var err error
	if r.URL, err = WithSchema(rawURL, r.Schema, r.AppName("")); err != nil {
		return nil, err
	}
	if r.DB, err = Open(ctx, r.URL); err != nil {
		return nil, err
	}
	owner := ownerRecord()
	err = inTx(ctx, r.DB, "create run schema", rawURL,
		"CREATE SCHEMA "+quoteIdent(r.Schema),
		"COMMENT ON SCHEMA "+quoteIdent(r.Schema)+" IS "+quoteLiteral(owner))
	if err != nil {
		r.DB.Close()
		return nil, err
	}
	return r, nil
}

// AppName is the application_name of the sessions of this run's child named
// child ("" names the run's own pool). TerminateBackends finds them by it.
func (r *Run) AppName(child string) string {
	name := "outboxlab-" + r.id
	if child != "" {
		name += "-" + child
	}
	if len(name) > maxIdent {
		name = name[:maxIdent]
	}
	return name
}

// ChildEnv is the environment entry that gives child the run's schema, its
// sessions named AppName(child). The child opens it with Open(ctx,
// os.Getenv(EnvVar)).
func (r *Run) ChildEnv(child string) string {
	u, _ := WithSchema(r.base, r.Schema, r.AppName(child)) // r.base parsed already
	return EnvEntry(u)
}

// TerminateChild ends the server sessions of child (see TerminateBackends).
func (r *Run) TerminateChild(ctx context.Context, child string) (int, error) {
	return TerminateBackends(ctx, r.DB, r.AppName(child))
}

// Drop ends the sessions the run's children left, drops the schema with all
// it holds and closes the pool.
func (r *Run) Drop(ctx context.Context) error {
	defer r.DB.Close()
	conn, err := cleanupConn(ctx, r.DB, "drop run schema", r.base)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := terminate(ctx, conn, "application_name LIKE $1",
		strings.ReplaceAll(r.AppName(""), "_", `\_`)+`-%`); err != nil {
		return err
	}
	return inTx(ctx, conn, "drop run schema", r.base,
		"SET LOCAL lock_timeout = '10s'",
		"DROP SCHEMA IF EXISTS "+quoteIdent(r.Schema)+" CASCADE")
}

// Keep hands the schema to the user (--keep-db): it removes the owner record,
// so no sweep drops it, closes the pool, and returns the URL that inspect --db
// reads it with. The URL may hold a password: print Redact(url).
func (r *Run) Keep(ctx context.Context) (string, error) {
	defer r.DB.Close()
	conn, err := cleanupConn(ctx, r.DB, "keep run schema", r.base)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	err = inTx(ctx, conn, "keep run schema", r.base,
		"COMMENT ON SCHEMA "+quoteIdent(r.Schema)+" IS NULL")
	if err != nil {
		return "", err
	}
	return WithSchema(r.base, r.Schema, "")
}

// cleanupConn is a connection of db whose statement_timeout is off: a
// timeout the URL sets for a run's statements (options=-c
// statement_timeout=1) must not also stop its cleanup, which ctx bounds.
// A pooled connection the server has dropped (it restarted, or went away)
// is tried once more with a fresh one, as database/sql does for *sql.DB.
func cleanupConn(ctx context.Context, db *sql.DB, op, rawURL string) (*sql.Conn, error) {
	var err error
	for range 3 {
		var conn *sql.Conn
		if conn, err = db.Conn(ctx); err != nil {
			break
		}
		if _, err = conn.ExecContext(ctx, "SET statement_timeout = 0"); err == nil {
			return conn, nil
		}
		conn.Raw(func(any) error { return driver.ErrBadConn }) // not back into the pool
		conn.Close()
		if !errors.Is(err, driver.ErrBadConn) {
			break
		}
	}
	return nil, classify(op, rawURL, err)
}

// InspectHint is the line --keep-db prints for a schema kept at keptURL (what
// Keep returned): the inspect command that reads it, with the password
// redacted (give it back in the URL, or in PGPASSWORD, which pgx reads).
func InspectHint(keptURL string) string {
	return "inspect --db '" + Redact(keptURL) + "'"
}

// inTx runs statements in one transaction, so a failure leaves nothing.
func inTx(ctx context.Context, db interface {
	BeginTx(context.Context, *sql.TxOptions) (*sql.Tx, error)
}, op, rawURL string, stmts ...string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return classify(op, rawURL, err)
	}
	for _, stmt := range stmts {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			tx.Rollback()
			return classify(op, rawURL, err)
		}
	}
	return classify(op, rawURL, tx.Commit())
}

// schemaName is SchemaPrefix + scenario in lowercase letters, digits and
// underscores + "_" + id, cut to PostgreSQL's identifier limit.
func schemaName(scenario, id string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(scenario) {
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	name := b.String()
	if room := maxIdent - len(SchemaPrefix) - 1 - len(id); len(name) > room {
		name = name[:room]
	}
	return SchemaPrefix + name + "_" + id
}

// ownerRecord names this process and host: "pid=N start=N host=NAME".
func ownerRecord() string {
	host, _ := os.Hostname()
	return proc.Self().String() + " host=" + host
}

func quoteIdent(name string) string { return pgx.Identifier{name}.Sanitize() }

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
