// Package inspect is `outboxlab inspect`: the tables of a kept run database
// (SQLite file or PostgreSQL schema), whole or chosen, as bordered tables.
package inspect

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"outboxlab/cli/cmdutil"
	"outboxlab/core/dialect"
	"outboxlab/core/pgdb"
	"outboxlab/core/report"
)

// inspectOptions are the flags of inspect.
type inspectOptions struct {
	Location string // --db: a SQLite file path or a postgres:// URL
	Limit    int    // rows shown per table; 0 shows all
	Wide     bool   // print cells whole instead of cutting them at cellWidth columns
	// Tables are the tables to show (--table), none: all; Columns the
	// columns of each (--columns), none: all; Where a boolean expression
	// over their columns that picks the rows (--where).
	Tables, Columns []string
	Where           string
}

// NewCmd is the inspect command.
func NewCmd() *cobra.Command {
	opts := inspectOptions{Limit: 50}
	cmd := &cobra.Command{
		Use:   "inspect --db FILE|URL",
		Short: "Print the tables of a database kept with --keep-db",
		Long: `Prints every table of a lab database: the outbox, the payments, the dead
letters with their reasons, the audit log, and any table a scenario family adds.
Run a scenario with --keep-db to keep its database; the run prints the path.

The file is only read: nothing is created beside it and no byte of it changes.
Each table shows its first --limit rows and says how many more it has; a cell
wider than ` + strconv.Itoa(cmdutil.CellWidth) + ` columns is cut short with "…", and a table still wider
than the terminal's 100 columns prints each row as one "column: value" line per
column, values whole and wrapped; --wide prints full rows and cells whatever
their width. Control characters in the data are shown escaped (\x1b).

--table NAME (repeated, or a comma list) shows only those tables, compactly:
a line of column names and one line per row, no box. --columns a,b shows only
those columns, --where EXPR only the rows for which the SQL boolean
expression EXPR over the table's columns is true (one expression: no ";",
no comments; it runs inside the same read-only transaction). A name that is
not there, or an expression the database refuses, exits 2 naming what there
is. A SQLite file is an ordinary one: sqlite3 FILE opens it too.

On PostgreSQL, --db is the URL a run with --database and --keep-db printed
(it names the kept schema); the schema is read in one READ ONLY transaction.
A password left out of the URL, or shown redacted (xxxxx), is taken from
PGPASSWORD, else from OUTBOXLAB_DATABASE_URL when that URL is for the same
user.

Exits 0 after printing; 2 when --db is missing, names no file, names a
directory, a pipe or a device, or a file or schema that is not a lab database
(a malformed URL too); 3 when the file cannot be read (permission denied,
locked by another process) or the server is down or refuses the login.`,
		Example: `  outboxlab retry-with-dead-letter --keep-db --no-report
  outboxlab inspect --db /tmp/outboxlab-session-16-retry-with-dead-letter-123/outbox.db
  outboxlab inspect --db outbox.db --limit 0 --wide
  outboxlab inspect --db outbox.db --table OutboxMessages --columns MessageKey,Status,AttemptCount
  outboxlab inspect --db outbox.db --table OutboxMessages --where "Status = 'DeadLettered'"
  export PGPASSWORD=secret
  outboxlab inspect --db 'postgres://lab@db/lab?options=-csearch_path%3Doutboxlab_session_15_outbox_leasing_3f9a1c2b'`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Location == "" {
				return cmdutil.Usagef("inspect needs --db FILE or URL (a database kept with --keep-db)")
			}
			if opts.Limit < 0 {
				return cmdutil.Usagef("--limit must be 0 (all rows) or more, got %d", opts.Limit)
			}
			if err := checkSelection(opts); err != nil {
				return err
			}
			return inspect(cmd.Context(), cmd.OutOrStdout(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Location, "db", "", "the SQLite file, or the postgres:// URL of the schema, to inspect")
	cmd.Flags().IntVar(&opts.Limit, "limit", opts.Limit, "rows to show per table (0: all)")
	cmd.Flags().BoolVar(&opts.Wide, "wide", false, "print every cell whole")
	cmd.Flags().StringSliceVar(&opts.Tables, "table", nil, "show only this table, compactly (repeat, or a comma list)")
	cmd.Flags().StringSliceVar(&opts.Columns, "columns", nil, "with --table: show only these columns (a comma list)")
	cmd.Flags().StringVar(&opts.Where, "where", "", `with --table: only the rows where this SQL expression holds ("Status = 'Done'")`)
	return cmd
}

// The lab's own tables come first, in this order; the dead letters are a view
// of the outbox that students look for first.
var labTables = []string{"OutboxMessages", "Payments", "AuditLog"}

// listing is one table inspect prints: a title and the parts of its query.
// A compact listing (a table chosen with --table) prints a line of column
// names and a line per row instead of a box; where is its --where, "": none.
type listing struct {
	title, columns, from, orderBy string
	compact                       bool
	where                         string
}

func tableListing(name string) listing {
	return listing{title: name, columns: "*", from: quoteIdent(name)}
}

var deadLetters = listing{
	title:   "Dead letters (OutboxMessages with Status DeadLettered)",
	columns: "Id, MessageKey, Type, AttemptCount, MaxAttempts, DeadLetteredAtUtc, LastError",
	from:    "OutboxMessages WHERE Status = 'DeadLettered'",
	orderBy: " ORDER BY Id",
}

// quoteIdent quotes a name read from the schema as an SQL identifier.
func quoteIdent(name string) string { return dialect.QuoteIdent(name) }

func inspect(ctx context.Context, w io.Writer, opts inspectOptions) error {
	database, err := dialect.Parse(opts.Location)
	if err != nil {
		return cmdutil.Usagef("--db %s: %v", cmdutil.Show(pgdb.Redact(opts.Location)), err)
	}
	if database.Dialect() == dialect.Postgres {
		opts.Location = database.Location().URL()
		return inspectPostgres(ctx, w, opts)
	}
	db, err := cmdutil.OpenLab(ctx, opts.Location)
	if err != nil {
		return err
	}
	defer db.Close()
	// One read transaction: every table comes from the same snapshot.
	tx, err := db.BeginTx(ctx, dialect.SQLite.SnapshotTx())
	if err != nil {
		return cmdutil.ReadError(ctx, opts.Location, err)
	}
	defer tx.Rollback()
	if version, err := dialect.SQLite.LabVersion(ctx, tx); err != nil {
		return cmdutil.ReadError(ctx, opts.Location, err)
	} else if !strings.HasPrefix(version, "outboxlab") {
		return cmdutil.Usagef("%s is not an outboxlab database (keep one with --keep-db)", opts.Location)
	}
	return printTables(ctx, w, tx, tableSource{
		dialect: dialect.SQLite, title: cmdutil.Show(opts.Location), path: opts.Location,
		hint:      "\nAn ordinary SQLite file: this works too\n  sqlite3 " + shellWord(cmdutil.Show(opts.Location)) + "\n",
		readError: func(err error) error { return cmdutil.ReadError(ctx, opts.Location, err) },
	}, opts)
}

// tableSource is what printTables needs to know of the database it reads:
// what differs between databases is its dialect's.
type tableSource struct {
	dialect   dialect.Dialect
	title     string // after "Database " on the first line
	path      string // for an error writing the output
	hint      string // printed after the tables, e.g. that sqlite3 opens the file too
	readError func(error) error
}

// listings are the tables inspect prints, in its order: the lab's own first
// (the dead letters after the outbox), then the others in creation order.
// Names match whatever their case (PostgreSQL folds them to lower case).
func listings(tables []string) []listing {
	var out []listing
	isLab := func(t string) bool {
		return slices.ContainsFunc(labTables, func(l string) bool { return strings.EqualFold(l, t) })
	}
	for _, lab := range labTables {
		i := slices.IndexFunc(tables, func(t string) bool { return strings.EqualFold(t, lab) })
		if i < 0 {
			continue
		}
		out = append(out, tableListing(tables[i]))
		if lab == "OutboxMessages" {
			out = append(out, deadLetters)
		}
	}
	for _, t := range tables {
		if !isLab(t) && !strings.EqualFold(t, "LabInfo") {
			out = append(out, tableListing(t))
		}
	}
	return out
}

// printTables prints every table read in tx: the lab's own first, or those
// opts chose, then the database's own schema text (when it keeps one).
func printTables(ctx context.Context, w io.Writer, tx *sql.Tx, src tableSource, opts inspectOptions) error {
	tables, err := src.dialect.TableNames(ctx, tx)
	if err != nil {
		return src.readError(err)
	}
	if opts.Where != "" {
		// Belt and braces beside the read-only database and transaction: the
		// connection itself refuses to write while --where runs.
		if err := src.dialect.QueryOnly(ctx, tx); err != nil {
			return src.readError(err)
		}
	}
	cw := &checkedWriter{w: w}
	out := bufio.NewWriter(cw)
	chosen := listings(tables)
	if len(opts.Tables) > 0 {
		var err error
		if chosen, err = chosenListings(ctx, tx, tables, opts); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "Database %s\n", src.title)
	for _, l := range chosen {
		err := printListing(ctx, out, tx, l, opts, src.dialect)
		if err == nil {
			continue
		}
		if cw.err != nil {
			break
		}
		if l.where != "" {
			// The expression is the student's: what the database says of it is a usage error.
			return cmdutil.Usagef("--where %s on %s: %v", cmdutil.Show(quoted(l.where)), cmdutil.Show(l.title), err)
		}
		return src.readError(fmt.Errorf("table %s: %w", cmdutil.Show(l.title), err))
	}
	fmt.Fprint(out, src.hint)
	if cw.err == nil && len(opts.Tables) == 0 {
		if err := printSchema(ctx, out, tx, src); err != nil {
			return err
		}
	}
	if err := out.Flush(); err != nil {
		return cmdutil.CannotRun(fmt.Errorf("write the tables of %s: %w", src.path, err))
	}
	return nil
}

// printSchema prints the statements that created the tables, a last
// "## Schema" section (a run prints it only with --schema), where the
// database keeps them.
func printSchema(ctx context.Context, out *bufio.Writer, tx *sql.Tx, src tableSource) error {
	ddl, err := src.dialect.Schema(ctx, tx)
	if err != nil {
		return src.readError(fmt.Errorf("schema: %w", err))
	}
	if ddl != nil {
		fmt.Fprintf(out, "\n## Schema\n\n")
		for _, stmt := range ddl {
			for _, line := range strings.Split(stmt, "\n") {
				fmt.Fprintln(out, report.Fit(cmdutil.Show(line), report.MaxWidth))
			}
		}
	}
	return nil
}

// checkedWriter keeps the first error of w, so that a failed write (a closed
// stdout) is told from a failed read.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

// printListing prints l's row count and its first opts.Limit rows as a table.
// It reads the rows twice, once to size the columns and once to print them,
// so it never holds more than one row: a table of any length streams.
func printListing(ctx context.Context, w *bufio.Writer, tx *sql.Tx, l listing, opts inspectOptions, d dialect.Dialect) error {
	var total int64
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM "+l.from).Scan(&total); err != nil {
		return err
	}
	if l.compact {
		what := rowCount(total, "row")
		if l.where != "" {
			what += " where " + cmdutil.Show(l.where)
		}
		fmt.Fprintf(w, "\n%s (%s)\n", cmdutil.Show(l.title), what)
	} else {
		fmt.Fprintf(w, "\n## %s (%s)\n\n", cmdutil.Show(l.title), rowCount(total, "row"))
	}
	if total == 0 {
		return nil
	}
	orderBy := l.orderBy
	if orderBy == "" {
		orderBy = d.InsertionOrder()
	}
	// $1 reads the same on both databases (the SQLite driver binds $N too);
	// the --where in l.from is the student's text and is never rebound.
	query := "SELECT " + l.columns + " FROM " + l.from + orderBy + " LIMIT $1"
	var limit any = int64(opts.Limit)
	if opts.Limit == 0 {
		limit = int64(math.MaxInt64) // all rows
	}
	var widths []int
	measure := func(cells []string) error {
		if widths == nil {
			widths = make([]int, len(cells))
		}
		for i, c := range cells {
			widths[i] = max(widths[i], report.Width(c))
		}
		return nil
	}
	if _, err := eachRow(ctx, tx, query, limit, opts.Wide, measure, measure); err != nil {
		return err
	}
	if l.compact && (opts.Wide || compactWidth(widths) <= report.MaxWidth) {
		return printCompact(ctx, w, tx, query, limit, opts.Wide, widths, total)
	}
	if !opts.Wide && tableWidth(widths) > report.MaxWidth {
		return printVertical(ctx, w, tx, query, limit, total)
	}
	printHeader := func(cols []string) error {
		writeBorder(w, widths, "┌", "┬", "┐")
		writeCells(w, widths, cols)
		writeBorder(w, widths, "├", "┼", "┤")
		return nil
	}
	shown, err := eachRow(ctx, tx, query, limit, opts.Wide, printHeader, func(cells []string) error {
		return writeCells(w, widths, cells)
	})
	if err != nil {
		return err
	}
	writeBorder(w, widths, "└", "┴", "┘")
	if shown < total {
		fmt.Fprintf(w, "… %s; --limit 0 shows all\n", rowCount(total-shown, "more row"))
	}
	return nil
}
