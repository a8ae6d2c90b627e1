package wassal

import (
	"outboxlab/core/outbox"
)

// The days' own SQL is written once, in SQLite's words with ? placeholders,
// and runs on either database through the store's Exec, QueryRow and Query
// (bound by its dialect: $n on PostgreSQL); a day's own tables are created
// by the store's CreateTable (in its words: dialect.Dialect.DDL).

// serialWriters reports whether the writers of store's database take turns
// (SQLite's BEGIN IMMEDIATE), which the days' database lines explain.
func serialWriters(store *outbox.Store) bool { return store.Dialect().SerialWriters() }
