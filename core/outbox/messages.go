package outbox

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"outboxlab/core/claim"
	"outboxlab/core/clock"
	"outboxlab/core/dialect"
)

// Status is an outbox message's state.
type Status string

// The outbox states. Processed and DeadLettered are terminal.
const (
	Pending      Status = "Pending"
	Processing   Status = "Processing"
	Processed    Status = "Processed"
	DeadLettered Status = "DeadLettered"
)

// NewMessage is what a producer writes to the outbox.
type NewMessage struct {
	Key         string // business key, e.g. PAY-003
	Type        string
	Payload     string // JSON; "{}" when empty
	MaxAttempts int    // 0: no ceiling
	CreatedAt   time.Time
}

// Message is one outbox row as stored.
type Message struct {
	ID             int64
	Key            string
	Type           string
	Payload        string
	Status         Status
	AttemptCount   int
	MaxAttempts    int // 0: no ceiling
	NextAttemptAt  time.Time
	LastError      string
	LockedBy       string
	LockedUntil    time.Time
	ClaimToken     int64
	CreatedAt      time.Time
	ProcessedAt    time.Time
	DeadLetteredAt time.Time
}

// Claim is a worker's ownership of one message for one attempt. Transitions
// apply only while the row still carries this claim's worker and token.
type Claim struct {
	MessageID   int64
	Key         string
	Type        string
	Payload     string
	Worker      string
	Token       int64
	Attempt     int // AttemptCount after the claim incremented it
	MaxAttempts int // 0: no ceiling
	LeaseUntil  time.Time
}

// EnqueueTx writes a message in the caller's transaction, so that it commits
// or rolls back together with the business row it describes. A MaxAttempts
// of 0 writes no ceiling (the column is left out: Days before 16 lack it).
func EnqueueTx(ctx context.Context, tx *sql.Tx, m NewMessage) (int64, error) {
	payload := m.Payload
	if payload == "" {
		payload = "{}"
	}
	// MaxAttempts is written only when set: a Day before 16 has no such column.
	query := `INSERT INTO OutboxMessages (MessageKey, Type, Payload, CreatedAtUtc) VALUES ($1, $2, $3, $4) RETURNING Id`
	args := []any{m.Key, m.Type, payload, clock.ISO(m.CreatedAt)}
	if m.MaxAttempts > 0 {
		query = `INSERT INTO OutboxMessages (MessageKey, Type, Payload, CreatedAtUtc, MaxAttempts) VALUES ($1, $2, $3, $4, $5) RETURNING Id`
		args = append(args, m.MaxAttempts)
	}
	var id int64
	err := tx.QueryRowContext(ctx, query, args...).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("enqueue outbox message %s: %w", m.Key, err)
	}
	return id, nil
}

// Enqueue writes a message in a transaction of its own.
func (s *Store) Enqueue(ctx context.Context, m NewMessage) (id int64, err error) {
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		id, err = EnqueueTx(ctx, tx, m)
		return err
	})
	return id, err
}

// claimColumns are what a claim returns to build a Claim from, as the
// store's design has them.
func (s *Store) claimColumns() string {
	return s.design.cols("Id", "MessageKey", "Type", "Payload", "AttemptCount", "MaxAttempts", "ClaimToken")
}

func scanClaim(sc claim.Scanner, c *Claim, extra ...any) error {
	var maxAttempts sql.NullInt64
	err := sc.Scan(append([]any{&c.MessageID, &c.Key, &c.Type, &c.Payload, &c.Attempt, &maxAttempts, &c.Token}, extra...)...)
	c.MaxAttempts = int(maxAttempts.Int64)
	return err
}

// ClaimTx claims up to limit claimable messages, oldest first, for worker.
// Each claim is a conditional update that increments AttemptCount and
// ClaimToken and leases the row until now+lease (see claim.Store.ClaimTx).
// Call it in a transaction of s, so no two claims interleave. On a design
// without a lease (Day 14) it takes Pending rows and takes no lease (see
// claimUnleasedTx).
func (s *Store) ClaimTx(ctx context.Context, tx *sql.Tx, worker string, now time.Time, lease time.Duration, limit int) ([]Claim, error) {
	if !s.leased() {
		return s.claimUnleasedTx(ctx, tx, worker, limit)
	}
	return s.claimOn(ctx, tx, worker, now, lease, limit)
}

// claimOn is ClaimTx's leased claim on on: a transaction of s or, for a
// claim of one message where LoneWrites says so, s's pool.
func (s *Store) claimOn(ctx context.Context, on claim.Querier, worker string, now time.Time, lease time.Duration, limit int) ([]Claim, error) {
	r := claim.Request{Owner: worker, Now: now, Lease: lease, Limit: limit}
	var claims []Claim
	err := s.Store.ClaimTx(ctx, on, s.queue, r, s.claimColumns(), func(sc claim.Scanner) error {
		c := Claim{Worker: worker, LeaseUntil: r.LeaseUntil()}
		if err := scanClaim(sc, &c); err != nil {
			return err
		}
		claims = append(claims, c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("claim outbox message: %w", err)
	}
	return claims, nil
}

// Claim claims up to limit messages in a transaction of its own. A claim of
// one message on a leased design is one statement (see alone).
func (s *Store) Claim(ctx context.Context, worker string, now time.Time, lease time.Duration, limit int) (claims []Claim, err error) {
	if limit == 1 && s.leased() {
		err = s.alone(ctx, func(on claim.Querier) error {
			claims, err = s.claimOn(ctx, on, worker, now, lease, limit)
			return err
		})
		return claims, err
	}
	err = s.InTx(ctx, func(tx *sql.Tx) error {
		claims, err = s.ClaimTx(ctx, tx, worker, now, lease, limit)
		return err
	})
	return claims, err
}

func (c Claim) owner() claim.Owner {
	return claim.Owner{ID: c.MessageID, Owner: c.Worker, Token: c.Token}
}

// noDue clears the backoff gate, where the queue has one.
func (s *Store) noDue(sets ...claim.Set) []claim.Set {
	if s.queue.Due == "" {
		return sets
	}
	return append(sets, claim.Set{Column: s.queue.Due})
}

// transition runs an owner-checked update and turns "no row matched" into ErrNotOwner.
func (s *Store) transition(ctx context.Context, on claim.Querier, what string, c Claim, sets []claim.Set) error {
	settle := func() (bool, error) { return s.SettleTx(ctx, on, s.queue, c.owner(), sets) }
	if !s.leased() {
		settle = func() (bool, error) { return s.settleUnleasedTx(ctx, on, c, sets) }
	}
	ok, err := settle()
	if err != nil {
		return fmt.Errorf("%s outbox message %d: %w", what, c.MessageID, err)
	}
	if !ok {
		return NotOwned(what, c)
	}
	return nil
}

// CompleteTx marks a claimed message Processed.
func (s *Store) CompleteTx(ctx context.Context, tx *sql.Tx, c Claim, now time.Time) error {
	return s.completeOn(ctx, tx, c, now)
}

// completeOn is CompleteTx on on: one statement (see alone).
func (s *Store) completeOn(ctx context.Context, on claim.Querier, c Claim, now time.Time) error {
	return s.transition(ctx, on, "complete", c,
		s.noDue(claim.Set{Column: "Status", Value: string(Processed)}, claim.Set{Column: "ProcessedAtUtc", Value: now}))
}

// RetryTx puts a claimed message back to Pending, claimable again at next
// (immediately when next is zero), with the error that made it fail where
// the design keeps one (LastError; next needs the backoff gate, Day 16's).
func (s *Store) RetryTx(ctx context.Context, tx *sql.Tx, c Claim, next time.Time, lastError string) error {
	return s.retryOn(ctx, tx, c, next, lastError)
}

// retryOn is RetryTx on on: one statement (see alone).
func (s *Store) retryOn(ctx context.Context, on claim.Querier, c Claim, next time.Time, lastError string) error {
	sets := []claim.Set{{Column: "Status", Value: string(Pending)}}
	if s.design.Has("LastError") {
		sets = append(sets, claim.Set{Column: "LastError", Value: dialect.NullString(lastError)})
	}
	if s.queue.Due != "" {
		sets = append(sets, claim.Set{Column: s.queue.Due, Value: next})
	}
	return s.transition(ctx, on, "retry", c, sets)
}

// Release gives a claimed message back without counting the attempt its
// claim took: Pending, claimable at once, no owner or lease, its
// AttemptCount back to the claim's attempt less one (a worker that stops
// returns work it did not do; River's soft stop since PR #1290). Guarded,
// as every transition, by the claim's worker and token: a claim already
// lost is refused with ErrNotOwner, so the count written is the one the
// claim itself made.
func (s *Store) Release(ctx context.Context, c Claim) error {
	sets := []claim.Set{{Column: "Status", Value: string(Pending)}}
	if s.design.Has("AttemptCount") {
		sets = append(sets, claim.Set{Column: "AttemptCount", Value: max(c.Attempt-1, 0)})
	}
	return s.alone(ctx, func(on claim.Querier) error { return s.transition(ctx, on, "release", c, s.noDue(sets...)) })
}

// DeadLetterTx parks a claimed message: terminal, out of the claim's way, its
// error kept, no next attempt and no owner left on it. Where the design has
// an audit log (Full, Day 17) the transition is written to it in the same
// transaction. A design without DeadLettered (before Day 16) refuses it.
func (s *Store) DeadLetterTx(ctx context.Context, tx *sql.Tx, c Claim, now time.Time, lastError string) error {
	if err := s.design.require("dead-letter outbox message", "DeadLetteredAtUtc", "LastError"); err != nil {
		return err
	}
	err := s.transition(ctx, tx, "dead-letter", c, s.noDue(
		claim.Set{Column: "Status", Value: string(DeadLettered)}, claim.Set{Column: "DeadLetteredAtUtc", Value: now},
		claim.Set{Column: "LastError", Value: dialect.NullString(lastError)}))
	if err != nil || !s.design.audit {
		return err
	}
	return AuditTx(ctx, tx, now, c.Worker, "dead-lettered", c.MessageID,
		fmt.Sprintf("%s after attempt %d: %s", c.Key, c.Attempt, lastError))
}

// Complete is CompleteTx in a transaction of its own.
func (s *Store) Complete(ctx context.Context, c Claim, now time.Time) error {
	return s.alone(ctx, func(on claim.Querier) error { return s.completeOn(ctx, on, c, now) })
}

// Retry is RetryTx in a transaction of its own.
func (s *Store) Retry(ctx context.Context, c Claim, next time.Time, lastError string) error {
	return s.alone(ctx, func(on claim.Querier) error { return s.retryOn(ctx, on, c, next, lastError) })
}

// alone runs fn, which runs one statement, as a transaction of its own:
// on the pool where that statement is a transaction by itself (LoneWrites,
// PostgreSQL: no BEGIN and COMMIT to wait for), in InTx elsewhere.
func (s *Store) alone(ctx context.Context, fn func(on claim.Querier) error) error {
	if s.LoneWrites() {
		return fn(s.DB())
	}
	return s.InTx(ctx, func(tx *sql.Tx) error { return fn(tx) })
}

// DeadLetter is DeadLetterTx in a transaction of its own.
func (s *Store) DeadLetter(ctx context.Context, c Claim, now time.Time, lastError string) error {
	return s.InTx(ctx, func(tx *sql.Tx) error { return s.DeadLetterTx(ctx, tx, c, now, lastError) })
}

// NextWakeup returns the earliest moment after now at which something that is
// not claimable now becomes claimable: a backoff ending or a lease expiring.
// ok is false when no live message is waiting on either.
func (s *Store) NextWakeup(ctx context.Context, now time.Time) (at time.Time, ok bool, err error) {
	if !s.leased() {
		return time.Time{}, false, nil // no lease, no backoff: nothing to wait for
	}
	at, ok, err = s.NextDue(ctx, s.queue, now)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("find next wake-up: %w", err)
	}
	return at, ok, nil
}

// Renew extends c's lease to until and returns the claim with its new lease:
// an update guarded by c's worker and token that applies only while the
// lease has not ended at now (see claim.Store.RenewTx). A claim lost to
// another worker, settled, or whose lease has ended is refused with
// ErrNotOwner and nothing changes. The attempt is not counted again.
func (s *Store) Renew(ctx context.Context, c Claim, now, until time.Time) (Claim, error) {
	if !s.leased() {
		return c, fmt.Errorf("renew outbox message %d: the %s store has no lease", c.MessageID, s.design.Name())
	}
	var ok bool
	err := s.alone(ctx, func(on claim.Querier) (err error) {
		ok, err = s.RenewTx(ctx, on, s.queue, c.owner(), now, until)
		return err
	})
	if err != nil {
		return c, fmt.Errorf("renew outbox message %d: %w", c.MessageID, err)
	}
	if !ok {
		return c, NotOwned("renew", c)
	}
	c.LeaseUntil = until
	return c, nil
}
