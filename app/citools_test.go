package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// baseTools are programs every Debian system has (coreutils, util-linux,
// bash, mount, tar...) or that the Go toolchain brings: tests may start
// them without listing them in .ci/tools.
var baseTools = map[string]bool{
	"bash": true, "sh": true, "sleep": true, "true": true, "false": true, "cp": true, "mv": true,
	"rm": true, "cat": true, "tar": true, "mount": true, "umount": true, "unshare": true,
	"timeout": true, "mkdir": true, "touch": true, "seq": true, "xargs": true, "awk": true,
	"grep": true, "sed": true, "id": true, "date": true, "env": true, "kill": true, "wait": true,
	"realpath": true, "dirname": true, "mktemp": true, "getconf": true, "echo": true, "exec": true,
	"printf": true, "ln": true, "chmod": true, "chown": true, "stat": true, "dd": true, "sync": true,
	"head": true, "tail": true, "sort": true, "go": true, "chattr": true, "lsattr": true, "findmnt": true,
	"losetup": true, "blkid": true, "test": true, "find": true, "install": true, "nproc": true,
}

// Patterns that name the program a Go file starts: exec.Command("x", ...),
// exec.CommandContext(ctx, "x", ...), exec.LookPath("x"), and argv lists
// for the runner (run.Cmd{Argv: []string{"x", ...}}).
var goToolPatterns = []*regexp.Regexp{
	regexp.MustCompile(`exec\.Command\("([A-Za-z0-9_.+-]+)"`),
	regexp.MustCompile(`exec\.CommandContext\([A-Za-z.()]+, "([A-Za-z0-9_.+-]+)"`),
	regexp.MustCompile(`exec\.LookPath\("([A-Za-z0-9_.+-]+)"\)`),
	regexp.MustCompile(`Argv: \[\]string\{"([A-Za-z0-9_.+-]+)"`),
}

// scriptCommand finds a word in command position in a shell line: at its
// start, or after a pipe, && or ||, ;, $( or the words exec, timeout N, --.
var scriptCommand = regexp.MustCompile(`(?:^|[|;&]\s*|\$\(\s*|\bexec\s+|\btimeout\s+\S+\s+|\s--\s+)([A-Za-z][A-Za-z0-9_.+-]*)`)

// scriptFunc finds a function a script defines: name() {.
var scriptFunc = regexp.MustCompile(`(?m)^\s*([A-Za-z_][A-Za-z0-9_]*)\(\)`)

// TestCIToolsListed keeps .ci/tools (what `make test` installs on a fresh
// machine) in step with what the tests start: every program named by a
// Linux Go file's exec or argv, or in command position in a test script,
// must be listed there or be a base tool. A tool a test needs that no list
// names is how a fresh clone once failed (setfacl, from acl).
func TestCIToolsListed(t *testing.T) {
	listed := readCITools(t, "../.ci/tools")
	used := map[string]string{}
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "bin", "dist", "darwin", "packaging":
				return filepath.SkipDir // macOS tools, release tools: not run by the tests here
			}
			return nil
		}
		name := d.Name()
		switch {
		case strings.HasSuffix(name, "_test.go") && !strings.HasSuffix(name, "_darwin_test.go"),
			strings.HasSuffix(name, ".go") && strings.HasPrefix(filepath.ToSlash(path), "../linux/"),
			strings.HasSuffix(name, ".go") && strings.HasPrefix(filepath.ToSlash(path), "../internal/test"): // the tests' own helpers
			for _, tool := range goTools(t, path) {
				used[tool] = path
			}
		case strings.HasSuffix(name, ".sh") && strings.Contains(path, "testdata"):
			for _, tool := range scriptTools(t, path) {
				used[tool] = path
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, must := range []string{"setfacl", "dbus-daemon", "zenity"} {
		if used[must] == "" {
			t.Errorf("the scan did not find %s, which the tests are known to start: the patterns are out of date", must)
		}
	}
	var missing []string
	for tool, where := range used {
		if !listed[tool] && !baseTools[tool] && !isRAMBarWord(tool) {
			missing = append(missing, tool+" (in "+where+")")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("a test starts %s, which .ci/tools does not list: add it with its Debian package", m)
	}
}

// isRAMBarWord is true for the words a test names but never starts from
// the system: rambar itself and programs the tests build, fakes the tests
// put on PATH (pkexec), macOS tools run only through the fake Mac, names
// that must not exist, and shell words.
func isRAMBarWord(w string) bool {
	switch w {
	case "rambar", "mapsleep", "BIN", "bin", "pkexec", "diskutil", "hdiutil", "x", "rambar-no-such-tool",
		"coproc", "do", "done", "for", "if", "then", "fi", "while", "exit", "export", "set", "trap", "unset", "local", "pwd", "cd", "read", "shift", "return":
		return true
	}
	return false
}

func readCITools(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	listed := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) != 2 {
			t.Fatalf("%s: %q: want a program and its Debian package", path, sc.Text())
		}
		listed[fields[0]] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return listed
}

func goTools(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, re := range goToolPatterns {
		for _, m := range re.FindAllSubmatch(b, -1) {
			tools = append(tools, string(m[1]))
		}
	}
	return tools
}

func scriptTools(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	own := map[string]bool{} // the script's own functions
	for _, m := range scriptFunc.FindAllStringSubmatch(string(b), -1) {
		own[m[1]] = true
	}
	var tools []string
	inAwk := false // an awk program in single quotes: its words are not commands
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if inAwk {
			inAwk = !strings.Contains(line, "'")
			continue
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.Index(line, "awk "); i >= 0 && strings.Count(line[i:], "'")%2 == 1 {
			inAwk = true
			line = line[:i] + "awk"
		}
		for _, m := range scriptCommand.FindAllStringSubmatchIndex(line, -1) {
			if end := m[3]; end < len(line) && (line[end] == '=' || line[end] == '(') {
				continue // an assignment or a function of the script's own
			}
			if w := line[m[2]:m[3]]; !own[w] {
				tools = append(tools, w)
			}
		}
	}
	return tools
}

// TestCIRunInstallsTheTools: .ci/run's apt-get line installs every package
// .ci/tools names (a fresh CI machine gets them before `make test`), and
// nothing .ci/tools does not name.
func TestCIRunInstallsTheTools(t *testing.T) {
	b, err := os.ReadFile("../.ci/tools")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && !strings.HasPrefix(f[0], "#") {
			want[f[1]] = true
		}
	}
	run, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`apt-get install -y -qq --no-install-recommends ([^\n]+)`).FindSubmatch(run)
	if m == nil {
		t.Fatal(".ci/run has no apt-get install line")
	}
	got := map[string]bool{}
	for _, p := range strings.Fields(string(m[1])) {
		got[p] = true
		if !want[p] {
			t.Errorf(".ci/run installs %s, which .ci/tools does not name", p)
		}
	}
	for p := range want {
		if !got[p] {
			t.Errorf(".ci/run does not install %s, which .ci/tools names", p)
		}
	}
}
