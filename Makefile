# RAMBar. `make` lists the targets.
.DEFAULT_GOAL := help
SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
BIN := bin/rambar
BUILD ?= $(shell git rev-list --count HEAD 2>/dev/null || echo 0)
DIST := dist
APP := $(DIST)/RAMBar.app
DMG := $(DIST)/RAMBar.dmg
CHECK := $(DIST)/check
# Lint and release tools live in their own module (tools/go.mod), so the
# product's go.mod lists only what the product uses.
TOOL := $(GO) tool -modfile=tools/go.mod

.PHONY: help deps run dev-app selftest build install uninstall test unit lint cross bench bench-storage bench-mirror bench-pnpm bench-tray screenshot integration app dmg notarize bundle-check icons

# Where make install puts RAMBar on Linux: PREFIX/bin/rambar, a desktop
# entry and its icon. /usr/local (as root) or $HOME/.local (for you alone);
# DESTDIR is prepended for packagers.
PREFIX ?= /usr/local
ICON := bin/rambar-256.png
INSTALLED := $(DESTDIR)$(PREFIX)/bin/rambar $(DESTDIR)$(PREFIX)/share/applications/rambar.desktop \
	$(DESTDIR)$(PREFIX)/share/icons/hicolor/256x256/apps/rambar.png
# polkit reads actions from /usr/share/polkit-1/actions only, whatever the
# PREFIX: make install puts RAMBar's there when run as root for a PREFIX
# outside your home (or with DESTDIR, for a package).
POLKIT := $(DESTDIR)/usr/share/polkit-1/actions/app.rambar.policy

help: ## list the targets
	@grep -hE '^[a-z][a-zA-Z_-]*:.*## ' $(MAKEFILE_LIST) | sort | awk -F':.*## ' '{printf "  make %-14s %s\n", $$1, $$2}'

build: ## build bin/rambar for this machine
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./app

$(ICON): packaging/appicon/main.go
	$(GO) run ./packaging/appicon -size 256 -o $@

install: build $(ICON) ## Linux: install bin/rambar, a desktop entry and its icon under PREFIX (default /usr/local; PREFIX=~/.local for you alone); as root also RAMBar's polkit actions
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/applications $(DESTDIR)$(PREFIX)/share/icons/hicolor/256x256/apps
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/rambar
	sed 's|@BIN@|$(PREFIX)/bin/rambar|' packaging/linux/rambar.desktop > $(DESTDIR)$(PREFIX)/share/applications/rambar.desktop
	chmod 0644 $(DESTDIR)$(PREFIX)/share/applications/rambar.desktop
	install -m 0644 $(ICON) $(DESTDIR)$(PREFIX)/share/icons/hicolor/256x256/apps/rambar.png
	@if [ -n "$(DESTDIR)" ] || { [ "$$(id -u)" = 0 ] && case "$(PREFIX)/" in "$$HOME"/*) false;; esac; }; then \
		install -D -m 0644 packaging/linux/app.rambar.policy $(POLKIT) && echo "installed $(POLKIT): polkit's prompt names RAMBar (it asks at each step: see docs/linux.md)"; \
	else echo "note: polkit's actions for RAMBar need root (sudo make install); without them each mount and eject asks for the password again"; fi
	@echo "installed $(PREFIX)/bin/rambar; make uninstall PREFIX=$(PREFIX) removes it"
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) echo "note: $(PREFIX)/bin is not on your PATH, so 'rambar' is not found there yet; add it: echo 'export PATH=\"$(PREFIX)/bin:\$$PATH\"' >> ~/.profile (then log in again, or run that export now)";; esac

uninstall: ## Linux: remove what make install put under PREFIX, and its polkit actions as root (your settings and saved contents stay)
	rm -f $(INSTALLED)
	@if [ -f $(POLKIT) ] && [ -w $(dir $(POLKIT)) ]; then rm -f $(POLKIT) && echo "removed $(POLKIT)"; fi

# On a Mac the menu-bar app runs from a bundle: a bare binary shows no
# menu-bar icon on macOS 26 (tauri-apps/tray-icon#273), and notifications,
# SMAppService and the self-test's native checks need the bundle too.
DEVAPP := $(DIST)/dev/RAMBar.app

run: ## start the menu-bar app (macOS: a minimal ad-hoc RAMBar.app of the cgo build for this Mac, opened; Linux: bin/rambar in your desktop session's tray)
	@if [ "$$(uname -s)" = Darwin ]; then \
		$(MAKE) --no-print-directory dev-app && echo "open $(DEVAPP) (its log: log stream --process rambar)" && open -W -n $(DEVAPP); \
	else $(MAKE) --no-print-directory build && ./$(BIN); fi

dev-app: ## macOS: dist/dev/RAMBar.app for this Mac's architecture (cgo), signed ad hoc: what make run opens
	@if [ "$$(uname -s)" != Darwin ]; then echo "make dev-app needs macOS (cgo and the SDK)"; exit 1; fi
	$(GO) build -o bin/bundle ./packaging/bundle
	CGO_ENABLED=1 $(GO) build -ldflags "$(LDFLAGS)" -o $(DIST)/dev/rambar ./app
	bin/bundle app -bin $(DIST)/dev/rambar -o $(DEVAPP) -version "$(VERSION)" -build "$(BUILD)"
	bin/bundle sign -app $(DEVAPP)

# Where `make selftest` writes its report (report.json, summary.txt, the doctor's capture).
SELFTEST_OUT ?= $(DIST)/selftest

selftest: ## run rambar selftest: on a Mac from dist/dev/RAMBar.app (make dev-app), on Linux bin/rambar (root, a tray host on the session bus); report in SELFTEST_OUT
	@if [ "$$(uname -s)" = Darwin ]; then \
		$(MAKE) --no-print-directory dev-app && $(DEVAPP)/Contents/MacOS/rambar selftest --out $(SELFTEST_OUT); \
	else $(MAKE) --no-print-directory build && ./$(BIN) selftest --out $(SELFTEST_OUT); fi

test: deps lint cross bundle-check unit ## everything CI runs: the test tools (deps), vet, gofmt, staticcheck, actionlint, darwin cross-checks, all tests with -race, the .app bundle check

deps: ## install the programs the tests run (.ci/tools) with apt-get as root, or name the packages and stop
	tools/deps.sh

unit: ## the tests, with the race detector (one package at a time: the crash and benchmark checks time real I/O)
	$(GO) test -race -count=1 -p 1 -timeout 30m ./...

lint: bin/staticcheck ## go vet, gofmt and staticcheck, for Linux and for macOS without cgo
	$(GO) vet ./...
	GOOS=darwin CGO_ENABLED=0 $(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	bin/staticcheck ./...
	GOOS=darwin CGO_ENABLED=0 bin/staticcheck ./...

cross: ## vet, test-build and build the CLI for macOS without cgo
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) vet ./...
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) vet -tags integration ./darwin/ ./changefeed/
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) test -exec=true -count=1 ./... >/dev/null
	GOOS=darwin GOARCH=amd64 CGO_ENABLED=0 $(GO) test -exec=true -count=1 ./... >/dev/null
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o bin/rambar-darwin-arm64 ./app
	GOOS=darwin GOARCH=amd64 CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o bin/rambar-darwin-amd64 ./app
	sh darwin/cocoa/cgocheck.sh # the cgo tray build, type-checked against a stubbed fyne

bench: bench-storage bench-mirror bench-tray ## every benchmark, with ratios against dd, fio, tar, rsync and cp (root)

bench-storage: ## storage benchmark on a real tmpfs and /var/tmp, with ratios against dd, fio, tar (root; RAMBAR_BENCH_FULL=1: full sizes)
	$(GO) test -run '^$$' -bench '^BenchmarkStorage$$' -benchtime 1x -count=1 -v ./bench/

# Where `make screenshot` writes: bin/screenshot (untracked) unless DOCS=1
# asks to refresh the README's pictures in docs/. LANG=ja (de, es, fr,
# zh-Hans, pseudo) on make's command line renders the menu in that language
# (tray-ja.png); otherwise it is English.
SHOTS = $(if $(DOCS),docs,bin/screenshot)
SHOT_LANG = $(if $(filter command line,$(origin LANG)),$(LANG),en)

screenshot: build ## render the tray and a submenu under Xvfb + xfce4-panel into bin/screenshot/ (DOCS=1: docs/; LANG=ja: in Japanese) (root; apt: xfce4-panel xvfb xdotool imagemagick x11-utils xfconf zenity dbus-daemon, fonts-noto-cjk for ja and zh-Hans)
	RAMBAR_SHOT_LANG=$(SHOT_LANG) packaging/screenshot/screenshot.sh $(BIN) $(SHOTS)

bench-tray: build ## idle CPU and memory of the running tray, then of rambar agent alone, with three disks over 60 s each, and the cost of one refresh (root)
	$(GO) build -o bin/trayhost ./cmd/trayhost
	tray/testdata/bench-tray.sh $(BIN) 60 bin/trayhost
	$(GO) test -run '^$$' -bench . -benchmem ./tray/
	$(GO) test -run '^$$' -bench TrayRefreshLinux -benchmem ./app/

bench-mirror: build ## Keep saves and restores vs rsync -a --delete and tar at 10,000/50,000/200,000 files and 4 GiB of large files, store sizes, peak memory; Mirror folders' load and write-back vs rsync at 10,000/100,000 files; saves by the change feed and a steady writer's write -> durable p95; a pnpm monorepo in use (bench-pnpm); rambar save through the agent vs walking vs rsync, and the first save after a Mirror load (root: mounts tmpfs; BENCH_ARGS="-files N -large SIZE -only keep|mirror|feed|pnpm|agent")
	$(GO) build -o bin/benchmirror ./cmd/benchmirror
	./bin/benchmirror -dest $${BENCH_DEST:-/var/tmp} -rambar $(BIN) $(BENCH_ARGS)

bench-pnpm: ## a pnpm monorepo in use, alone: 480,000 paths in 60,000 folders, most hard links into one store, saved from the terminal vs rsync -aH --delete, by the feed, and continuously while node_modules is removed and made again (root: mounts tmpfs)
	$(GO) build -o bin/benchmirror ./cmd/benchmirror
	./bin/benchmirror -dest $${BENCH_DEST:-/var/tmp} -only pnpm $(BENCH_ARGS)

integration: ## on a Mac: the conformance suite and Mirror in place against the real hdiutil/diskutil; hard links in the real FSEvents feed
	$(GO) test -tags integration -count=1 -v ./darwin/ ./changefeed/

# Release (packaging/README.md). The Go program packaging/bundle does the work;
# every tool it starts gets argv, never a shell string.

# Built for this machine (go tool would build staticcheck for GOOS=darwin too).
bin/staticcheck: tools/go.mod tools/go.sum
	$(GO) build -modfile=tools/go.mod -o $@ honnef.co/go/tools/cmd/staticcheck

bin/quill: tools/go.mod tools/go.sum
	$(GO) build -modfile=tools/go.mod -o $@ github.com/anchore/quill/cmd/quill

bin/lipo: tools/go.mod tools/go.sum
	$(GO) build -modfile=tools/go.mod -o $@ github.com/konoui/lipo

icons: ## redraw assets/appicon.png (go generate) and make dist/AppIcon.icns from it
	$(GO) generate ./assets
	$(GO) run ./packaging/bundle icns -icon assets/appicon.png -o $(DIST)/AppIcon.icns

app: ## macOS: universal dist/RAMBar.app, signed (Developer ID from RAMBAR_SIGN_IDENTITY, else ad hoc)
	@if [ "$$(uname -s)" != Darwin ]; then echo "make app needs macOS (cgo and the SDK); on Linux, run make bundle-check"; exit 1; fi
	$(GO) build -o bin/bundle ./packaging/bundle
	MACOSX_DEPLOYMENT_TARGET=13.0 GOOS=darwin GOARCH=arm64 CGO_ENABLED=1 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(DIST)/arm64/rambar ./app
	MACOSX_DEPLOYMENT_TARGET=13.0 GOOS=darwin GOARCH=amd64 CGO_ENABLED=1 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(DIST)/amd64/rambar ./app
	lipo -create -output $(DIST)/rambar $(DIST)/arm64/rambar $(DIST)/amd64/rambar
	bin/bundle app -bin $(DIST)/rambar -o $(APP) -version "$(VERSION)" -build "$(BUILD)"
	bin/bundle sign -app $(APP)
	bin/bundle check -app $(APP) -version "$(VERSION)" -build "$(BUILD)"

dmg: app ## macOS: dist/RAMBar.dmg holding the app and an Applications link
	bin/bundle dmg -app $(APP) -o $(DMG)

notarize: app ## macOS: notarize and staple the app, make dist/RAMBar.dmg from it, notarize and staple the dmg (credentials: packaging/README.md)
	bin/bundle notarize -app $(APP)
	bin/bundle dmg -app $(APP) -o $(DMG)
	bin/bundle notarize -dmg $(DMG)

bundle-check: bin/quill bin/lipo ## any OS: lint the workflows; build RAMBar.app from the cgo-free darwin build, sign it ad hoc with quill, check it
	$(TOOL) actionlint -no-color -oneline
	$(GO) build -o bin/bundle ./packaging/bundle
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(CHECK)/arm64/rambar ./app
	GOOS=darwin GOARCH=amd64 CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(CHECK)/amd64/rambar ./app
	bin/lipo -create -output $(CHECK)/rambar $(CHECK)/arm64/rambar $(CHECK)/amd64/rambar
	bin/bundle app -bin $(CHECK)/rambar -o $(CHECK)/RAMBar.app -version "$(VERSION)" -build "$(BUILD)"
	bin/bundle sign -app $(CHECK)/RAMBar.app -quill "$(CURDIR)/bin/quill"
	bin/bundle check -app $(CHECK)/RAMBar.app -version "$(VERSION)" -build "$(BUILD)" -quill "$(CURDIR)/bin/quill"
