package claim

import (
	"strings"
	"time"
)

// Queue describes a claimable table: which columns carry the claim and which
// statuses are live. A family names its own columns; the engine writes the
// statements. Leave Attempts or Due empty for a table without them (a course
// Day that has not introduced retries yet).
type Queue struct {
	Table string   // e.g. OutboxMessages
	Live  []string // statuses a claim may take, e.g. Pending, Processing
	// Claimed is the status a claim moves a row to (Processing); empty leaves
	// the status alone and the owner column alone says the row is held.
	Claimed    string
	Owner      string // who holds the claim, e.g. LockedBy
	LeaseUntil string // the lease's end, e.g. LockedUntilUtc
	Token      string // the fencing token, +1 on every claim, never reset
	Attempts   string // counted at claim time (AttemptCount); empty: not counted
	Due        string // backoff gate: not claimable before it (NextAttemptUtc); empty: no gate
	Order      string // claim order, e.g. "CreatedAtUtc, Id"
}

// Request is one claim: who claims, when, for how long, how many rows at most.
type Request struct {
	Owner string
	Now   time.Time
	Lease time.Duration // DefaultLease when zero
	Limit int           // 1 when below 1
}

// LeaseUntil is the end of the lease the request takes.
func (r Request) LeaseUntil() time.Time {
	if r.Lease <= 0 {
		return r.Now.Add(DefaultLease)
	}
	return r.Now.Add(r.Lease)
}

func (r Request) limit() int { return max(r.Limit, 1) }

// Owner is what a transition after a claim must still match: the row, the
// claim's owner and its token.
type Owner struct {
	ID    int64
	Owner string
	Token int64
}

// Set is one column a transition writes; a nil Value writes NULL and a
// time.Time is written the way the dialect stores times (zero: NULL).
type Set struct {
	Column string
	Value  any
}

func (q *Queue) liveList() string {
	quoted := make([]string, len(q.Live))
	for i, s := range q.Live {
		quoted[i] = "'" + s + "'"
	}
	return strings.Join(quoted, ", ")
}
