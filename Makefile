# consim — build, run, test, benchmark.
GO      ?= go
SCENARIO ?= scenarios/quickstart.yaml

# Packages that start goroutines run under the race detector; the pure
# numeric packages run without it (same code paths, 5-10x faster).
RACE_PKGS = ./node/... ./coordinator/... ./cmd/...
PURE_PKGS = ./graph/... ./consensus/... ./scenarios/...

.PHONY: all build run test vet bench clean

all: build

build:
	$(GO) build -o bin/consim ./cmd/consim

## run: the quickstart scenario on the embedded NATS server; prints the summary
## and the path of the results bundle.
run: build
	./bin/consim run $(SCENARIO)

## test: vet, then the whole suite (-race on the packages with goroutines).
test: vet
	$(GO) test -count=1 -timeout 15m $(PURE_PKGS)
	$(GO) test -count=1 -race -timeout 20m $(RACE_PKGS)

vet:
	@fmt=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$fmt" ]; then echo "gofmt needed:"; echo "$$fmt"; exit 1; fi
	$(GO) vet ./...

## bench: rounds/s of the runtime and the algorithms (see README, Benchmarks).
bench:
	$(GO) test -run '^$$' -bench Rounds ./node/
	$(GO) test -run '^$$' -bench ProcessMode -benchtime 3x ./cmd/consim

clean:
	rm -rf bin
