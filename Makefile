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

BENCHSTAT_VERSION := v0.0.0-20260908200009-22c9c6c9d4da
BENCHSTAT         := $(shell $(GO) env GOPATH)/bin/benchstat
BENCH_OUT         ?= bin/bench.txt

bench: ## run the benchmarks (the real binary's added latency, startup, RSS; proxy, store, retrieval); benchstat summary
	@test -x $(BENCHSTAT) || GOBIN=$(dir $(BENCHSTAT)) $(GO) install golang.org/x/perf/cmd/benchstat@$(BENCHSTAT_VERSION)
	@mkdir -p $(dir $(BENCH_OUT)); set -o pipefail; { \
	$(GO) test -run '^$$' -bench '^BenchmarkAddedLatency$$' -benchtime 400x -count $(BENCH_COUNT) ./app/cmd/metaclaw/ && \
	$(GO) test -run '^$$' -bench StartToHealthy -benchtime 20x -count $(BENCH_COUNT) ./app/cmd/metaclaw/ && \
	$(GO) test -run '^$$' -bench ProxyRSSUnderLoad -benchtime 20000x -count $(BENCH_COUNT) ./app/cmd/metaclaw/ && \
	$(GO) test -run '^$$' -bench '^BenchmarkMemory(Retrieval|FTS5|Ingest|Forget)$$' -benchtime 2s -count $(BENCH_COUNT) ./app/learner/memory/ && \
	$(GO) test -run '^$$' -bench '^Benchmark(Retrieval|StarterInjection)$$' -benchtime 2000x -count $(BENCH_COUNT) ./app/learner/skills/ && \
	$(GO) test -run '^$$' -bench '^BenchmarkRecordTurns$$' -benchtime 20000x -count $(BENCH_COUNT) ./store/ && \
	$(GO) test -run '^$$' -bench '^BenchmarkRecordSession$$' -benchtime 2000x -count $(BENCH_COUNT) ./store/ && \
	$(GO) test -run '^$$' -bench '^BenchmarkLargeRequest$$' -benchtime 1000x -count $(BENCH_COUNT) ./proxy/ && \
	$(GO) test -run '^$$' -bench '^Benchmark(Direct|Proxy|ProxyBare|ProxyParts|HopFloor)$$' -benchtime 5000x -count $(BENCH_COUNT) ./proxy/; \
	} | grep --line-buffered -E '^(Benchmark|goos|goarch|pkg|cpu|ok|FAIL|--- FAIL|\s+\S+\.go:[0-9]+: )' | tee $(BENCH_OUT)
	@echo; $(BENCHSTAT) $(BENCH_OUT)

check: ## vet, staticcheck, macOS type-check, formatting, docs and package docs, and a check that generated files are up to date
	$(GO) vet ./...
	@$(STATICCHECK) -version 2>/dev/null | grep -qF '($(STATICCHECK_VERSION:v%=%))' || GOBIN=$(TEMPL_BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(STATICCHECK) ./...
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
STATICCHECK_VERSION := v0.8.2
STATICCHECK         := $(TEMPL_BIN)/staticcheck

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
