package dialect

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"outboxlab/core/dblocation"
	"outboxlab/core/pgdb"
)

// pgLabInfo is sqlitedb's LabInfo marker in PostgreSQL's words.
const pgLabInfo = `CREATE TABLE IF NOT EXISTS LabInfo (
    Key   TEXT COLLATE "C" PRIMARY KEY,
    Value TEXT COLLATE "C" NOT NULL
)`

// OpenPostgres prepares db, a pool whose connections all use one run schema
// (pgdb.CreateRunSchema's Run.DB, or pgdb.Open of its URL): it applies each
// of schemas in order and records version in LabInfo unless the schema
// already has one. The schemas are PostgreSQL DDL: every text column
// COLLATE "C", or OpenPostgres refuses them, since the engine compares and
// orders times as text. Several pools may open the same schema at once, as
// two workers would.
func OpenPostgres(ctx context.Context, db *sql.DB, version string, schemas ...string) error {
	err := Postgres.InTx(ctx, db, func(tx *sql.Tx) error {
		// DDL of two openers at once could collide in the catalog: one at a time per schema.
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext(current_schema()))`); err != nil {
			return err
		}
		for _, ddl := range append([]string{pgLabInfo}, schemas...) {
			if strings.TrimSpace(ddl) == "" {
				continue
			}
			if _, err := tx.ExecContext(ctx, ddl); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx,
			`INSERT INTO LabInfo (Key, Value) VALUES ('schema', $1) ON CONFLICT (Key) DO NOTHING`, version)
		if err != nil {
			return err
		}
		return checkCollation(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	return nil
}

// Open opens the run schema loc (a URL) names: schemas are SQLite DDL,
// translated by PostgresDDL.
func (postgresDialect) Open(ctx context.Context, loc dblocation.Location, version string, schemas ...string) (*sql.DB, error) {
	ddl := make([]string, len(schemas))
	for i, schema := range schemas {
		noteSpellings(schema)
		var err error
		if ddl[i], err = PostgresDDL(schema); err != nil {
			return nil, err
		}
	}
	db, err := pgdb.Open(ctx, loc.URL())
	if err != nil {
		return nil, err
	}
	if err := OpenPostgres(ctx, db, version, ddl...); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// OpenExisting opens the run schema loc (a URL) names: it must exist and
// hold a LabInfo whose version is the lab's.
func (postgresDialect) OpenExisting(ctx context.Context, loc dblocation.Location) (*sql.DB, error) {
	db, err := pgdb.Open(ctx, loc.URL())
	if err != nil {
		return nil, err
	}
	var version sql.NullString
	var marked bool
	err = db.QueryRowContext(ctx,
		`SELECT to_regclass(quote_ident(current_schema()) || '.labinfo') IS NOT NULL`).Scan(&marked)
	if err == nil && marked {
		err = db.QueryRowContext(ctx, `SELECT Value FROM LabInfo WHERE Key = 'schema'`).Scan(&version)
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		db.Close()
		return nil, fmt.Errorf("open database: %w", err)
	}
	if !strings.HasPrefix(version.String, "outboxlab") {
		db.Close()
		return nil, fmt.Errorf("%s is not an outboxlab database", pgdb.Redact(loc.URL()))
	}
	return db, nil
}

// OpenReader opens one connection to the run schema: a READ COMMITTED
// reader takes no lock a writer waits for.
func (postgresDialect) OpenReader(ctx context.Context, loc dblocation.Location) (*sql.DB, error) {
	db, err := pgdb.Open(ctx, loc.URL())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// checkCollation refuses text columns of the schema that do not sort by
// bytes: with the server's collation (en_US.UTF-8 on many servers) a
// comparison of times or an ORDER BY on text would differ from SQLite's.
func checkCollation(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `
		SELECT c.relname, a.attname, co.collname
		  FROM pg_attribute a
		  JOIN pg_class c ON c.oid = a.attrelid
		  JOIN pg_collation co ON co.oid = a.attcollation
		 WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
		   AND a.attnum > 0 AND NOT a.attisdropped AND co.collname NOT IN ('C', 'POSIX')
		 ORDER BY c.oid, a.attnum`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var bad []string
	for rows.Next() {
		var table, column, coll string
		if err := rows.Scan(&table, &column, &coll); err != nil {
			return err
		}
		bad = append(bad, fmt.Sprintf("%s.%s (%s)", table, column, coll))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(bad) > 0 {
		return fmt.Errorf(`text columns not COLLATE "C": %s`, strings.Join(bad, ", "))
	}
	return nil
}
