// Package keyedlog is a keyed, partitioned message log on SQLite and a consumer
// that contains a failed record: dead letters, parking, poisoned correlation
// ids, key blocking, partition pause, dependsOn checks and replay by correlation id.
package keyedlog

import (
	"context"
	_ "embed"

	"outboxlab/core/claim"
)

//go:embed schema.sql
var Schema string

// SchemaVersion is recorded in LabInfo so that inspect can tell a lab database
// from any other SQLite file.
const SchemaVersion = "outboxlab/ordered-1"

// Store is the log and the consumer's tables on one SQLite file, on the
// claim engine's store (DB, Path, InTx, Tables, Close). The log needs no
// claim: one consumer owns every partition, and its position in each
// (ConsumerPartitions) is the ownership.
type Store struct {
	*claim.Store
}

// Open opens (creating if needed) the database file at path, applies Schema
// and then each of the business schemas, so that the business tables live in
// the same file and share the consumer's transactions.
func Open(ctx context.Context, path string, business ...string) (*Store, error) {
	cs, err := claim.Open(ctx, path, SchemaVersion, append([]string{Schema}, business...)...)
	if err != nil {
		return nil, err
	}
	return &Store{cs}, nil
}

// Table is one table of the schema.
type Table = claim.Table
