package pgdb

import (
	"context"
	"errors"
	"os"
	"strings"

	"outboxlab/core/proc"
)

// SweepOrphans drops the run schemas on the server at rawURL whose owner
// process is gone (a run killed before it could drop its own) and returns
// their names. It only judges schemas made on this host: a schema without an
// owner record (kept with --keep-db, or not the lab's) or another host's is
// left alone, and so is one it may not drop.
func SweepOrphans(ctx context.Context, rawURL string) ([]string, error) {
	db, err := Open(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT nspname, coalesce(obj_description(oid, 'pg_namespace'), '')
		FROM pg_namespace WHERE nspname LIKE $1 ORDER BY nspname`,
		strings.ReplaceAll(SchemaPrefix, "_", `\_`)+"%")
	if err != nil {
		return nil, classify("sweep run schemas", rawURL, err)
	}
	var orphans []string
	for rows.Next() {
		var name, comment string
		if err := rows.Scan(&name, &comment); err != nil {
			rows.Close()
			return nil, classify("sweep run schemas", rawURL, err)
		}
		if orphaned(comment) {
			orphans = append(orphans, name)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, classify("sweep run schemas", rawURL, err)
	}
	var dropped []string
	var errs []error
	for _, name := range orphans {
		err := inTx(ctx, db, "sweep run schemas", rawURL,
			"SET LOCAL lock_timeout = '5s'",
			"DROP SCHEMA IF EXISTS "+quoteIdent(name)+" CASCADE")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		dropped = append(dropped, name)
	}
	return dropped, errors.Join(errs...)
}

// orphaned reports whether an owner record names a process of this host that
// is gone.
func orphaned(record string) bool {
	i := strings.LastIndex(record, " host=")
	if i < 0 {
		return false
	}
	host, _ := os.Hostname()
	if record[i+len(" host="):] != host || host == "" {
		return false
	}
	owner, err := proc.ParseOwner(record[:i])
	return err == nil && !owner.Alive()
}
