package main

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rambar/ramdisk"
	"rambar/tray"
	upd "rambar/update"
)

// updateCLI runs rambar update against an httptest TLS server serving an
// appcast of RAMBar 9.0.0 signed with the update package's test key.
func updateCLI(t *testing.T, feedKey string, args ...string) (stdout, stderr string, code int, downloads string) {
	t.Helper()
	seed, err := os.ReadFile("../update/testdata/test-key")
	if err != nil {
		t.Fatal(err)
	}
	key, _ := upd.ParsePrivateKey(string(seed))
	signer := key
	if feedKey != "" {
		b, _ := os.ReadFile("../update/testdata/" + feedKey)
		signer, _ = upd.ParsePrivateKey(string(b))
	}
	dmg := bytes.Repeat([]byte("dmg!"), 5000)
	var srv *httptest.Server
	srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/RAMBar.dmg" {
			w.Write(dmg)
			return
		}
		rel := upd.Release{Version: "9.0.0", Build: "900", Notes: "Speaks your language.\nChecks for updates.", URL: srv.URL + "/RAMBar.dmg",
			Length: int64(len(dmg)), Signature: ed25519.Sign(key, dmg)}
		w.Write(upd.SignFeed(upd.WriteAppcast("RAMBar", []upd.Release{rel}), signer))
	}))
	t.Cleanup(srv.Close)
	downloads = t.TempDir()
	var out, errb bytes.Buffer
	opened := ""
	home := t.TempDir()
	a := &App{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""),
		NewEngine: func() (ramdisk.Engine, error) { return nil, errors.New("no engine") },
		Paths:     ramdisk.Paths{Settings: filepath.Join(home, "settings.plist"), Data: filepath.Join(home, "data")},
		Getenv:    func(string) string { return "" }, Now: time.Now,
		NewUpdates: func() *upd.Service {
			return &upd.Service{Current: "1.0.0", Feed: srv.URL + "/appcast.xml", Key: key.Public().(ed25519.PublicKey), Client: srv.Client(),
				Timeout: 5 * time.Second, Install: upd.Install{Kind: upd.AppBundle, Where: "/Applications/RAMBar.app"}, Downloads: downloads,
				Open: func(p string) error { opened = p; return nil }}
		}}
	code = a.Main(args)
	if opened != "" {
		out.WriteString("opened " + filepath.Base(opened) + "\n")
	}
	return out.String(), errb.String(), code, downloads
}

func TestUpdateCheckOffersANewerRelease(t *testing.T) {
	out, errs, code, dl := updateCLI(t, "", "update", "--check")
	if code != 0 || !strings.Contains(out, "RAMBar 9.0.0 is available (this copy is 1.0.0).") || !strings.Contains(out, "  Speaks your language.") || strings.Contains(out, "opened") {
		t.Fatalf("code %d\n%s%s", code, out, errs)
	}
	if ents, _ := os.ReadDir(dl); len(ents) != 0 {
		t.Errorf("--check downloaded %d files", len(ents))
	}
	out, errs, code, dl = updateCLI(t, "", "update")
	if code != 0 || !strings.Contains(out, "opened RAMBar-9.0.0.dmg") || !strings.Contains(out, "drag RAMBar") {
		t.Fatalf("code %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dl, "RAMBar-9.0.0.dmg")); err != nil {
		t.Error(err)
	}
}

func TestUpdateRefusesAnotherKeysAppcastInOneLine(t *testing.T) {
	out, errs, code, dl := updateCLI(t, "other-key", "update")
	if code == 0 || out != "" || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "signature does not match RAMBar's update key") {
		t.Fatalf("code %d\nstdout %q\nstderr %q", code, out, errs)
	}
	if ents, _ := os.ReadDir(dl); len(ents) != 0 {
		t.Errorf("left %d files in Downloads", len(ents))
	}
}

func TestUpdateCheckOnLinuxSaysHowThisCopyWasInstalled(t *testing.T) {
	var out bytes.Buffer
	a := &App{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }, Now: time.Now}
	if code := a.Main([]string{"update", "--check"}); code != 0 {
		t.Fatalf("code %d: %s", code, out.String())
	}
	if !strings.Contains(out.String(), "This RAMBar ") || !strings.Contains(out.String(), "Update it") {
		t.Errorf("%q", out.String())
	}
}

func TestFeedIsAnAssetOfTheLatestRelease(t *testing.T) {
	if !strings.HasPrefix(upd.FeedURL, tray.ReleaseURL+"/download/") {
		t.Errorf("update.FeedURL %s is not under %s", upd.FeedURL, tray.ReleaseURL)
	}
}
