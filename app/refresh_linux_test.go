//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIRefresh: info and info --json count the changes kept in a
// Mirror disk's folder ("kept in the folder", with the command that
// takes them); `rambar refresh` brings them onto the disk (real tmpfs,
// the real use case under the disk's lock) and the count clears; the
// save after writes nothing back. A disk that is not a Mirror disk is
// refused with exit 2, an unknown one with exit 4.
func TestCLIRefresh(t *testing.T) {
	c := newCLI(t)
	folder := t.TempDir()
	put(t, folder, "index.html", "<p>one</p>")
	put(t, folder, "css/site.css", "body{}")
	if _, errOut, code := c.run("create", "Site", "32M", "--mirror", folder); code != 0 {
		t.Fatalf("create --mirror: %s", errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "--no-save", "Site") })
	mp := filepath.Join(c.root, "Site")
	kept := func() (int, string) {
		t.Helper()
		out, errOut, code := c.run("info", "Site", "--json")
		var doc struct {
			Contents struct {
				KeptInFolder *int `json:"kept_in_folder"`
			} `json:"contents"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Contents.KeptInFolder == nil {
			t.Fatalf("info --json: exit %d\n%s%s", code, out, errOut)
		}
		text, _, _ := c.run("info", "Site")
		return *doc.Contents.KeptInFolder, text
	}
	if n, text := kept(); n != 0 || !strings.Contains(text, "Folder:") || !strings.Contains(text, "no changes kept in the folder") {
		t.Errorf("a fresh Mirror disk: %d kept in the folder\n%s", n, text)
	}
	put(t, folder, "index.html", "<p>two</p>")
	put(t, folder, "about.html", "<p>about</p>")
	os.Remove(filepath.Join(folder, "css/site.css"))
	n, text := kept()
	if n != 3 || !strings.Contains(text, "3 changes kept in the folder, not on the disk ('rambar refresh Site' takes them)") {
		t.Errorf("after 3 changes in the folder: %d\n%s", n, text)
	}
	out, errOut, code := c.run("refresh", "Site")
	if code != 0 || !strings.Contains(out, "Took 3 changes from "+folder+" onto Site (2 added or changed, 1 removed) in ") || strings.Contains(out, " in 0 s") {
		t.Fatalf("refresh: exit %d\n%s%s", code, out, errOut)
	}
	sameTrees(t, "the disk after the refresh", treeOf(t, mp), treeOf(t, folder))
	if n, text := kept(); n != 0 {
		t.Errorf("after the refresh: %d kept in the folder\n%s", n, text)
	}
	out, errOut, code = c.run("refresh", "Site", "--json")
	var doc struct {
		Taken, Removed int
		SavedAfter     *json.RawMessage `json:"saved_after"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.Taken+doc.Removed != 0 || doc.SavedAfter != nil {
		t.Errorf("a second refresh --json: exit %d\n%s%s", code, out, errOut)
	}
	put(t, mp, "index.html", "<p>three, on the disk</p>")
	if out, errOut, code := c.run("save", "Site"); code != 0 || strings.Contains(out, "conflict") {
		t.Errorf("the save after: exit %d\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(folder, "index.html")); string(b) != "<p>three, on the disk</p>" {
		t.Errorf("the folder's index.html after the save: %q", b)
	}
	if _, errOut, code := c.run("create", "Kept", "32M", "--keep"); code != 0 {
		t.Fatalf("create --keep: %s", errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "--no-save", "Kept") })
	if _, errOut, code := c.run("refresh", "Kept"); code != exitUsage || !strings.Contains(errOut, "not a Mirror disk") {
		t.Errorf("refresh of a kept disk: exit %d, %s", code, errOut)
	}
	if _, _, code := c.run("refresh", "Nope"); code != exitNotFound {
		t.Errorf("refresh of an unknown disk: exit %d", code)
	}
}
