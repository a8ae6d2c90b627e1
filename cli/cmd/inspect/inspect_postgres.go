package inspect

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/dblocation"
	"outboxlab/core/dialect"
	"outboxlab/core/pgdb"
)

// redactedPassword is the mark pgdb.Redact puts where a password was: a URL
// copied from the lab's output carries it, and it means "no password here".
const redactedPassword = "xxxxx"

// inspectPostgres prints the tables of a kept run schema, read in one READ
// ONLY transaction (one snapshot, nothing written). A schema that is not a
// lab's is a usage error (exit 2), as a file that is not a lab database is;
// a server that is down or refuses the login is exit 3.
// opts.Location is the URL as dblocation.Parse normalized it (inspect).
func inspectPostgres(ctx context.Context, w io.Writer, opts inspectOptions) error {
	rawURL := withPassword(opts.Location, os.Getenv)
	shown := pgdb.Redact(opts.Location)
	if _, err := pgdb.ParseURL(rawURL); err != nil {
		return cmdutil.DatabaseError(fmt.Errorf("--db: %w", err), rawURL)
	}
	db, err := pgdb.Open(ctx, rawURL)
	if err != nil {
		return cmdutil.DatabaseError(err, rawURL)
	}
	defer db.Close()
	readErr := func(err error) error {
		if ctx.Err() != nil {
			return cmdutil.Interrupted("inspect interrupted")
		}
		return cmdutil.CannotRun(cmdutil.WithoutPassword(fmt.Errorf("read %s: %w", shown, err), rawURL))
	}
	tx, err := db.BeginTx(ctx, dialect.Postgres.SnapshotTx())
	if err != nil {
		return readErr(err)
	}
	defer tx.Rollback()
	var schema sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return readErr(err)
	}
	if !schema.Valid {
		return cmdutil.Usagef("%s names no schema that exists (pass the URL --keep-db printed)", shown)
	}
	if version, err := dialect.Postgres.LabVersion(ctx, tx); err != nil {
		return readErr(err)
	} else if !strings.HasPrefix(version, "outboxlab") {
		return cmdutil.Usagef("schema %s of %s is not an outboxlab schema (keep one with --keep-db)", cmdutil.Show(schema.String), shown)
	}
	return printTables(ctx, w, tx, tableSource{
		dialect: dialect.Postgres, title: cmdutil.Show(shown) + " (schema " + cmdutil.Show(schema.String) + ")", path: shown, readError: readErr,
	}, opts)
}

// withPassword is rawURL with the password it lacks (left out, or the
// redaction mark copied from the lab's output): none when PGPASSWORD is set
// (pgx reads it), else the password of the database variable's URL (pgdb.Selected) when that is
// for the same user. A URL with a real password is used as given.
func withPassword(rawURL string, getenv func(string) string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL // ParseURL says what is wrong with it
	}
	q := u.Query()
	if q.Get("password") == redactedPassword {
		q.Del("password")
		u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	}
	p, ok := u.User.Password()
	if ok && p != redactedPassword {
		return u.String()
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	if getenv("PGPASSWORD") != "" || q.Has("password") {
		return u.String()
	}
	env, _ := pgdb.Selected("", false, getenv)
	from, err := url.Parse(env)
	if err != nil || !dblocation.IsPostgres(env) {
		return u.String()
	}
	p, ok = from.User.Password()
	if !ok {
		p, ok = from.Query().Get("password"), from.Query().Has("password")
	}
	if !ok || userOf(from) != userOf(u) {
		return u.String()
	}
	if u.User != nil {
		u.User = url.UserPassword(u.User.Username(), p)
	} else {
		q.Set("password", p)
		u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	}
	return u.String()
}

// userOf is the user a URL logs in as: its user part's, or its user parameter.
func userOf(u *url.URL) string {
	if u.User != nil && u.User.Username() != "" {
		return u.User.Username()
	}
	return u.Query().Get("user")
}
