package wassal

import (
	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
)

// The days' own SQL is written once, in SQLite's words with ? placeholders,
// and runs on either database through the store's Exec, QueryRow and Query
// (bound by its dialect: $n on PostgreSQL); a day's own tables are created
// by the store's CreateTable (translated by dialect.PostgresDDL there).

// onPostgres reports whether store's database is a PostgreSQL schema.
func onPostgres(store *outbox.Store) bool { return store.Dialect() == dialect.Postgres }
