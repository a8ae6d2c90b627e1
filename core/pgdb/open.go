package pgdb

import (
	"context"
	"database/sql"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
)

// ConnectTimeout bounds each connection attempt when the URL sets no
// connect_timeout: a server that is down or does not answer is reported
// within it.
const ConnectTimeout = 5 * time.Second

// Open opens a pool of connections to rawURL (a schema URL from WithSchema,
// or any postgres:// URL) and checks that one connection can be made, so a
// down server, a refused login or a bad URL is a classified *Error now
// rather than at the first query.
func Open(ctx context.Context, rawURL string) (*sql.DB, error) {
	cfg, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	db := stdlib.OpenDB(*cfg)
	// The attempt is bounded even where the URL's timeout applies per host
	// (several hosts, or TLS and then plain).
	pingCtx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout+time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		db.Close()
		return nil, classify("connect", rawURL, err)
	}
	return db, nil
}
