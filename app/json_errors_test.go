package main

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"rambar/ramdisk"
	"rambar/ramdisk/ramdisktest"
)

// TestJSONErrors: a command given --json that fails prints its error as a
// JSON document on stdout (docs/json.md, "Errors"), with the exit code it
// returns, as well as its line on stderr; one that fails without --json
// prints nothing on stdout, and a command whose own document lists the
// failure prints only that document.
func TestJSONErrors(t *testing.T) {
	root := t.TempDir()
	eng := ramdisktest.NewMem(root, ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: 9 * ramdisk.GiB})
	if _, errOut, code := cliRun(t, eng, root, "create", "Scratch", "1G"); code != exitOK {
		t.Fatal(errOut)
	}
	want := docErrorKeys(t)
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"info", "Nope", "--json"}, exitNotFound, `"Nope"`},
		{[]string{"info", "--json", "--bogus"}, exitUsage, "unknown flag --bogus"},
		{[]string{"create", "Bad/Name", "1G", "--json"}, exitUsage, "may not contain '/'"},
		{[]string{"create", "Big", "64G", "--json"}, exitRefused, "memory"},
		{[]string{"snapshots", "Scratch", "--json"}, exitNotFound, "no saved contents"},
		{[]string{"save", "Scratch", "--json"}, exitUsage, "not kept"},
		{[]string{"reclaim", "Scratch", "--json"}, exitRefused, ""},
		{[]string{"preset", "list", "--json=true", "extra"}, exitUsage, "unexpected"},
	} {
		out, errOut, code := cliRun(t, eng, root, c.args...)
		name := strings.Join(c.args, " ")
		if code != c.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", name, code, c.code, errOut)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Errorf("%s: stdout is not one JSON document: %v\n%s", name, err, out)
			continue
		}
		if keys := sortedKeysOf(doc); !reflect.DeepEqual(keys, want) {
			t.Errorf("%s: keys %v, docs/json.md's example has %v", name, keys, want)
		}
		msg, _ := doc["error"].(string)
		if doc["version"] != float64(jsonVersion) || doc["exit"] != float64(code) || !strings.Contains(msg, c.says) {
			t.Errorf("%s: document %v, want version %d, exit %d and an error saying %q", name, doc, jsonVersion, code, c.says)
		}
		if line := strings.TrimSpace(errOut); line != "rambar: "+msg {
			t.Errorf("%s: stderr %q, want the same words as the document's %q", name, line, msg)
		}
	}
	if out, _, code := cliRun(t, eng, root, "info", "Nope"); code != exitNotFound || out != "" {
		t.Errorf("without --json: exit %d, stdout %q; want 4 and nothing on stdout", code, out)
	}
	if out, _, code := cliRun(t, eng, root, "info", "Nope", "--", "--json"); code == exitOK || strings.Contains(out, "{") {
		t.Errorf("--json after --: exit %d, stdout %q; want no document", code, out)
	}
}

// docErrorKeys are the keys of docs/json.md's error example.
func docErrorKeys(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Errors\n")
	if !ok {
		t.Fatal(`docs/json.md has no "## Errors" section`)
	}
	_, ex, _ := strings.Cut(sec, "```json\n")
	ex, _, _ = strings.Cut(ex, "```")
	var doc map[string]any
	if err := json.Unmarshal([]byte(ex), &doc); err != nil {
		t.Fatalf("docs/json.md's error example: %v", err)
	}
	return sortedKeysOf(doc)
}

func sortedKeysOf(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
