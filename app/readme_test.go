package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"rambar/tray"
)

// userDocs are the pages a user reads: the README and docs/.
func userDocs(t *testing.T) map[string]string {
	t.Helper()
	pages := map[string]string{}
	files, _ := filepath.Glob("../docs/*.md")
	for _, f := range append([]string{"../README.md"}, files...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pages[strings.TrimPrefix(f, "../")] = string(b)
	}
	return pages
}

// internalWords are the project's own words, which mean nothing to a user.
var internalWords = regexp.MustCompile(`(?i)\bseeds?\b|seed's|\bissue \d+|\bfake mac\b|shared design folder`)

// repoPath is a path of a file in the repository as the docs write it: a
// link's target, or a path in backquotes (docs/json.md, app/testdata/help-*.golden).
var (
	linkTarget = regexp.MustCompile(`\]\(([^)#\s]+)\)`)
	quotedPath = regexp.MustCompile("`((?:app|assets|bench|cmd|darwin|disks|docs|internal|linux|login|mirror|packaging|ramdisk|tools|tray|\\.ci)/[A-Za-z0-9_./*-]+)`")
)

// TestUserDocs: the README and docs/ use no internal words, link and name
// only files the repository has, name the license (MIT, in LICENSE), keep
// the benchmark figures on their own page, and name the release page and
// the Homebrew tap once each, as About does and the cask's url.
func TestUserDocs(t *testing.T) {
	pages := userDocs(t)
	for name, text := range pages {
		if m := internalWords.FindString(text); m != "" {
			t.Errorf("%s says %q: a word of the project's own, not a user's", name, m)
		}
		dir := filepath.Dir(filepath.Join("..", name))
		for _, m := range linkTarget.FindAllStringSubmatch(text, -1) {
			if strings.Contains(m[1], "://") {
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, m[1])); err != nil {
				t.Errorf("%s links %s, which is not in the repository", name, m[1])
			}
		}
		for _, m := range quotedPath.FindAllStringSubmatch(text, -1) {
			if got, _ := filepath.Glob(filepath.Join("..", m[1])); len(got) == 0 {
				t.Errorf("%s names %s, which is not in the repository", name, m[1])
			}
		}
	}
	readme := pages["README.md"]
	if b, err := os.ReadFile("../LICENSE"); err != nil || !strings.HasPrefix(string(b), "MIT License\n") || !strings.Contains(readme, "MIT License") {
		t.Errorf("LICENSE (%v) is not the MIT License the README names", err)
	}
	if !strings.Contains(readme, "(docs/benchmarks.md)") || strings.Contains(readme, "| full save vs") || !strings.Contains(pages["docs/benchmarks.md"], "| full save vs") {
		t.Error("the benchmark figures belong in docs/benchmarks.md, linked from the README")
	}
	for _, s := range []string{tray.ReleaseURL, tray.HomebrewInstall} {
		if n := strings.Count(readme, s); n != 1 {
			t.Errorf("the README names %q %d times, want once", s, n)
		}
	}
	cask, err := os.ReadFile("../packaging/rambar.rb")
	if err != nil || !strings.Contains(string(cask), `url "`+tray.ReleaseURL+`/download/RAMBar.dmg"`) {
		t.Errorf("packaging/rambar.rb's url is not under %s (%v)", tray.ReleaseURL, err)
	}
}

// TestEnvironmentDocumented: every RAMBAR_ variable RAMBar reads is in the
// Environment table of docs/cli.md (those of a release build in
// packaging/README.md), and the table names no variable RAMBar does not read.
func TestEnvironmentDocumented(t *testing.T) {
	read := map[string]bool{}
	env := regexp.MustCompile(`RAMBAR_[A-Z_]*[A-Z]`)
	filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && d.Name() != "..") {
			if d != nil && d.IsDir() && p != ".." {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			b, _ := os.ReadFile(p)
			for _, v := range env.FindAllString(string(b), -1) {
				read[v] = true
			}
		}
		return nil
	})
	readme, _ := os.ReadFile("../docs/cli.md")
	_, table, _ := strings.Cut(string(readme), "\n## Environment\n")
	table, _, _ = strings.Cut(table, "\n## ")
	release, _ := os.ReadFile("../packaging/README.md")
	var missing []string
	for v := range read {
		if !strings.Contains(table, "`"+v+"`") && !strings.Contains(string(release), v) {
			missing = append(missing, v)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("RAMBar reads %v, which the Environment section of docs/cli.md does not document", missing)
	}
	for _, v := range env.FindAllString(table, -1) {
		if !read[v] && !strings.HasSuffix(v, "_NOTARY") {
			t.Errorf("docs/cli.md documents %s, which RAMBar does not read", v)
		}
	}
	if len(read) < 8 {
		t.Fatalf("found only %v: the scan is broken", read)
	}
}
