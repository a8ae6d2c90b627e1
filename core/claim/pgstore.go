package claim

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// pgLabInfo is sqlitedb's LabInfo marker in PostgreSQL's words.
const pgLabInfo = `CREATE TABLE IF NOT EXISTS LabInfo (
    Key   TEXT COLLATE "C" PRIMARY KEY,
    Value TEXT COLLATE "C" NOT NULL
)`

// OpenPostgres opens a Store on db, a pool whose connections all use one run
// schema (pgdb.CreateRunSchema's Run.DB, or pgdb.Open of its URL), applies
// each of schemas in order, records version in LabInfo unless the schema
// already has one, and takes db over (Close closes it; on an error db is
// left to the caller). The schemas are
// PostgreSQL DDL: every text column COLLATE "C", or OpenPostgres refuses
// them, since the engine compares and orders times as text. Several Stores
// may open the same schema at once, as two workers would.
func OpenPostgres(ctx context.Context, db *sql.DB, version string, schemas ...string) (*Store, error) {
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
		return nil, fmt.Errorf("create schema: %w", err)
	}
	return &Store{db: db, dialect: Postgres}, nil
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
