package changelog

// A design's events that happen in a child process (core/child): a service
// life killed with SIGKILL, a worker that dies mid-claim. Its rows are
// written by the child itself, so the parent cannot read them event by
// event; the child reads them, with a recorder of its own on the same
// database, and appends each event to a file as it happens, so that a
// killed child loses none it announced. Once the child has ended the
// parent merges that file into the run's log (ChildLog.Merge).
//
//	parent: cl, err := changelog.ForChild(ctx)          // nil without a recorder
//	        child.Run(ctx, name, append(args, cl.Args()...)...)
//	        err = cl.Merge(ctx, at)                      // ErrStopped: the run stops here
//	child:  f := changelog.BindChild(fs)                 // before fs.Parse
//	        ctx, err := f.Open(ctx, db, child.Die)       // then changelog.Event as anywhere

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"outboxlab/core/clock"
	"outboxlab/core/dialect"
)

// ChildLog is where one child process of a design records its events.
type ChildLog struct {
	rec    *Recorder
	design string
	path   string
}

// ForChild prepares the file a child process of ctx's design records its
// events in; nil (and every method a no-op) when ctx carries no recorder.
// The recorder's Close removes the file.
func ForChild(ctx context.Context) (*ChildLog, error) {
	b, ok := ctx.Value(ctxKey{}).(bound)
	if !ok {
		return nil, nil
	}
	f, err := os.CreateTemp("", "outboxlab-changelog-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("prepare a child's change log: %w", err)
	}
	f.Close()
	b.rec.mu.Lock()
	b.rec.childFiles = append(b.rec.childFiles, f.Name())
	b.rec.mu.Unlock()
	return &ChildLog{rec: b.rec, design: b.design, path: f.Name()}, nil
}

// Args are the child's arguments that make it record (see BindChild): the
// file, the design, and how many events the run may still take before it
// stops (--stop-after), 0 for no limit.
func (c *ChildLog) Args() []string {
	if c == nil {
		return nil
	}
	c.rec.mu.Lock()
	left := 0
	if c.rec.stopAfter > 0 {
		left = max(c.rec.stopAfter-len(c.rec.log.Steps), 1)
	}
	c.rec.mu.Unlock()
	return []string{"-changelog", c.path, "-changelog-design", c.design, "-changelog-stop", strconv.Itoa(left)}
}

// Merge adds the events the child recorded to the run's log, in order,
// then reads the design's tables: what the child changed after its last
// event (a write it never announced) becomes one more event, at at, so
// that the log always ends where the database stands. It returns
// ErrStopped when the run reached its last event (--stop-after) in the
// child.
func (c *ChildLog) Merge(ctx context.Context, at time.Time) error {
	if c == nil {
		return nil
	}
	steps, err := readSteps(c.path)
	if err != nil {
		return fmt.Errorf("read the change log of %s's child: %w", c.design, err)
	}
	r := c.rec
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.watched[c.design]
	for _, s := range steps {
		if r.stopAfter > 0 && len(r.log.Steps) >= r.stopAfter {
			return ErrStopped
		}
		s.N, s.Design = len(r.log.Steps)+1, c.design
		r.log.Steps = append(r.log.Steps, s)
		w.last = apply(cloneTables(w.last), s.Changes)
	}
	if r.stopAfter > 0 && len(r.log.Steps) >= r.stopAfter {
		return ErrStopped
	}
	tables, err := w.read(ctx)
	if err != nil {
		return r.fail(c.design, err)
	}
	if changes := diff(w.last, tables); len(changes) > 0 {
		r.log.Steps = append(r.log.Steps, Step{N: len(r.log.Steps) + 1, Design: c.design, At: clock.ISO(at),
			Text: "(rows the child process changed after its last event)", Changes: changes})
		if r.stopAfter > 0 && len(r.log.Steps) >= r.stopAfter {
			w.last = tables
			return ErrStopped
		}
	}
	w.last = tables
	return nil
}

func readSteps(path string) ([]Step, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var steps []Step
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var s Step
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			// A line cut short: the child died while writing it, after
			// its event; what it said before stands.
			break
		}
		steps = append(steps, s)
	}
	return steps, sc.Err()
}

// ChildFlags are a child process's change-log arguments (ChildLog.Args).
type ChildFlags struct {
	path, design string
	stop         int
}

// BindChild declares the change-log arguments on a child's flag set.
func BindChild(fs *flag.FlagSet) *ChildFlags {
	f := &ChildFlags{}
	fs.StringVar(&f.path, "changelog", "", "the file this child appends its events to (none: it records nothing)")
	fs.StringVar(&f.design, "changelog-design", "", "the design whose events these are")
	fs.IntVar(&f.stop, "changelog-stop", 0, "the run stops after this many more events (0: never)")
	return f
}

// Open returns ctx carrying a recorder of db that appends each event to
// the parent's file as it happens; ctx as it is when the parent asked for
// no recording. When the run's last event (--stop-after) happens in the
// child, stop ends the child there (child.Die): its rows stay as they
// were at that event.
func (f *ChildFlags) Open(ctx context.Context, db dialect.Database, stop func()) (context.Context, error) {
	if f == nil || f.path == "" {
		return ctx, nil
	}
	file, err := os.OpenFile(f.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return ctx, fmt.Errorf("open the change log: %w", err)
	}
	r := New(f.stop)
	r.sink, r.onStop = file, stop
	ctx = r.Watch(ctx, f.design, db)
	w := r.watched[f.design]
	if w.last, err = w.read(ctx); err != nil {
		return ctx, fmt.Errorf("read %s before the child's first event: %w", f.design, err)
	}
	return ctx, nil
}

// emit writes a child's step to the parent's file, whole, in one write.
func (r *Recorder) emit(s Step) error {
	if r.sink == nil {
		return nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	_, err = r.sink.Write(append(b, '\n'))
	return err
}

// removeChildFiles removes the files children recorded in.
func (r *Recorder) removeChildFiles() error {
	var err error
	for _, p := range r.childFiles {
		if rerr := os.Remove(p); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	r.childFiles = nil
	if c, ok := r.sink.(io.Closer); ok {
		err = errors.Join(err, c.Close())
	}
	return err
}

// Database is the database the recorder watches for design.
func (r *Recorder) Database(design string) (dialect.Database, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w, ok := r.watched[design]
	if !ok {
		return dialect.Database{}, false
	}
	return w.database, true
}

// ReadTables reads db's tables (LabInfo aside) as a change log holds them,
// on a connection of its own: what a recorded log's last state is held
// against.
func ReadTables(ctx context.Context, db dialect.Database) ([]Table, error) {
	w := &watch{database: db}
	if err := w.open(ctx); err != nil {
		return nil, err
	}
	defer w.db.Close()
	return w.readAll(ctx)
}
