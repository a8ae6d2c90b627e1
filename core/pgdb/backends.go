package pgdb

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// terminateWait bounds how long TerminateBackends waits for the sessions it
// ended to be gone.
const terminateWait = 5 * time.Second

// TerminateBackends ends every server session whose application_name is
// appName (other than the caller's own) and waits until they are gone, so the
// row locks they held are free when it returns. A child killed with SIGKILL
// leaves its session behind until the server notices; a hung child's stays
// open for good. It returns how many sessions it ended.
func TerminateBackends(ctx context.Context, db *sql.DB, appName string) (int, error) {
	return terminate(ctx, db, "application_name = $1", appName)
}

// TerminatePIDs is TerminateBackends for sessions named by their server pid
// (pg_backend_pid() as the child saw it).
func TerminatePIDs(ctx context.Context, db *sql.DB, pids ...int) (int, error) {
	list := make([]int32, len(pids))
	for i, p := range pids {
		list[i] = int32(p)
	}
	return terminate(ctx, db, "pid = ANY($1)", list)
}

// querier is a pool or one connection of it.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func terminate(ctx context.Context, db querier, where string, arg any) (int, error) {
	// In the select list, not the WHERE: the planner may evaluate WHERE
	// conditions in any order, and this one must never end our own session.
	rows, err := db.QueryContext(ctx, `SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE `+where+` AND pid <> pg_backend_pid()`, arg)
	if err != nil {
		return 0, classify("terminate sessions", "", err)
	}
	var pids []int32
	for rows.Next() {
		var pid int32
		var ended bool
		if err := rows.Scan(&pid, &ended); err != nil {
			rows.Close()
			return 0, classify("terminate sessions", "", err)
		}
		if ended {
			pids = append(pids, pid)
		}
	}
	if err := rows.Close(); err != nil {
		return 0, classify("terminate sessions", "", err)
	}
	if err := rows.Err(); err != nil {
		return 0, classify("terminate sessions", "", err)
	}
	return len(pids), waitGone(ctx, db, pids)
}

// waitGone waits until none of pids is a server session any more: a session
// releases its locks before it leaves pg_stat_activity.
func waitGone(ctx context.Context, db querier, pids []int32) error {
	if len(pids) == 0 {
		return nil
	}
	deadline := time.Now().Add(terminateWait)
	for {
		var left int
		err := db.QueryRowContext(ctx,
			`SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1)`, pids).Scan(&left)
		if err != nil {
			return classify("terminate sessions", "", err)
		}
		if left == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return &Error{Class: ErrFailed, Op: "terminate sessions",
				Cause: fmt.Sprintf("%d sessions still there after %v", left, terminateWait)}
		}
		select {
		case <-ctx.Done():
			return classify("terminate sessions", "", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}
