//go:build !darwin && !linux

package main

import (
	"context"
	"fmt"
	"runtime"

	"rambar/darwin/cocoa"
	"rambar/ramdisk"
	"rambar/selftest"
)

// What the self-test's native lines check here: nothing, RAMBar runs on
// macOS and Linux.
const (
	trayItemRule   = "macOS and Linux only"
	notifyPostRule = trayItemRule
	loginRule      = trayItemRule
	sessionRule    = trayItemRule
)

func readTrayTitle(ctx context.Context) (string, error) {
	return "", fmt.Errorf("status item on %s: %w", runtime.GOOS, ramdisk.ErrUnsupported)
}

func readTrayMenu(ctx context.Context) ([]string, error) { return nil, ramdisk.ErrUnsupported }

func (a *App) nativeChecks(ctx context.Context) []selftest.Check { return nil }

func notifySkipped(err error) (string, bool) { return "", false }

func notifyServer(ctx context.Context) string { return "no notifications on " + runtime.GOOS }

func loginCheck(ctx context.Context, tg cocoa.Toggle) selftest.Check {
	return selftest.Skipf(checkLoginService, "no login item on %s", runtime.GOOS)
}

func sessionWiring(ctx context.Context) ([]string, string) { return nil, "" }

func systemRelease(ctx context.Context) string { return "" }
