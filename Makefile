# outboxlab: build, test and check. `make test` is what CI runs (.ci/run).
GO ?= go

.PHONY: build cross test test-race test-lab test-scripts test-cli test-grade test-families test-extremes test-workers-postgres test-postgres check vet fmt golden fuzz fuzz-options

build:
	$(GO) build -o outboxlab .

# Everything CI checks: formatting, vet, the engine and the tests that race
# goroutines under the race detector, the golden reports, end-to-end scripts
# and the families' other tests without it (they run scenarios, not races,
# and are several times slower under it), and every fuzz target for a fixed
# number of inputs (a count, never a time: a time-based run can end on the
# engine's own deadline). They run side by side: much of the tests' time is
# spent waiting on PostgreSQL's commits and child processes, which leaves
# the cores to the others, and the fuzz targets' count bounds their work
# whatever else runs. Each scenario runs at its defaults once per
# database (cli's golden tests); the families compare their FailsWith runs.
test: check
	$(MAKE) -j8 --output-sync=target $(TESTS) FUZZTIME=$(FUZZCOUNT)

# make test's parts, longest first: each is a process of its own, so that no
# part queues behind another's longest package (go test runs two test
# binaries at a time).
TESTS = test-extremes test-cli test-race test-scripts test-grade test-workers-postgres test-families fuzz cross

# The six systems a class's laptops run: the lab builds for each, `go vet`
# type-checks every package and its tests for macOS and Windows, and the
# tests of the packages with code per system (processes, files, the
# terminal) compile and link for each. Nothing here can run those builds
# (no macOS; Debian's Wine cannot start a Go 1.22+ binary): README, "Where it
# runs", says what only this covers.
CROSS_TARGETS = linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
CROSS_TESTED = ./core/proc ./core/proctree ./core/child ./core/sqlitedb ./core/report ./internal/pgtest
cross:
	@set -e; for t in $(CROSS_TARGETS); do \
		echo "build $$t"; GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) build -trimpath -o /dev/null . ; \
	done
	GOOS=darwin $(GO) vet -trimpath ./...
	GOOS=windows $(GO) vet -trimpath ./...
	@set -e; dir=$$(mktemp -d); trap 'rm -rf "$$dir"' EXIT; for os in darwin windows; do \
		echo "test -c $$os: $(CROSS_TESTED)"; GOOS=$$os $(GO) test -trimpath -c -ldflags=-w -o "$$dir/$$os/" $(CROSS_TESTED); \
	done

# Every go test of `make test` links its binary without DWARF (-w), which no
# test reads and which is a third of each link's time, and builds with
# -trimpath: without it the build cache keys every package of the lab by
# the folder it is in, so a fresh clone compiled the whole lab again even
# when another checkout had warmed the cache.
TEST = $(GO) test -trimpath -count=1 -timeout 30m -ldflags=-w

# The race detector runs where goroutines race: the engine and the kit
# whole; worker-throughput's drains on SQLite (its goroutine workers); of
# wassal and governance, the tests that drive their goroutines (Day 15's
# racing workers, the stale-claim race). Everything else in the families
# drives one design at a time on the scenario clock, through the engine the
# race tests cover, and runs in test-lab without the detector, which makes
# it several times slower. worker-throughput on PostgreSQL runs its
# workers as processes, which race through the server, not in memory:
# test-workers-postgres.
RACED = ./core/... ./internal/... ./scenarios ./scenarios/scenariotest
RACED_RUN = Session15|Stale|DeadLetterRace

test-race:
	$(TEST) -race $(RACED)
	$(TEST) -race -skip 'Postgres' ./scenarios/workers
	$(TEST) -race -run '$(RACED_RUN)' ./scenarios/wassal ./scenarios/governance

# Without the race detector: the end-to-end scripts, cli's tests (the
# golden reports on both databases among them), grading with the reference
# and the wrong workers, and the families' own tests.
test-lab: test-scripts test-cli test-grade test-families

test-scripts:
	$(TEST) .

test-cli:
	$(TEST) -skip '^($(JUDGED))$$' ./cli/...

# grade, the most concurrent package (a scheduler, an HTTP server, worker
# processes), runs under the race detector; its race-built dependencies are
# test-race's, so it costs little more than without.
test-grade:
	$(TEST) -race ./grade/...
	$(TEST) ./workers

test-families:
	$(TEST) ./scenarios/retry ./scenarios/ordered ./scenarios/wassal ./scenarios/governance

test-workers-postgres:
	$(TEST) -run 'Postgres' ./scenarios/workers

# Every scenario's flags at their limits (cli TestFlagExtremesRun) and the
# tests that judge the same runs — no check holds on nothing, every scenario
# can fail and be not exercised, WHY and Next read from the run — in a
# process of their own beside cli's other tests: they share each run (one
# per scenario and flags, shown at 80 columns with its report), so that a
# run is made once in make test (cli TestJudgedTestsShareAProcess keeps
# this list whole). Four scenarios at a time instead of two cost a fifth
# more CPU in a whole make test: the cores are already full.
JUDGED = TestFlagExtremesRun|TestNoCheckHoldsOnNothing|TestEveryScenarioCanFail|TestEveryScenarioCanBeNotExercised|TestEveryWhyIsFromItsRun|TestEveryRunSaysWhatToTryNext|TestEveryHeadlineIsTrue|TestNextLeadsOn
test-extremes:
	$(TEST) -run '^($(JUDGED))$$' ./cli

# The PostgreSQL half of test-lab alone (each test binary starts its own
# throwaway server): every scenario's comparable body on PostgreSQL against its
# golden, the end-to-end scripts with OUTBOXLAB_DATABASE_URL, and --database's
# faults, cleanup, --keep-db and inspect.
test-postgres:
	$(TEST) -run Postgres . ./cli/...

# The fuzz targets, none of which compiles SQLite. `make fuzz` alone fuzzes
# each for FUZZTIME (a duration or a count such as 500x);
# `make fuzz-options` fuzzes the Day 16 flags through real runs.
FUZZCOUNT ?= 10000x
FUZZTIME ?= 30s
fuzz:
	scripts/fuzz.sh ./core/report FuzzSplitHeader $(FUZZTIME)
	scripts/fuzz.sh ./core/report FuzzHeaderRoundTrip $(FUZZTIME)
	scripts/fuzz.sh ./core/jsrand FuzzNext $(FUZZTIME)
	scripts/fuzz.sh ./core/jsrand FuzzRound $(FUZZTIME)

fuzz-options:
	scripts/fuzz.sh ./scenarios/wassal FuzzSession16Options $(FUZZTIME)

check: fmt vet

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# bench/ is a module of its own (its peers, River and goqite, stay out of
# the lab's): vetting it here keeps it building when the lab's API moves.
vet:
	$(GO) vet -trimpath ./...
	cd bench && $(GO) vet -trimpath ./...

# Regenerate the golden report bodies. Read the diff before committing it.
golden:
	$(GO) test ./cli -run TestGoldenReports -update
	git diff --stat testdata/golden

# The table of issue 41: grade searches for the smallest failing case of
# every wrong worker (make test searches for one per Day): wrong worker,
# the case's payments, workers, faults and timeline lines, reruns and
# search time, in the test's log.
.PHONY: smallest
smallest:
	OUTBOXLAB_SMALLEST=all $(TEST) -v -run '^TestSmallestCases$$' ./workers

# Benchmarks, not part of `make test`: the core's Go benchmarks (claim, complete,
# fail-with-backoff, dead-letter, drain), a grade of Day 16 and of Day 15 with the Go
# reference prebuilt (issue 40: under 5 s and 10 s), then bench/ (its own module, so the lab
# never depends on its peers): the drain against goqite and River in the same run,
# the raw write ceiling, the claim at 10k and 1M rows, and the whole suite's wall
# time and peak memory; and bench/regrade: class --regrade of 30 students' Day 16
# workers against its 45 s target.
# The benchmarks' PostgreSQL servers keep fsync on (the tests' throwaway
# servers skip the flush: internal/pgtest.Start).
PGDURABLE = OUTBOXLAB_PGTEST_DURABLE=1
.PHONY: bench
bench:
	$(PGDURABLE) $(GO) test -run '^$$' -bench . -benchtime 2000x ./core/outbox ./core/worker
	$(PGDURABLE) $(GO) test -trimpath -run '^$$' -bench 'GradeDay1[56]' -benchtime 3x ./workers
	cd bench && $(GO) run ./regrade
	cd bench && $(GO) run .

# A throwaway local PostgreSQL for --database (unix socket only, no password):
# `make postgres` starts it, or says it is running, and prints the URL;
# `make postgres-stop` stops it and removes its data. The tests start their own.
.PHONY: postgres postgres-stop
postgres:
	@scripts/postgres.sh start

postgres-stop:
	@scripts/postgres.sh stop
