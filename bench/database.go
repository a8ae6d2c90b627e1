package main

import (
	"context"

	"outboxlab/core/dialect"
	"outboxlab/core/outbox"
)

// openAt opens a fresh outbox at location (a SQLite file or a PostgreSQL
// schema's URL), parsed into the lab's database value as the lab's command
// line does.
func openAt(ctx context.Context, location string) (*outbox.Store, error) {
	db, err := dialect.Parse(location)
	if err != nil {
		return nil, err
	}
	return outbox.Open(ctx, db)
}

// openExistingAt opens the outbox already at location.
func openExistingAt(ctx context.Context, location string) (*outbox.Store, error) {
	db, err := dialect.Parse(location)
	if err != nil {
		return nil, err
	}
	return outbox.OpenExisting(ctx, db)
}
