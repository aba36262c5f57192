package main

import (
	"bytes"
	"context"
	"debug/macho"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rambar/internal/run/runtest"
)

func TestMainUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "usage: bundle"},
		{[]string{"frobnicate"}, "usage: bundle"},
		{[]string{"app", "-o", "x.app", "-version", "v1"}, "-bin is required"},
		{[]string{"check"}, "-app is required"},
		{[]string{"sign", "-app", "x.app", "extra"}, `unexpected argument "extra"`},
		{[]string{"dmg", "-app", "x.app", "-nope"}, "flag provided but not defined"},
		{[]string{"notarize", "-dmg", "x.dmg"}, "no credentials"},
		{[]string{"notarize", "-app", "x.app"}, "no credentials"},
		{[]string{"notarize"}, "one of -app or -dmg"},
	}
	for _, tt := range tests {
		err := Main(context.Background(), tt.args, &bytes.Buffer{}, func(string) string { return "" }, runtest.NewScript(t))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("bundle %q = %v, want %q", tt.args, err, tt.want)
		}
	}
}

// TestMainAppThenCheck runs the two subcommands make bundle-check runs
// around signing, through Main as the Makefile does.
func TestMainAppThenCheck(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "rambar")
	os.WriteFile(bin, fatFile(map[macho.Cpu][]byte{macho.CpuAmd64: machoSlice(macho.CpuAmd64, 5000, 0), macho.CpuArm64: machoSlice(macho.CpuArm64, 5000, 0)},
		macho.CpuAmd64, macho.CpuArm64), 0o755)
	app := filepath.Join(dir, "dist", "RAMBar.app")
	icns := filepath.Join(dir, "AppIcon.icns")
	os.WriteFile(icns, appIcon(t), 0o644)
	ctx, env := context.Background(), func(string) string { return "" }
	var out bytes.Buffer
	if err := Main(ctx, []string{"app", "-bin", bin, "-o", app, "-version", "v1.2.0-3-gabcdef0", "-build", "40",
		"-info", filepath.Join("..", "..", "Info.plist"), "-icns", icns}, &out, env, runtest.NewScript(t)); err != nil {
		t.Fatal(err)
	}
	if err := Main(ctx, []string{"check", "-app", app, "-version", "v1.2.0-3-gabcdef0", "-build", "40"}, &out, env, runtest.NewScript(t)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "version 1.2.0 (40), icon 1024 px") {
		t.Errorf("output %q", out.String())
	}
	err := Main(ctx, []string{"check", "-app", app, "-version", "v1.3.0", "-build", "40"}, &out, env, runtest.NewScript(t))
	if err == nil || !strings.Contains(err.Error(), "want 1.3.0 (40)") {
		t.Errorf("check of another version: %v", err)
	}
}
