package child

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"outboxlab/core/dblocation"
	"outboxlab/core/dialect"
)

// A child's argument that holds a PostgreSQL URL (a location, alone or after
// "--flag=") never reaches the child's argv, which any process list shows:
// the argument becomes argRef+key and the URL travels in the child's
// environment under key, where RunIfChild takes it back.
const (
	argRef    = "@env:"
	argEnvPre = "OUTBOXLAB_CHILD_ARG_"
)

// endSessionsWait bounds ending a dead child's server sessions, even when
// the run's own context is already cancelled.
const endSessionsWait = 10 * time.Second

// session is one database a child was handed, its sessions named name, so
// the parent can end them.
type session struct {
	db   dialect.Database
	name string
}

// childSeq numbers the children of this process, so each child's sessions
// have a name of their own.
var childSeq atomic.Int64

// moveURLs returns args with every PostgreSQL URL replaced by a reference to
// an environment entry (returned in env), each URL set to name its sessions
// after the child: its own application_name plus "-N-name" (N counts the
// children of this process), so EndSessions ends exactly this child's.
func moveURLs(name string, args []string) (argv, env []string, err error) {
	n := childSeq.Add(1)
	argv = make([]string, len(args))
	for i, a := range args {
		at := urlStart(a)
		if at < 0 {
			argv[i] = a
			continue
		}
		prefix := a[:at]
		db, err := dialect.Parse(a[at:])
		if err != nil {
			return nil, nil, fmt.Errorf("start child %s: %w", name, err)
		}
		base := db.SessionName()
		if base == "" {
			base = "outboxlab"
		}
		if db, _, err = db.Named(base + "-" + strconv.FormatInt(n, 10) + "-" + name); err != nil {
			return nil, nil, fmt.Errorf("start child %s: %w", name, err)
		}
		key := argEnvPre + strconv.Itoa(i)
		argv[i] = argRef + key
		env = append(env, key+"="+prefix+db.String())
	}
	return argv, env, nil
}

// sessionsOf lists the databases cmd's child was handed (read back from the
// environment Command gave it), each once.
func sessionsOf(cmd *exec.Cmd) []session {
	var out []session
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, argEnvPre) {
			continue
		}
		_, v, _ := strings.Cut(kv, "=")
		db, err := dialect.Parse(v[max(urlStart(v), 0):])
		if err != nil {
			continue // moveURLs put none such there
		}
		if s := (session{db: db, name: db.SessionName()}); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// urlStart is where a PostgreSQL URL starts in arg (any letter case:
// dblocation.Index), or -1.
func urlStart(arg string) int { return dblocation.Index(arg) }

// restoreArgs is RunIfChild's half: each argRef argument gets its value back
// from the environment, which then forgets it (a grandchild gets its own).
func restoreArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		key, ok := strings.CutPrefix(a, argRef)
		if !ok || !strings.HasPrefix(key, argEnvPre) {
			continue
		}
		if v, ok := os.LookupEnv(key); ok {
			out[i] = v
		}
	}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, argEnvPre) {
			os.Unsetenv(kv[:strings.IndexByte(kv, '=')])
		}
	}
	return out
}

// EndSessions ends the server sessions of cmd's child (one started by
// Command whose arguments held PostgreSQL URLs) and waits until they are
// gone, so the row locks they held are free when it returns. Call it when
// the child died by a signal: its sessions may still hold locks (a session
// busy in a statement notices its client is gone only when the statement
// ends). Run calls it itself. It does nothing for a child without URLs.
func EndSessions(ctx context.Context, cmd *exec.Cmd) error {
	ss := sessionsOf(cmd)
	if len(ss) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), endSessionsWait)
	defer cancel()
	var errs []error
	for _, s := range ss {
		errs = append(errs, s.db.EndSessions(ctx, s.name))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("end the sessions of a killed child: %w", err)
	}
	return nil
}
