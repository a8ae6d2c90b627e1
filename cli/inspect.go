package cli

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"outboxlab/core/report"
	"outboxlab/core/sqlitedb"
)

func newInspectCmd() *cobra.Command {
	var path string
	cmd := &cobra.Command{
		Use:   "inspect --db FILE",
		Short: "Print the tables of a database kept with --keep-db",
		Long: `Prints every table of a lab database: the outbox, the payments, the dead
letters with their reasons, the audit log, and any table a scenario family adds.
Run a scenario with --keep-db to keep its database; the run prints the path.

The file is opened read-only; a file that is not a lab database is refused.`,
		Example: `  outboxlab retry-with-dead-letter --keep-db --no-report
  outboxlab inspect --db /tmp/outboxlab-session-16-retry-with-dead-letter-123/outbox.db`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if path == "" {
				return usagef("inspect needs --db FILE (a database kept with --keep-db)")
			}
			return inspect(cmd.Context(), cmd.OutOrStdout(), path)
		},
	}
	cmd.Flags().StringVar(&path, "db", "", "the SQLite file to inspect")
	return cmd
}

// The lab's own tables come first, in this order; the dead letters are a view
// of the outbox that students look for first.
var labTables = []string{"OutboxMessages", "Payments", "AuditLog"}

func inspect(ctx context.Context, w io.Writer, path string) error {
	db, err := openReadOnly(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	tables, err := tableNames(ctx, db)
	if err != nil {
		return cannotRun(fmt.Errorf("read %s: %w", path, err))
	}
	fmt.Fprintf(w, "Database %s\n", path)
	order := slices.DeleteFunc(slices.Clone(labTables), func(t string) bool { return !slices.Contains(tables, t) })
	for _, t := range tables {
		if !slices.Contains(labTables, t) && t != "LabInfo" {
			order = append(order, t)
		}
	}
	for _, t := range order {
		if err := printQuery(ctx, w, db, t, `SELECT * FROM "`+t+`"`); err != nil {
			return cannotRun(fmt.Errorf("read table %s: %w", t, err))
		}
		if t == "OutboxMessages" {
			err := printQuery(ctx, w, db, "Dead letters (OutboxMessages with Status DeadLettered)",
				`SELECT Id, MessageKey, Type, AttemptCount, MaxAttempts, DeadLetteredAtUtc, LastError
				   FROM OutboxMessages WHERE Status = 'DeadLettered' ORDER BY Id`)
			if err != nil {
				return cannotRun(fmt.Errorf("read dead letters: %w", err))
			}
		}
	}
	return nil
}

// openReadOnly opens path without creating or changing it, and refuses
// anything that is not a lab database.
func openReadOnly(ctx context.Context, path string) (*sql.DB, error) {
	fi, err := os.Stat(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, usagef("cannot open %s: %v", path, err)
	}
	if fi.IsDir() {
		return nil, usagef("%s is a directory, not a database file", path)
	}
	db, err := sql.Open("sqlite", "file:"+sqlitedb.EscapePath(path)+"?mode=ro&_pragma=busy_timeout(2000)")
	if err != nil {
		return nil, cannotRun(fmt.Errorf("open %s: %w", path, err))
	}
	var version string
	err = db.QueryRowContext(ctx, `SELECT Value FROM LabInfo WHERE Key = 'schema'`).Scan(&version)
	switch {
	case err == nil && sqlitedb.IsLab(ctx, db):
		return db, nil
	case err != nil && strings.Contains(err.Error(), "locked"):
		db.Close()
		return nil, cannotRun(fmt.Errorf("%s is locked by another process; try again when it is done", path))
	}
	db.Close()
	return nil, usagef("%s is not an outboxlab database (keep one with --keep-db)", path)
}

func tableNames(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

func printQuery(ctx context.Context, w io.Writer, db *sql.DB, title, query string) error {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	var table [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = "NULL"
			if v.Valid {
				row[i] = v.String
			}
		}
		table = append(table, row)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n## %s (%d rows)\n\n", title, len(table))
	if len(table) > 0 {
		fmt.Fprint(w, report.RenderTable(cols, table))
	}
	return nil
}
