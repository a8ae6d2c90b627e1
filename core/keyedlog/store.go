// Package keyedlog is a keyed, partitioned message log (on SQLite or PostgreSQL) and a consumer
// that contains a failed record: dead letters, parking, poisoned correlation
// ids, key blocking, partition pause, dependsOn checks and replay by correlation id.
package keyedlog

import (
	"context"
	_ "embed"

	"outboxlab/core/claim"
	"outboxlab/core/dialect"
)

//go:embed schema.sql
var Schema string

// SchemaVersion is recorded in LabInfo so that inspect can tell a lab database
// from any other database.
const SchemaVersion = "outboxlab/ordered-2"

// Store is the log and the consumer's tables in one database, on the claim
// engine's store (DB, Path, InTx, Tables, Refused, Close). A consumer claims
// a partition (PartitionQueue) before it reads the head record, and moves
// the partition only while its claim holds.
type Store struct {
	*claim.Store
}

// Open opens (creating if needed) db (a SQLite file or a PostgreSQL run
// schema, see claim.Open), applies Schema and then each of the business
// schemas, so that the business tables live in the same
// database and share the consumer's transactions.
func Open(ctx context.Context, db dialect.Database, business ...string) (*Store, error) {
	cs, err := claim.Open(ctx, db, SchemaVersion, append([]string{Schema}, business...)...)
	if err != nil {
		return nil, err
	}
	return &Store{cs}, nil
}

// Table is one table of the schema.
type Table = claim.Table
