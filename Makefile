# RAMBar. `make` lists the targets.
.DEFAULT_GOAL := help
SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
BIN := bin/rambar

.PHONY: help run build test unit lint cross bench bench-mirror

help: ## list the targets
	@grep -hE '^[a-z][a-zA-Z_-]*:.*## ' $(MAKEFILE_LIST) | sort | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

build: ## build bin/rambar for this machine
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./app

run: build ## start the menu-bar app (macOS: the cgo build; Linux: your desktop session's tray)
	./$(BIN)

test: lint cross unit ## everything CI runs: vet, gofmt, darwin cross-checks, all tests with -race

unit: ## the tests, with the race detector
	$(GO) test -race -count=1 ./...

lint: ## go vet and gofmt
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

cross: ## vet, test-build and build the CLI for macOS without cgo
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) vet ./...
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) test -exec=true -count=1 ./... >/dev/null
	GOOS=darwin GOARCH=amd64 CGO_ENABLED=0 $(GO) test -exec=true -count=1 ./... >/dev/null
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o bin/rambar-darwin-arm64 ./app
	GOOS=darwin GOARCH=amd64 CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o bin/rambar-darwin-amd64 ./app

bench: ## benchmarks with ratios against rsync, cp, tar, dd
	@echo "benchmarks: see bench/"

bench-mirror: ## mirror's save/restore vs rsync -a --delete and cp -a on a 50,000-file tree (root: mounts a tmpfs)
	$(GO) build -o bin/benchmirror ./mirror/benchmirror
	./bin/benchmirror -dest $${BENCH_DEST:-/var/tmp}

integration: ## on a Mac: run the conformance suite against the real hdiutil/diskutil
	$(GO) test -tags integration -count=1 -v ./darwin/
