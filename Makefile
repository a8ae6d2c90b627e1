# outboxlab: build, test and check. `make test` is what CI runs (.ci/run).
GO ?= go

.PHONY: build test check vet fmt golden fuzz

build:
	$(GO) build -o outboxlab .

# Everything CI checks: formatting, vet, every test under the race detector,
# then each fuzz target for a few seconds (the seed corpora already run in go test).
test: check
	$(GO) test -race -count=1 -timeout 30m ./...
	$(MAKE) fuzz

FUZZTIME ?= 4s
fuzz:
	$(GO) test ./core/report -run '^$$' -fuzz '^FuzzSplitHeader$$' -fuzztime $(FUZZTIME)
	$(GO) test ./core/report -run '^$$' -fuzz '^FuzzHeaderRoundTrip$$' -fuzztime $(FUZZTIME)
	$(GO) test ./core/jsrand -run '^$$' -fuzz '^FuzzNext$$' -fuzztime $(FUZZTIME)
	$(GO) test ./core/jsrand -run '^$$' -fuzz '^FuzzRound$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/fuzzopts -run '^$$' -fuzz '^FuzzSession16Options$$' -fuzztime $(FUZZTIME)

check: fmt vet

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# Regenerate the golden report bodies. Read the diff before committing it.
golden:
	$(GO) test ./cli -run TestGoldenReports -update
	git diff --stat testdata/golden

# Benchmarks, not part of `make test`: the core's Go benchmarks (claim, complete,
# fail-with-backoff, dead-letter, drain), then bench/ (its own module, so the lab
# never depends on its peers): the drain against goqite and River in the same run,
# the raw write ceiling, the claim at 10k and 1M rows, and the whole suite's wall
# time and peak memory.
.PHONY: bench
bench:
	$(GO) test -run '^$$' -bench . -benchtime 2000x ./core/outbox ./core/worker
	cd bench && $(GO) run .
