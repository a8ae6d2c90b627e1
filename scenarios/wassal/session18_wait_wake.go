package wassal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"outboxlab/core/dialect"
)

// waker carries the producer's wake to the listening workers. On
// PostgreSQL it is LISTEN/NOTIFY: the NOTIFY is part of the insert's
// transaction and is delivered when it commits; on SQLite, which has
// nothing like it, the producer hands each listener the wake itself once it
// has committed. Either way a listener gets the wake at the scenario moment
// of the insert, so the reports are the same on both.
type waker interface {
	// notifyTx is called in the producer's insert transaction of key.
	notifyTx(ctx context.Context, tx *sql.Tx, key string) error
	// committed is called once that transaction has committed; it returns
	// when every listener has received the wake of key.
	committed(ctx context.Context, key string) error
	close() error
}

// deliveryLimit bounds the wall-clock wait for a NOTIFY already committed:
// a wake that does not arrive is an error of the run, never a slower one.
const deliveryLimit = 2 * time.Minute

// newWaker makes the waker of db's database for n listeners.
func newWaker(ctx context.Context, db dialect.Database, n int) (waker, error) {
	if db.Dialect().Name() != "postgres" {
		return &handWaker{listeners: make([]chan string, n)}, nil
	}
	pool, err := db.OpenExisting(ctx)
	if err != nil {
		return nil, err
	}
	w := &pgWaker{pool: pool}
	var schema string
	if err := pool.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return nil, errors.Join(fmt.Errorf("read the run's schema: %w", err), pool.Close())
	}
	h := fnv.New64a()
	h.Write([]byte(schema))
	w.channel = fmt.Sprintf("outboxlab_wake_%x", h.Sum64()) // one run's channel: channels are the server's, not a schema's
	for range n {
		conn, err := pool.Conn(ctx)
		if err == nil {
			_, err = conn.ExecContext(ctx, `LISTEN "`+w.channel+`"`)
		}
		if conn != nil {
			w.conns = append(w.conns, conn)
		}
		if err != nil {
			return nil, errors.Join(fmt.Errorf("LISTEN for new work: %w", err), w.close())
		}
	}
	return w, nil
}

// pgWaker is LISTEN/NOTIFY: one connection per listener.
type pgWaker struct {
	pool    *sql.DB
	channel string
	conns   []*sql.Conn
}

func (w *pgWaker) notifyTx(ctx context.Context, tx *sql.Tx, key string) error {
	if _, err := tx.ExecContext(ctx, `SELECT pg_notify($1, $2)`, w.channel, key); err != nil {
		return fmt.Errorf("NOTIFY %s: %w", key, err)
	}
	return nil
}

func (w *pgWaker) committed(ctx context.Context, key string) error {
	for i, conn := range w.conns {
		err := conn.Raw(func(dc any) error {
			c, ok := dc.(*stdlib.Conn)
			if !ok {
				return fmt.Errorf("a listener's connection is a %T, not pgx's", dc)
			}
			wait, cancel := context.WithTimeout(ctx, deliveryLimit)
			defer cancel()
			n, err := c.Conn().WaitForNotification(wait)
			if err != nil {
				return err
			}
			if n.Channel != w.channel || n.Payload != key {
				return fmt.Errorf("got %q on %s, want %q", n.Payload, n.Channel, key)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("listener %d: the wake of %s: %w", i+1, key, err)
		}
	}
	return nil
}

func (w *pgWaker) close() error {
	var errs []error
	for _, c := range w.conns {
		errs = append(errs, c.Close())
	}
	return errors.Join(append(errs, w.pool.Close())...)
}

// handWaker is the producer's own wake, after its commit (SQLite): the
// insert's transaction names the message, the commit hands it to each
// listener.
type handWaker struct {
	listeners []chan string
	pending   []string
}

func (w *handWaker) notifyTx(_ context.Context, _ *sql.Tx, key string) error {
	w.pending = append(w.pending, key)
	return nil
}

func (w *handWaker) committed(_ context.Context, key string) error {
	if len(w.pending) == 0 {
		return fmt.Errorf("no wake was written for %s", key)
	}
	sent := w.pending[0]
	w.pending = w.pending[1:]
	for i := range w.listeners {
		if w.listeners[i] == nil {
			w.listeners[i] = make(chan string, 1)
		}
		w.listeners[i] <- sent
	}
	for i, l := range w.listeners {
		if got := <-l; got != key {
			return fmt.Errorf("listener %d: got the wake of %s, want %s", i+1, got, key)
		}
	}
	return nil
}

func (w *handWaker) close() error { return nil }
