// Package pgtest starts a throwaway PostgreSQL server for tests: initdb into a
// temporary directory, a server that listens on a unix socket only, removed
// again when the test binary ends.
package pgtest

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"outboxlab/core/proc"
)

// ErrNotInstalled is returned by Start when no PostgreSQL server binaries
// (initdb, pg_ctl) can be found on PATH or in the usual install folders.
var ErrNotInstalled = errors.New("no PostgreSQL server found (initdb and pg_ctl; Debian: apt-get install postgresql)")

// Every server's directory is named dirPrefix + a random suffix and holds an
// owner file naming the test process, so a later Start can stop and remove a
// server whose test binary died (a test timeout exits without cleanup).
const (
	dirPrefix = "outboxlab-pgtest-"
	ownerFile = "owner"
)

// hbaConf lets the superuser in without a password (the tests' admin) and
// asks every other role for its password, so a wrong one is really refused.
const hbaConf = "local all postgres trust\nlocal all all scram-sha-256\n"

// Server is a running throwaway PostgreSQL.
type Server struct {
	Dir       string        // the state folder: data/, the socket, the log
	URL       string        // superuser URL over the unix socket
	Started   time.Duration // how long initdb and start took
	bin       string        // folder of initdb, pg_ctl
	Durable   bool          // fsync on: commits wait for the disk
	runAsUser string        // "postgres" when we are root, else ""
	watcher   *exec.Cmd     // stops the server if this process dies first
}

// DurableEnv, set to 1, makes Start's servers durable too (make bench sets
// it, so that the core's benchmarks time commits that reach the disk).
const DurableEnv = "OUTBOXLAB_PGTEST_DURABLE"

// Start creates and starts a throwaway server in a new temporary folder,
// with fsync off: a test's server is never crashed and never reused, so the
// disk flush of each commit (4 ms here, and a queue when twenty test
// binaries' servers share one disk) buys nothing a test can observe; a
// server stopped or killed keeps every commit in the page cache. It first
// stops and removes the servers of earlier test processes that are gone.
func Start() (*Server, error) {
	return start(os.Getenv(DurableEnv) == "1")
}

// StartDurable starts a server with initdb's defaults, fsync and
// synchronous_commit on, for benchmarks that compare commit costs.
func StartDurable() (*Server, error) {
	return start(true)
}

func start(durable bool) (*Server, error) {
	begin := time.Now()
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, Durable: durable}
	if os.Geteuid() == 0 {
		// The server refuses to run as root.
		if _, err := user.Lookup("postgres"); err != nil {
			return nil, fmt.Errorf("start postgres as root: no postgres user to run it as: %w", err)
		}
		s.runAsUser = "postgres"
	}
	base := baseDir()
	sweep(base, s)
	if s.Dir, err = os.MkdirTemp(base, dirPrefix); err != nil {
		return nil, fmt.Errorf("create postgres folder: %w", err)
	}
	if err := s.initAndStart(); err != nil {
		os.RemoveAll(s.Dir)
		return nil, err
	}
	s.Started = time.Since(begin)
	s.watch()
	s.URL = (&url.URL{
		Scheme:   "postgres",
		Path:     "/postgres",
		RawQuery: "host=" + url.QueryEscape(s.Dir) + "&user=postgres",
	}).String()
	return s, nil
}

func (s *Server) initAndStart() error {
	owner := []byte(proc.Self().String() + "\n")
	if err := os.WriteFile(filepath.Join(s.Dir, ownerFile), owner, 0o644); err != nil {
		return fmt.Errorf("create postgres folder: %w", err)
	}
	if s.runAsUser != "" {
		if err := chownTo(s.Dir, s.runAsUser); err != nil {
			return err
		}
	}
	data := filepath.Join(s.Dir, "data")
	// --no-sync only skips initdb's own fsyncs; the server's own are
	// settled by Durable.
	if out, err := s.run("initdb", "-D", data, "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		return fmt.Errorf("initdb: %v: %s", err, lastLines(out, 5))
	}
	if err := os.WriteFile(filepath.Join(data, "pg_hba.conf"), []byte(hbaConf), 0o600); err != nil {
		return fmt.Errorf("write pg_hba.conf: %w", err)
	}
	if s.runAsUser != "" {
		if err := chownTo(filepath.Join(data, "pg_hba.conf"), s.runAsUser); err != nil {
			return err
		}
	}
	logFile := filepath.Join(s.Dir, "postgres.log")
	opts := "-k '" + s.Dir + "' -c listen_addresses='' -c unix_socket_permissions=0700"
	if !s.Durable {
		opts += " -c fsync=off -c full_page_writes=off"
	}
	if out, err := s.run("pg_ctl", "start", "-D", data, "-w", "-t", "60", "-s",
		"-l", logFile, "-o", opts); err != nil {
		log, _ := os.ReadFile(logFile)
		return fmt.Errorf("pg_ctl start: %v: %s %s", err, lastLines(out, 3), lastLines(log, 5))
	}
	return nil
}

// Stop stops the server at once (a throwaway needs no clean shutdown) and
// removes its folder.
func (s *Server) Stop() error {
	if s.watcher != nil {
		s.watcher.Process.Kill()
		s.watcher.Wait()
		s.watcher = nil
	}
	err := stopDir(s.Dir, s)
	if rmErr := os.RemoveAll(s.Dir); err == nil {
		err = rmErr
	}
	return err
}

func stopDir(dir string, s *Server) error {
	data := filepath.Join(dir, "data")
	if _, err := os.Stat(filepath.Join(data, "postmaster.pid")); err != nil {
		return nil // never started, or already stopped
	}
	if out, err := s.run("pg_ctl", "stop", "-D", data, "-m", "immediate", "-w", "-s"); err != nil {
		return fmt.Errorf("pg_ctl stop: %v: %s", err, lastLines(out, 3))
	}
	return nil
}

// run runs one of the server's programs, as the postgres user when we are root.
func (s *Server) run(prog string, args ...string) ([]byte, error) {
	path := filepath.Join(s.bin, prog)
	var cmd *exec.Cmd
	if s.runAsUser != "" {
		cmd = exec.Command("runuser", append([]string{"-u", s.runAsUser, "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	cmd.Dir = s.Dir // a folder the server's user can enter
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

// sweep stops and removes the servers whose test process is gone.
func sweep(base string, s *Server) {
	dirs, _ := filepath.Glob(filepath.Join(base, dirPrefix+"*"))
	for _, dir := range dirs {
		raw, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue
		}
		owner, err := proc.ParseOwner(string(raw))
		if err != nil || owner.Alive() {
			continue
		}
		if stopDir(dir, s) == nil {
			os.RemoveAll(dir)
		}
	}
}

// BinEnv names the folder of initdb and pg_ctl when they are somewhere
// findBin does not look (a source build, Homebrew's opt/postgresql@N/bin).
const BinEnv = "OUTBOXLAB_PG_BIN"

// findBin finds the folder of initdb and pg_ctl: $OUTBOXLAB_PG_BIN alone when
// set, else PATH (resolving a symlink to the real install folder), then
// Debian's /usr/lib/postgresql/N/bin (newest first), then a source build's.
func findBin() (string, error) {
	var dirs []string
	if dir := os.Getenv(BinEnv); dir != "" {
		dirs = []string{dir}
	} else {
		if p, err := exec.LookPath("initdb"); err == nil {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				p = real
			}
			dirs = append(dirs, filepath.Dir(p))
		}
		versions, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
		sort.Slice(versions, func(i, j int) bool { return versionOf(versions[i]) > versionOf(versions[j]) })
		dirs = append(dirs, versions...)
		dirs = append(dirs, "/usr/local/pgsql/bin")
	}
	for _, dir := range dirs {
		if isExec(filepath.Join(dir, "initdb")) && isExec(filepath.Join(dir, "pg_ctl")) {
			return dir, nil
		}
	}
	return "", ErrNotInstalled
}

func versionOf(binDir string) float64 {
	v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(binDir)), 64)
	return v
}

func isExec(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// baseDir is the temporary folder, unless the server's user could not enter
// it or a socket path in it would be too long (108 bytes on Linux).
func baseDir() string {
	base := os.TempDir()
	if len(base) > 60 || (os.Geteuid() == 0 && !enterableByOthers(base)) {
		return "/tmp"
	}
	return base
}

// enterableByOthers reports whether every folder on path's way has o+x.
func enterableByOthers(path string) bool {
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		if p == filepath.Dir(p) {
			return true
		}
	}
}

func chownTo(path, name string) error {
	u, err := user.Lookup(name)
	if err != nil {
		return fmt.Errorf("chown %s: %w", path, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(path, uid, gid); err != nil {
		return fmt.Errorf("chown %s: %w", path, err)
	}
	return nil
}

func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
