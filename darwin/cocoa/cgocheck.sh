#!/bin/sh
# Type-checks RAMBar's cgo build for darwin (the fyne tray plus the purego
# natives wired into it) on a machine without a Mac SDK: a copy of
# fyne.io/systray whose Cocoa file (import "C") is replaced by empty
# stand-ins is put in place with a throwaway -modfile, and `go vet -tags cgo`
# runs with CGO_ENABLED=0. Nothing it builds can run; it proves that every
# line of app/ and tray/ compiled only with cgo on darwin type-checks.
# Usage: darwin/cocoa/cgocheck.sh   (from the repository root)
set -eu
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ver=$(go list -m -f '{{.Version}}' fyne.io/systray)
src=$(go list -m -f '{{.Dir}}' fyne.io/systray)
cp -R "$src" "$tmp/systray"
chmod -R u+w "$tmp/systray"
cp "$root/darwin/cocoa/testdata/systray_darwin_stub.go.txt" "$tmp/systray/systray_darwin.go"
cp go.mod "$tmp/check.mod"
cp go.sum "$tmp/check.sum"
echo "replace fyne.io/systray $ver => $tmp/systray" >>"$tmp/check.mod"
for arch in arm64 amd64; do
	GOOS=darwin GOARCH=$arch CGO_ENABLED=0 go vet -modfile="$tmp/check.mod" -tags cgo ./app ./tray
done
echo "darwin cgo build type-checks (arm64, amd64)"
