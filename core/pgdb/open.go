package pgdb

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
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
	limit := cfg.ConnectTimeout + time.Second
	if d, ok := ctx.Deadline(); ok && time.Until(d) < limit {
		limit = time.Until(d).Round(100 * time.Millisecond) // the caller's deadline ends the wait first
	}
	pingCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		db.Close()
		e := classify("connect to "+where(cfg), rawURL, err).(*Error)
		if e.Cause == noAnswer {
			e.Cause += fmt.Sprintf(" (%v)", min(cfg.ConnectTimeout, limit))
		}
		return nil, e
	}
	return db, nil
}

// where names the server for a message: its socket folder or host:port.
func where(cfg *pgx.ConnConfig) string {
	if strings.HasPrefix(cfg.Host, "/") {
		return cfg.Host
	}
	return net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
}
