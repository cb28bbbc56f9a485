# MetaClaw — `make help` lists the targets.
.DEFAULT_GOAL := help
SHELL := /bin/bash

export PATH := $(PATH):/usr/local/go/bin:$(HOME)/go/bin
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
BIN     := bin/metaclaw

.PHONY: help run build test bench check generate clean

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN{FS=":.*## "}{printf "  %-12s %s\n", $$1, $$2}'

build: ## build bin/metaclaw with the version stamped in
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./app/cmd/metaclaw

run: build ## build and start MetaClaw in the foreground (proxy, tray when there is one)
	./$(BIN)

test: ## run every test with the race detector (METACLAW_E2E=1: missing tools fail)
	$(GO) test -race -count=1 -timeout 30m ./...

bench: ## run the benchmarks and print their figures
	$(GO) test -run '^$$' -bench . -benchtime 20x ./app/cmd/metaclaw/ | grep -E '^(Benchmark|ok|FAIL)'

check: ## vet, formatting, and a check that generated files are up to date
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) generate ./...
	@git diff --exit-code -- assets || (echo "generated files are stale: run make generate and commit"; exit 1)

generate: ## regenerate generated files (icons)
	$(GO) generate ./...

clean: ## remove build output
	rm -rf bin dist
