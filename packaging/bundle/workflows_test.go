package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// macRunners are the hosted macOS runner labels the workflows may use: the
// oldest still supported (macos-14 is unsupported from 2026-11-02,
// actions/runner-images#13518) and the newest, on Apple silicon and Intel.
var macRunners = []string{"macos-15", "macos-26", "macos-26-intel"}

var (
	runsOnLine = regexp.MustCompile(`^\s*runs-on:\s*(.+?)\s*(#.*)?$`)
	osLine     = regexp.MustCompile(`^\s*os:\s*\[(.*)\]\s*(#.*)?$`)
)

// runnerLabels are the runner labels a workflow names: each runs-on value
// (a list's items; an expression is left out) and each matrix os list.
func runnerLabels(yml string) []string {
	var labels []string
	add := func(list string) {
		for _, l := range strings.Split(strings.Trim(list, "[]"), ",") {
			if l = strings.Trim(strings.TrimSpace(l), `"'`); l != "" {
				labels = append(labels, l)
			}
		}
	}
	for _, line := range strings.Split(yml, "\n") {
		if m := runsOnLine.FindStringSubmatch(line); m != nil && !strings.HasPrefix(m[1], "${{") {
			add(m[1])
		}
		if m := osLine.FindStringSubmatch(line); m != nil {
			add(m[1])
		}
	}
	return labels
}

func TestRunnerLabels(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "workflow-runners.yml"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ubuntu-latest", "macos-14", "macos-26", "macos-26-intel", "macos-13", "self-hosted", "macos-15"}
	if got := runnerLabels(string(b)); !slices.Equal(got, want) {
		t.Errorf("runnerLabels = %q, want %q", got, want)
	}
}

// TestWorkflowRunners lints the workflows' runner labels: every macOS one
// is a supported hosted runner, the release builds on macos-15, and CI
// tests on the oldest and newest macOS and on Intel.
func TestWorkflowRunners(t *testing.T) {
	dir := filepath.Join("..", "..", ".github", "workflows")
	for _, c := range []struct {
		file string
		want []string // labels it must name
	}{
		{"ci.yml", []string{"ubuntu-latest", "macos-15", "macos-26", "macos-26-intel"}},
		{"release.yml", []string{"macos-15"}},
	} {
		b, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		got := runnerLabels(string(b))
		for _, l := range got {
			if strings.HasPrefix(l, "macos") && !slices.Contains(macRunners, l) {
				t.Errorf("%s: runner %s is not one of %v", c.file, l, macRunners)
			}
		}
		for _, l := range c.want {
			if !slices.Contains(got, l) {
				t.Errorf("%s: no job runs on %s (runners: %v)", c.file, l, got)
			}
		}
	}
	all, _ := filepath.Glob(filepath.Join(dir, "*.yml"))
	if len(all) != 2 {
		t.Errorf("workflows %v: lint each one here", all)
	}
}
