# consim — build, run, test, benchmark.
GO       ?= go
SCENARIO ?= scenarios/quickstart.yaml
STATICCHECK ?= staticcheck

# The runtime packages run under the race detector in make test; the pure
# numeric packages and the command run without it (same code paths, 5-10x
# faster; the command's race build links the whole NATS server). make
# test-long runs the command under the race detector too.
RACE_PKGS = ./node/... ./coordinator ./coordinator/live ./sim/... ./async/realtime
PURE_PKGS = $(shell $(GO) list ./... | grep -v -e /node -e '/coordinator$$' -e /coordinator/live -e /sim -e /async/realtime)

.PHONY: all build run test test-long fuzz faults deploy-check browser-test check vet lint tidy bench docs clean

all: build

build:
	$(GO) build -o bin/consim ./cmd/consim

## run: the quickstart scenario on the embedded NATS server; prints the summary
## and the path of the results bundle.
run: build
	./bin/consim run $(SCENARIO)

## test: format and vet, then the suite in -short mode (-race on the packages
## with goroutines). Long convergence runs and reproductions are in test-long.
test: vet
	$(GO) test -count=1 -short -timeout 15m $(PURE_PKGS)
	$(GO) test -count=1 -short -race -timeout 20m $(RACE_PKGS)

## test-long: every test, including the long ones (CONSIM_LONG=1): convergence
## to the papers' figures, process-mode drills, the fused-multiply-add scan.
test-long:
	CONSIM_LONG=1 $(GO) test -count=1 -timeout 60m ./...
	$(GO) test -count=1 -race -timeout 30m ./cmd/...

## faults: each attack and fault of the security model against a live run
## (drills/), and network faults on agent processes in network namespaces
## (root only, skipped otherwise): prints a table and fails if any row fails.
faults: build
	$(GO) run ./drills -consim bin/consim

## browser-test: report.html and the live view (--ui) opened in headless
## Chromium (internal/browsercheck): no console errors, every plot with the
## bundle's series and points, the live page advancing while the run runs.
## Installs Debian's chromium when it is missing and this is root; skips,
## saying why, when it cannot. Screenshots go to BROWSER_OUT (default: a new
## temporary directory), printed at the end.
CHROMIUM ?= /usr/bin/chromium
BROWSER_OUT ?=
browser-test: build
	@if [ ! -x "$(CHROMIUM)" ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "browser-test: installing Debian's chromium"; \
	  apt-get install -y -qq chromium >/dev/null 2>&1 || \
	    { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; } || true; \
	fi; \
	if [ ! -x "$(CHROMIUM)" ]; then \
	  echo "browser-test: SKIPPED: no Chromium at $(CHROMIUM), and it could not be installed (apt-get install chromium needs root and Debian's archive)"; \
	  exit 0; \
	fi; \
	$(GO) run ./internal/browsercheck -consim bin/consim -chromium $(CHROMIUM) $(if $(BROWSER_OUT),-out $(BROWSER_OUT))

## deploy-check: the Kubernetes manifests (deploy/kubernetes) decoded strictly
## into the typed API objects and checked against consim's invariants, offline.
deploy-check:
	cd deploy/kubernetes/validate && $(GO) mod tidy -diff && $(GO) vet ./... && $(GO) test -count=1 ./... && $(GO) run .

## fuzz: each fuzz target for FUZZTIME (default 20s).
FUZZTIME ?= 20s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzLIBSVM$$' -fuzztime $(FUZZTIME) ./dataset/
	$(GO) test -run '^$$' -fuzz '^FuzzCSV$$' -fuzztime $(FUZZTIME) ./dataset/
	$(GO) test -run '^$$' -fuzz '^FuzzReadIDX$$' -fuzztime $(FUZZTIME) ./dataset/
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./scenarios/
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeFrame$$' -fuzztime $(FUZZTIME) ./node/
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeEval$$' -fuzztime $(FUZZTIME) ./node/
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeStatus$$' -fuzztime $(FUZZTIME) ./node/
	$(GO) test -run '^$$' -fuzz '^FuzzDecodePayload$$' -fuzztime $(FUZZTIME) ./consensus/compress/

## check: what CI checks besides the tests: gofmt, vet, staticcheck, go mod tidy.
check: vet lint tidy

vet:
	@fmt=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$fmt" ]; then echo "gofmt needed:"; echo "$$fmt"; exit 1; fi
	$(GO) vet ./...

lint:
	$(STATICCHECK) ./...

tidy:
	$(GO) mod tidy -diff

## bench: rounds/s of the runtime and the algorithms (see docs/benchmarks.md).
bench:
	$(GO) test -run '^$$' -bench Rounds ./node/
	$(GO) test -run '^$$' -bench VsRaw -benchtime 1x ./internal/bench/
	$(GO) test -run '^$$' -bench ProcessMode -benchtime 3x ./cmd/consim

## docs: regenerate what the docs show that commands generate: the scenario
## key table (docs/scenarios.md), the parameter and algorithm tables
## (docs/parameters.md, docs/algorithms.md), the README's figure
## (docs/figures/quickstart_consensus.png, from make run's scenario) and
## the figures of docs/reproductions/admm.md (consim reproduce admm); with
## BENCH=1 also the table of docs/benchmarks.md (consim bench: minutes, and
## meaningful only on an idle machine). Then the docs tests: every Go block
## compiles, every consim command line parses, every link resolves.
BENCH ?=
docs: build
	$(GO) test -count=1 ./scenarios -run '^TestDocsListEveryKey$$' -update-docs
	$(GO) test -count=1 ./catalog -run '^(TestParametersDoc|TestAlgorithmsDoc)$$' -update-docs
	@tmp=$$(mktemp -d) && \
	  { ./bin/consim run scenarios/quickstart.yaml --transport chan --run-id quickstart --out $$tmp --log-level off > $$tmp/run.log 2>&1 || { cat $$tmp/run.log; false; }; } && \
	  ./bin/consim report $$tmp/quickstart > /dev/null && \
	  mkdir -p docs/figures && cp $$tmp/quickstart/plots/consensus.png docs/figures/quickstart_consensus.png && \
	  rm -rf $$tmp && echo "docs: wrote docs/figures/quickstart_consensus.png"
	@tmp=$$(mktemp -d) && \
	  { ./bin/consim reproduce admm --out $$tmp/admm > $$tmp/admm.log 2>&1 || { cat $$tmp/admm.log; false; }; } && \
	  cp $$tmp/admm/admm_cov2_oracle.png $$tmp/admm/admm_cov10_oracle.png scenarios/figures/ && \
	  rm -rf $$tmp && echo "docs: wrote scenarios/figures/admm_cov2_oracle.png and admm_cov10_oracle.png (docs/reproductions/admm.md)"
ifeq ($(BENCH),1)
	@tmp=$$(mktemp -d) && ./bin/consim bench --algos null,alm --markdown > $$tmp/bench.md && \
	  awk -v table=$$tmp/bench.md '/^<!-- bench: generated by/ {print; while ((getline l < table) > 0) print l; skip=1; next} /^<!-- end of bench -->/ {skip=0} !skip' docs/benchmarks.md > $$tmp/benchmarks.md && \
	  mv $$tmp/benchmarks.md docs/benchmarks.md && rm -rf $$tmp && \
	  echo "docs: rewrote the table of docs/benchmarks.md; update the machine and load above it"
endif
	$(GO) test -count=1 -run '^(TestDocs|TestDocsIndex|TestBenchDocStamp)$$' ./cmd/consim

clean:
	rm -rf bin
