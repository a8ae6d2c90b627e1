// Package crashloop proves the engine under kill -9: its test drains an
// outbox (a SQLite file, then a PostgreSQL schema) with worker processes it
// SIGKILLs and restarts at random moments.
//
// The package has no code of its own; run the proof with
//
//	go test -race ./internal/crashloop                 # CI size: 150 messages under -race, 2000 without (PostgreSQL: 100, 300)
//	go test ./internal/crashloop -crashloop.n=10000 -v # the size, with the counts printed
//
// Other flags: -crashloop.seed (the kill schedule; printed by every run),
// -crashloop.workers (3), -crashloop.life (800ms: the longest a worker lives
// after its first settled step), -crashloop.timeout (20 minutes: each worker
// settles a step before it can be killed, so the loop ends however loaded the
// machine; the timeout only stops a livelock).
package crashloop
