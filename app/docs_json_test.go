//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// jsonDocs runs every --json document once, on the in-memory engine (and a
// real tmpfs for bench), and returns them by command line as docs/json.md
// heads them ("rambar list --json").
func jsonDocs(t *testing.T) map[string]string {
	c := newContentsApp(t)
	mirrorDir := t.TempDir()
	os.WriteFile(filepath.Join(mirrorDir, "index.html"), []byte("<p>hi</p>"), 0o644)
	cfg := t.TempDir()
	docs := map[string]string{}
	run := func(head string, args ...string) {
		docs[head] = c.run(0, args...)
	}
	run("rambar create --json", "create", "Work", "2G", "--keep", "--save-every", "10m", "--json")
	c.run(0, "create", "Site", "1G", "--mirror", mirrorDir)
	put(t, filepath.Join(c.mem.Root, "Work"), "notes.txt", "one")
	run("rambar save --json", "save", "Work", "--json")
	run("rambar snapshots --json", "snapshots", "Work", "--json")
	run("rambar restore --json", "restore", "Work", "--force", "--json")
	run("rambar info --json", "info", "Work", "--json")
	c.run(0, "create", "Plain", "1G")
	put(t, filepath.Join(c.mem.Root, "Plain"), "notes.txt", "one")
	run("rambar keep --json", "keep", "Plain", "--json")
	run("rambar list --json", "list", "--json")
	put(t, mirrorDir, "new.html", "<p>new</p>")
	run("rambar refresh --json", "refresh", "Site", "--json")
	run("rambar reclaim --json", "reclaim", "Site", "--force", "--json")
	c.run(0, "preset", "add", "Scratch", "4G", "--auto-mount")
	c.run(0, "preset", "add", "Cache", "25%", "--fs", "hfs+", "--keep", "--save-every", "10m", "--snapshots", "3")
	run("rambar preset list --json", "preset", "list", "--json")
	run("rambar up --json", "up", "--json")
	run("rambar doctor --json", "doctor", "--json")
	c.a.Getenv = func(k string) string { return map[string]string{"XDG_CONFIG_HOME": cfg}[k] }
	c.run(0, "login", "on")
	run("rambar login status --json", "login", "status", "--json")

	ram := benchMountTmpfs(t, "64m")
	a, _, out, errOut := benchTestApp(t)
	if code := a.Main([]string{"bench", "--quick", "--runs", "1", "--rows", "fsync", "--json", ram}); code != exitOK {
		t.Fatalf("bench: exit %d: %s", code, errOut)
	}
	docs["rambar bench --json"] = out.String()
	t.Chdir(t.TempDir())
	a, _, out, errOut = benchTestApp(t)
	if code := a.Main([]string{"try", "--runs", "3", "--json", "--", "true"}); code != exitOK {
		t.Fatalf("try: exit %d: %s", code, errOut)
	}
	docs["rambar try --json"] = out.String()
	return docs
}

// docSection is one document in docs/json.md: its example and what the
// text says may be null or absent.
type docSection struct {
	example         string
	mayBeNull       map[string]bool
	sometimesAbsent map[string]bool
}

var (
	docHead   = regexp.MustCompile("(?m)^## `(rambar [a-z ]+ --json)`")
	docKeyRef = regexp.MustCompile("`([a-z0-9_.\\[\\]]+)`")
)

func readJSONDoc(t *testing.T) map[string]docSection {
	b, err := os.ReadFile("../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	heads := docHead.FindAllStringSubmatchIndex(text, -1)
	out := map[string]docSection{}
	for i, h := range heads {
		end := len(text)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		body := text[h[1]:end]
		s := docSection{mayBeNull: map[string]bool{}, sometimesAbsent: map[string]bool{}}
		if a := strings.Index(body, "```json\n"); a >= 0 {
			rest := body[a+len("```json\n"):]
			s.example = rest[:strings.Index(rest, "```")]
		}
		for _, para := range strings.Split(body, "\n\n") {
			var into map[string]bool
			switch {
			case strings.HasPrefix(para, "May be null:"):
				into = s.mayBeNull
			case strings.HasPrefix(para, "Present only when they apply:"):
				into = s.sometimesAbsent
			default:
				continue
			}
			for _, m := range docKeyRef.FindAllStringSubmatch(para, -1) {
				into[m[1]] = true
			}
		}
		out[text[h[2]:h[3]]] = s
	}
	return out
}

// jsonKeys walks a decoded document: every key path ("disks[].held_bytes")
// with the values seen there.
func jsonKeys(prefix string, v any, into map[string][]any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			into[p] = append(into[p], e)
			jsonKeys(p, e, into)
		}
	case []any:
		for _, e := range x {
			jsonKeys(prefix+"[]", e, into)
		}
	}
}

func decodeKeys(t *testing.T, what, doc string) map[string][]any {
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("%s: %v:\n%s", what, err, doc)
	}
	keys := map[string][]any{}
	jsonKeys("", v, keys)
	return keys
}

var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// TestJSONDocs: every --json document the command table offers is in
// docs/json.md with an example whose keys are the real ones; keys are
// snake_case, durations are float _seconds, null appears only where the doc
// says so and no value is an empty string.
func TestJSONDocs(t *testing.T) {
	docs := readJSONDoc(t)
	real := jsonDocs(t)
	for _, c := range everyCommand() {
		if head := "rambar " + c.path() + " --json"; c.JSON && docs[head].example == "" {
			t.Errorf("docs/json.md has no example for %s", head)
		}
	}
	for head, d := range docs {
		out, ok := real[head]
		if !ok {
			t.Errorf("docs/json.md documents %s, which the test does not run", head)
			continue
		}
		got, want := decodeKeys(t, head+" (real)", out), decodeKeys(t, head+" (docs/json.md)", d.example)
		var undocumented, missing []string
		for k, vals := range got {
			if _, ok := want[k]; !ok {
				undocumented = append(undocumented, k)
			}
			checkValues(t, head, k, vals, d)
		}
		for k, vals := range want {
			if _, ok := got[k]; !ok && !excused(k, got, d) {
				missing = append(missing, k)
			}
			checkValues(t, head+" (docs/json.md)", k, vals, d)
		}
		sort.Strings(undocumented)
		sort.Strings(missing)
		if len(undocumented)+len(missing) > 0 {
			t.Errorf("%s: keys not in docs/json.md: %q; documented but not printed: %q\n%s", head, undocumented, missing, out)
		}
	}
}

func checkValues(t *testing.T, head, key string, vals []any, d docSection) {
	t.Helper()
	last := key[strings.LastIndexAny(key, ".]")+1:]
	if !snakeKey.MatchString(last) || strings.HasSuffix(last, "_ns") || strings.HasSuffix(last, "_ms") {
		t.Errorf("%s: key %q is not snake_case, or not a duration in _seconds", head, key)
	}
	for _, v := range vals {
		switch x := v.(type) {
		case nil:
			if !d.mayBeNull[key] {
				t.Errorf("%s: %s is null, and docs/json.md does not say it may be", head, key)
			}
		case string:
			if x == "" {
				t.Errorf("%s: %s is an empty string (missing values are null or absent)", head, key)
			}
		}
		if strings.HasSuffix(last, "_seconds") && !isSeconds(v) {
			t.Errorf("%s: %s is not a number of seconds: %v", head, key, v)
		}
	}
}

// isSeconds: a number, a list of numbers, or null.
func isSeconds(v any) bool {
	switch x := v.(type) {
	case nil, float64:
		return true
	case []any:
		for _, e := range x {
			if _, ok := e.(float64); !ok {
				return false
			}
		}
		return true
	}
	return false
}

// excused: a documented key may be missing from the output when the doc
// says it is there only when it applies, or when it lives inside such a key
// or inside an array that is empty in the output.
func excused(k string, got map[string][]any, d docSection) bool {
	for p := k; p != ""; {
		if _, present := got[p]; !present && d.sometimesAbsent[p] {
			return true
		}
		if vals, present := got[p]; present && strings.HasPrefix(k, p+"[]") {
			for _, v := range vals {
				if a, ok := v.([]any); ok && len(a) == 0 {
					return true
				}
			}
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return false
}
