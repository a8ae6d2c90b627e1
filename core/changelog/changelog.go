// Package changelog records, after each timeline event of a run, the rows
// that event changed, read back from the run's databases.
//
// A run's designs (a pair scenario drives two, each on a database of its own)
// are watched by one Recorder. The harness makes it (New), a pair hands each
// design's database to it (Watch), and the code that drives a design calls
// Seeded once its data is in and Event after each event of its timeline:
// both are no-ops when the context carries no recorder. Each call reads every
// table of the design's database (LabInfo aside) and keeps what changed
// since the last one, cell by cell, keyed by primary key. Nothing is taken
// from the driver's own bookkeeping: the rows are what the database holds.
//
// Names are folded to lower case (PostgreSQL folds unquoted names; SQLite
// keeps them as written) and values are text, so one run gives the same
// log on SQLite and on PostgreSQL.
package changelog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
)

// ErrStopped ends a run whose recorder was told to stop after its K-th
// event (StopAfter): the drive that called Event returns it, and the
// harness reports where the run stood.
var ErrStopped = errors.New("stopped")

// Log is a run's change log: the tables of each design as they stood once
// seeded, then every event in the order it happened, with what it changed.
type Log struct {
	Designs []Design `json:"designs"`
	Steps   []Step   `json:"steps"`
}

// Design is one design's database as it stood when seeded.
type Design struct {
	Name   string  `json:"name"` // BEFORE, AFTER or the scenario's own label
	Seeded string  `json:"seeded"`
	Tables []Table `json:"tables"`
}

// Table is a table as it stood: its columns, its key columns and its rows
// ordered by key. A NULL cell is nil.
type Table struct {
	Name    string      `json:"name"`
	Columns []string    `json:"columns"`
	Key     []int       `json:"key"` // indexes of the primary key's columns (every column when it has none)
	Rows    [][]*string `json:"rows"`
}

// Step is one timeline event and what it changed.
type Step struct {
	N       int      `json:"n"` // 1-based, over the whole run
	Design  string   `json:"design"`
	At      string   `json:"at"` // clock.ISO of the event's scenario time
	Text    string   `json:"text"`
	Changes []Change `json:"changes,omitempty"`
}

// Change is what happened to one row: it was added (Row is it), removed
// (Row was it) or changed (Cells say which, old → new).
type Change struct {
	Table string    `json:"table"`
	Key   string    `json:"key"`
	Op    string    `json:"op"` // "added", "removed" or "changed"
	Row   []*string `json:"row,omitempty"`
	Cells []Cell    `json:"cells,omitempty"`
}

// Cell is one changed cell.
type Cell struct {
	Column string  `json:"column"`
	Old    *string `json:"old"`
	New    *string `json:"new"`
}

// Recorder watches a run's designs. Its methods are safe for concurrent use.
type Recorder struct {
	mu        sync.Mutex
	log       Log
	watched   map[string]*watch
	stopAfter int // 0: never
	err       error

	childFiles []string  // where children of the run record (ForChild), removed by Close
	sink       io.Writer // in a child process: where each event goes (ChildFlags.Open)
	onStop     func()    // in a child process: ends it at the run's last event
}

// New returns a recorder that stops the run after its stopAfter-th event
// (0: never stop).
func New(stopAfter int) *Recorder {
	return &Recorder{watched: map[string]*watch{}, stopAfter: stopAfter}
}

type ctxKey struct{}

type bound struct {
	rec    *Recorder
	design string
}

// Watch returns ctx carrying the recorder and design, a database (a SQLite
// file or a PostgreSQL run schema) that Seeded and Event then read. On a nil
// recorder it returns ctx.
func (r *Recorder) Watch(ctx context.Context, design string, db dialect.Database) context.Context {
	if r == nil {
		return ctx
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.watched[design]; !ok {
		r.watched[design] = &watch{database: db}
	}
	return context.WithValue(ctx, ctxKey{}, bound{r, design})
}

// Seeded records the design's tables as they stand before its first event.
func Seeded(ctx context.Context, at time.Time) error {
	b, ok := ctx.Value(ctxKey{}).(bound)
	if !ok {
		return nil
	}
	return b.rec.seeded(ctx, b.design, at)
}

// Event records one timeline event of the design at scenario time at, with
// the rows it changed. It returns ErrStopped after the recorder's last event.
func Event(ctx context.Context, at time.Time, text string) error {
	b, ok := ctx.Value(ctxKey{}).(bound)
	if !ok {
		return nil
	}
	return b.rec.event(ctx, b.design, at, text)
}

func (r *Recorder) seeded(ctx context.Context, design string, at time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.watched[design]
	tables, err := w.read(ctx)
	if err != nil {
		return r.fail(design, err)
	}
	w.last = tables
	r.log.Designs = append(r.log.Designs, Design{Name: design, Seeded: clock.ISO(at), Tables: tables})
	return nil
}

func (r *Recorder) event(ctx context.Context, design string, at time.Time, text string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopAfter > 0 && len(r.log.Steps) >= r.stopAfter {
		return ErrStopped
	}
	w := r.watched[design]
	tables, err := w.read(ctx)
	if err != nil {
		return r.fail(design, err)
	}
	step := Step{N: len(r.log.Steps) + 1, Design: design, At: clock.ISO(at), Text: text, Changes: diff(w.last, tables)}
	r.log.Steps = append(r.log.Steps, step)
	w.last = tables
	if err := r.emit(step); err != nil {
		return r.fail(design, err)
	}
	if r.stopAfter > 0 && len(r.log.Steps) >= r.stopAfter {
		if r.onStop != nil {
			r.onStop()
		}
		return ErrStopped
	}
	return nil
}

func (r *Recorder) fail(design string, err error) error {
	err = fmt.Errorf("record the change log of %s: %w", design, err)
	r.err = errors.Join(r.err, err)
	return err
}

// Log returns what was recorded so far.
func (r *Recorder) Log() Log {
	if r == nil {
		return Log{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.log
}

// Last is the last step recorded, and false when there is none.
func (r *Recorder) Last() (Step, bool) {
	l := r.Log()
	if len(l.Steps) == 0 {
		return Step{}, false
	}
	return l.Steps[len(l.Steps)-1], true
}

// Close closes the connections the recorder read through.
func (r *Recorder) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	err := r.removeChildFiles()
	for _, w := range r.watched {
		if w.db != nil {
			w.closeStmts()
			err = errors.Join(err, w.db.Close())
			w.db = nil
		}
	}
	return err
}

// watch is one design's database and the tables as last read.
type watch struct {
	database dialect.Database
	db       *sql.DB
	keys     map[string][]string  // each table's key columns, once read
	version  int64                // the commit count at the last read (dialect's Commits)
	schema   int64                // the schema count when names were read
	names    []string             // where commits are counted: the tables, as of schema
	stmts    map[string]*sql.Stmt // where commits are counted: each table's SELECT, prepared once
	last     []Table
}

// Unrecorded gives a design whose drive recorded nothing (it never called
// Seeded) the change log the kit can read without it: its tables as they
// were before the drive, empty, and one event at at, the whole run, adding
// the rows the drive left. A design that recorded its events keeps them.
// It returns ErrStopped when that event is the run's last (--stop-after).
func Unrecorded(ctx context.Context, at time.Time) error {
	b, ok := ctx.Value(ctxKey{}).(bound)
	if !ok {
		return nil
	}
	r := b.rec
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range r.log.Designs {
		if d.Name == b.design {
			return nil
		}
	}
	w := r.watched[b.design]
	tables, err := w.read(ctx)
	if err != nil {
		return r.fail(b.design, err)
	}
	empty := make([]Table, len(tables))
	for i, t := range tables {
		empty[i] = Table{Name: t.Name, Columns: t.Columns, Key: t.Key}
	}
	r.log.Designs = append(r.log.Designs, Design{Name: b.design, Seeded: clock.ISO(at), Tables: empty})
	w.last = tables
	if r.stopAfter > 0 && len(r.log.Steps) >= r.stopAfter {
		return ErrStopped
	}
	r.log.Steps = append(r.log.Steps, Step{N: len(r.log.Steps) + 1, Design: b.design, At: clock.ISO(at),
		Text: "the whole run of " + b.design + " (its drive records no event of its own): the rows it left", Changes: diff(empty, tables)})
	if r.stopAfter > 0 && len(r.log.Steps) >= r.stopAfter {
		return ErrStopped
	}
	return nil
}
