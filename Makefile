# outboxlab: build, test and check. `make test` is what CI runs (.ci/run).
GO ?= go

.PHONY: build test check vet fmt golden

build:
	$(GO) build -o outboxlab .

# Everything CI checks: formatting, vet, and every test under the race detector.
test: check
	$(GO) test -race -count=1 ./...

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
