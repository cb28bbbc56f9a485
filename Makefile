# MetaClaw — `make help` lists the targets.
.DEFAULT_GOAL := help
SHELL := /bin/bash

export PATH := $(PATH):/usr/local/go/bin:$(HOME)/go/bin
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
BIN     := bin/metaclaw

.PHONY: help run build test bench check generate clean dist-linux dist-windows dist-macos

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN{FS=":.*## "}{printf "  %-12s %s\n", $$1, $$2}'

build: ## build bin/metaclaw with the version stamped in
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./app/cmd/metaclaw

run: build ## build and start MetaClaw in the foreground (proxy, tray when there is one)
	./$(BIN)

test: ## run every test with the race detector (METACLAW_E2E=1: missing tools fail)
	$(GO) test -race -count=1 -timeout 30m ./...

BENCH_COUNT ?= 3

bench: ## run the benchmarks (startup, proxy overhead, RSS under load); print each run and the medians
	@set -o pipefail; { \
	$(GO) test -run '^$$' -bench StartToHealthy -benchtime 20x -count $(BENCH_COUNT) ./app/cmd/metaclaw/ && \
	$(GO) test -run '^$$' -bench ProxyRSSUnderLoad -benchtime 20000x -count $(BENCH_COUNT) ./app/cmd/metaclaw/ && \
	$(GO) test -run '^$$' -bench '^BenchmarkMemory(Retrieval|FTS5|Ingest|Forget)$$' -benchtime 2s -count $(BENCH_COUNT) ./app/learner/memory/ && \
	$(GO) test -run '^$$' -bench '^Benchmark(Retrieval|StarterInjection)$$' -benchtime 2000x -count $(BENCH_COUNT) ./app/learner/skills/ && \
	$(GO) test -run '^$$' -bench '^BenchmarkRecordTurns$$' -benchtime 20000x -count $(BENCH_COUNT) ./store/ && \
	$(GO) test -run '^$$' -bench '^BenchmarkRecordSession$$' -benchtime 2000x -count $(BENCH_COUNT) ./store/ && \
	$(GO) test -run '^$$' -bench '^BenchmarkLargeRequest$$' -benchtime 1000x -count $(BENCH_COUNT) ./proxy/ && \
	$(GO) test -run '^$$' -bench '^Benchmark(Direct|Proxy|ProxyBare|ProxyParts|HopFloor)$$' -benchtime 5000x -count $(BENCH_COUNT) ./proxy/; \
	} | grep -E '^(Benchmark|ok|FAIL|--- FAIL|\s+\S+\.go:[0-9]+: )' | awk '$(BENCH_SUMMARY)'

# BENCH_SUMMARY prints the benchmark lines as they come, then the median of
# every metric over the -count runs, then what the proxy adds (median
# BenchmarkProxy/x minus median BenchmarkDirect/x, and likewise x/proxy minus
# x/direct; req/s as a percentage).
BENCH_SUMMARY = { print; fflush() } \
	/^Benchmark/ { n = $$1; sub(/-[0-9]+$$/, "", n); if (!(n in seen)) { seen[n] = 1; names[++nn] = n } \
	  for (i = 3; i < NF; i += 2) { k = n SUBSEP $$(i+1); if (!(k in vals)) units[n] = units[n] " " $$(i+1); vals[k] = vals[k] " " $$i } } \
	function f(v) { return sprintf(v >= 100 || v <= -100 ? "%.0f" : "%.2f", v) } \
	function median(s,  a, c, i, j, t) { c = split(s, a, " "); \
	  for (i = 2; i <= c; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j+1] = a[j]; a[j+1] = t } \
	  return c % 2 ? a[(c+1)/2] : (a[c/2] + a[c/2+1]) / 2 } \
	END { print "\nmedians:"; \
	  for (x = 1; x <= nn; x++) { n = names[x]; line = sprintf("%-42s", n); c = split(units[n], u, " "); \
	    for (y = 1; y <= c; y++) { m[n, u[y]] = median(vals[n SUBSEP u[y]]); line = line "  " f(m[n, u[y]]) " " u[y] } print line } \
	  print "\nadded by the proxy (in-process):"; \
	  for (x = 1; x <= nn; x++) { n = names[x]; d = n; label = n; \
	    if (n ~ /^BenchmarkProxy\//) { sub(/^BenchmarkProxy/, "BenchmarkDirect", d); label = substr(n, 16) } \
	    else if (n ~ /\/proxy$$/) { sub(/\/proxy$$/, "/direct", d); sub(/^Benchmark/, "", label); sub(/\/proxy$$/, "", label) } \
	    else continue; \
	    line = sprintf("%-42s", label); c = split(units[n], u, " "); \
	    for (y = 1; y <= c; y++) { if (!((d, u[y]) in m) || u[y] == "ns/op") continue; \
	      if (u[y] == "req/s") line = line sprintf("  %.1f%% of direct req/s", 100 * m[n, u[y]] / m[d, u[y]]); \
	      else line = line "  +" f(m[n, u[y]] - m[d, u[y]]) " " u[y] } print line } }

check: ## vet, macOS type-check, formatting, docs and package docs, and a check that generated files are up to date
	$(GO) vet ./...
	$(GO) test -count=1 -run '^(TestDocs|TestPackageDocs)' ./app/ ./app/cli/ # commands, keys and links the docs name exist; every package is documented
	build/check-darwin.sh # gopls type-check of the macOS build (skipped without gopls)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@$(MAKE) --no-print-directory generate
	@out=$$(git status --porcelain --untracked-files=all -- assets web); if [ -n "$$out" ]; then \
	  echo "generated files are stale (templ generate / go generate changed these): run make generate and commit"; echo "$$out"; exit 1; fi

# templ: the CLI version must match the github.com/a-h/templ in go.mod.
TEMPL_VERSION := v0.3.1100
TEMPL_BIN     := $(shell $(GO) env GOPATH)/bin
TEMPL         := $(TEMPL_BIN)/templ

generate: ## regenerate generated files (icons, templ pages; installs the templ CLI when missing)
	$(GO) generate ./...
	@$(TEMPL) version 2>/dev/null | grep -qx '$(TEMPL_VERSION)' || GOBIN=$(TEMPL_BIN) $(GO) install github.com/a-h/templ/cmd/templ@$(TEMPL_VERSION)
	$(TEMPL) generate -path web

dist-linux: ## build the Linux .deb and .tar.gz into dist/ (ARCHES="amd64 arm64" for more)
	VERSION=$(VERSION) build/linux/package.sh

dist-windows: ## build the Windows GUI .exe and its NSIS installer into dist/ (needs makensis)
	VERSION=$(VERSION) build/windows/package.sh

dist-macos: ## build MetaClaw.app and its .dmg into dist/ (on a Mac; see build/README.md)
	VERSION=$(VERSION) build/macos/package.sh

clean: ## remove build output
	rm -rf bin dist
