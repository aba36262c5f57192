package mirrorfolder

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestClaimFileName: a claim's file is named after the folder's real path,
// device and inode as it always was (the claims of a running RAMBar of
// another version are found).
func TestClaimFileName(t *testing.T) {
	// sha256("/srv/site\x0042\x007"), its first 12 bytes.
	if got := claimFile("/srv/site", 42, 7); got != "436d551b8d681c3de147e9f1.json" {
		t.Errorf("claimFile: %s", got)
	}
}

// TestClaimsOneDiskPerFolder: a folder a live disk claims, or one inside
// or around it, is refused to every other disk, naming the holder; the
// holder itself passes; a claim whose disk is not live is taken over;
// Release drops a disk's claims. The file holds the same JSON as ever.
func TestClaimsOneDiskPerFolder(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir()) // macOS: /var is a symlink
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(base, "site")
	os.MkdirAll(filepath.Join(folder, "sub"), 0o755)
	live := map[string]bool{"Site": true}
	cs := Claims{Dir: filepath.Join(base, "data", "claims"), Live: func(c Claim) bool { return live[c.Disk] }}
	if err := cs.Take(Claim{Disk: "Site", DiskID: "id-1", MountPoint: "/mnt/Site", Folder: folder + "/"}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(cs.Dir, "*.json"))
	var st unix.Stat_t
	if err := unix.Stat(folder, &st); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cs.Dir, claimFile(folder, uint64(st.Dev), uint64(st.Ino))); !slices.Equal(files, []string{want}) {
		t.Fatalf("claims %v, want %s", files, want)
	}
	b, _ := os.ReadFile(files[0])
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["disk"] != "Site" || m["disk_id"] != "id-1" || m["mount_point"] != "/mnt/Site" || m["folder"] != folder ||
		m["dev"] != float64(st.Dev) || m["ino"] != float64(st.Ino) || len(m) != 6 {
		t.Errorf("claim file %s", b)
	}
	for _, p := range []string{folder, filepath.Join(folder, "sub"), base} {
		err := cs.Check("Other", p)
		if !errors.Is(err, ErrClaimed) || !strings.Contains(err.Error(), "disk Site (mounted at /mnt/Site, mirroring "+folder+")") {
			t.Errorf("%s: %v", p, err)
		}
		if err := cs.Take(Claim{Disk: "Other", Folder: p}); !errors.Is(err, ErrClaimed) {
			t.Errorf("take %s: %v", p, err)
		}
	}
	if err := cs.Check("Site", folder); err != nil {
		t.Errorf("the holder itself: %v", err)
	}
	if err := cs.Check("Other", filepath.Join(base, "elsewhere")); err != nil {
		t.Errorf("a folder beside it: %v", err)
	}
	// Its disk gone, the claim is stale: taken over.
	live["Site"] = false
	if err := cs.Take(Claim{Disk: "Other", DiskID: "id-2", MountPoint: "/mnt/Other", Folder: folder}); err != nil {
		t.Fatal(err)
	}
	live["Other"] = true
	if err := cs.Check("Site", folder); !errors.Is(err, ErrClaimed) || !strings.Contains(err.Error(), "disk Other") {
		t.Errorf("after the takeover: %v", err)
	}
	if err := cs.Release("Other"); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(cs.Dir, "*.json")); len(files) != 0 {
		t.Errorf("after Release: %v", files)
	}
}

// TestFoldersOverlap: the same folder, or one inside the other, once
// cleaned; a sibling sharing a prefix is not inside.
func TestFoldersOverlap(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"/srv/site", "/srv/site/", true},
		{"/srv/site", "/srv/site/sub", true},
		{"/srv/site/sub/..", "/srv", true},
		{"/srv/site", "/srv/site2", false},
		{"/srv/a", "/srv/b", false},
	}
	for _, c := range cases {
		if got := FoldersOverlap(c.a, c.b); got != c.want {
			t.Errorf("%s, %s: %v", c.a, c.b, got)
		}
	}
}
