package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/language"

	"rambar/cache"
	"rambar/changefeed"
	"rambar/i18n"
	"rambar/keeper"
	"rambar/ramdisk"
)

// TestCacheGainsAreInTheCatalog: what each known cache gains, on macOS
// and Linux, an app's cache folder's and a folder's of the user's, is a
// message of the catalog (cache list, cache on and the menu's tooltips
// say it in the user's language), as is each one's name.
func TestCacheGainsAreInTheCatalog(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".cache", "someapp"), 0o700)
	env := func(k string) string { return map[string]string{"HOME": home}[k] }
	ts := append(cache.KnownTargets("darwin", env), cache.KnownTargets("linux", env)...)
	ts = append(ts, cache.XDGTargets(env, nil)...)
	own, err := cache.ResolveTarget(filepath.Join(home, "build"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ts = append(ts, own)
	for _, tg := range ts {
		if _, ok := i18n.Lookup(language.German, tg.Gain); !ok {
			t.Errorf("%s: its gain %q is not in the catalog", tg.Key, tg.Gain)
		}
		if _, ok := i18n.Lookup(language.German, tg.Label); !ok && tg.Key != tg.Path {
			t.Errorf("%s: its name %q is not in the catalog", tg.Key, tg.Label)
		}
	}
	if got := (speech{i18n.For(language.German)}).Text(own.Gain); !strings.HasPrefix(got, "erst messen") {
		t.Errorf("German gain %q", got)
	}
}

// TestDomainWordsInTheUsersLanguage: the domain packages' words the CLI
// shows (a plan's forced note, a disk's notes and its maker, its volume
// options, snapshots' safety marks, the change feed) are said in the
// user's language, and in English exactly as they always read.
func TestDomainWordsInTheUsersLanguage(t *testing.T) {
	de, ja, en := speech{i18n.For(language.German)}, speech{i18n.For(language.Japanese)}, english()

	p, err := ramdisk.NewPlan(ramdisk.Request{Name: "Huge", Size: 20 * ramdisk.GiB, Force: true},
		ramdisk.Facts{Caps: ramdisk.Caps{OS: "linux", FileSystems: []ramdisk.FileSystem{ramdisk.TmpFS}, MountRoot: "/mnt"},
			Memory: ramdisk.Memory{Physical: 16 * ramdisk.GiB}})
	if err != nil {
		t.Fatal(err)
	}
	forced := p.Notes[len(p.Notes)-1]
	if got := noteText(en, forced); got != "Warning: "+forced.Text || !strings.HasPrefix(forced.Text, "forced: 20 GiB would let RAM disks grow") {
		t.Errorf("English forced note %q", got)
	}
	if got := noteText(de, forced); !strings.HasPrefix(got, "Warnung: erzwungen: 20 GiB würde RAM-Disks") || !strings.Contains(got, "OOM-Killer") {
		t.Errorf("German forced note %q", got)
	}

	whose := ramdisk.OtherUserWhose("ada")
	if got := en.said(whose); got != whose.Text {
		t.Errorf("English whose %q", got)
	}
	if got := ja.said(whose); !strings.HasPrefix(got, "は別のユーザー ada のものです") {
		t.Errorf("Japanese whose %q", got)
	}
	safety := (&keeper.SafetyNote{Snapshot: "20261206T100000Z", Safety: keeper.Safety{Kind: keeper.SafetyUnwritten, Count: 1, Paths: []string{"draft.md"}}}).
		Describe("Site", "/f")
	warn := ramdisk.Warn(safety)
	if got := en.said(warn); got != "warning: Site's snapshot 20261206T100000Z holds 1 path that /f lacks (draft.md), written on the disk and never written back: "+
		"it is kept, never pruned, until 'rambar restore Site --snapshot 20261206T100000Z --force' brings it back (its next save writes them into the folder) or 'rambar forget Site'" {
		t.Errorf("English warning note %q", got)
	}
	if got := de.said(warn); !strings.HasPrefix(got, "Warnung: Der Schnappschuss 20261206T100000Z von Site enthält 1 Pfad, der in /f fehlt (draft.md)") {
		t.Errorf("German warning note %q", got)
	}
	if got := de.said(ramdisk.Plain("mdutil -i off /x: exit 1")); got != "mdutil -i off /x: exit 1" {
		t.Errorf("a plain note in German %q", got)
	}

	o := ramdisk.VolumeOptions{NoExec: true, Folders: []string{"a", "b/c"}, MountPoint: "/x", Icon: "/i/disk.png", Spotlight: true}
	if got := optionsPhrase(en, o); got != o.Phrase() {
		t.Errorf("English options %q, want %q", got, o.Phrase())
	}
	if got := optionsPhrase(de, o); got != "noexec, Ordner a, b/c, unter /x, Symbol disk.png, Spotlight an" {
		t.Errorf("German options %q", got)
	}
	if got := optionsPhrase(ja, o); got != "noexec、フォルダ a, b/c、/x にマウント、アイコン disk.png、Spotlight オン" {
		t.Errorf("Japanese options %q", got)
	}

	for _, c := range []struct {
		l      keeper.Safety
		en, de string
	}{
		{keeper.Safety{Kind: keeper.SafetyUnwritten}, "safety: never written to its folder (kept until restored or forgotten)",
			"Sicherheit: nie in seinen Ordner geschrieben (behalten, bis wiederhergestellt oder vergessen)"},
		{keeper.Safety{Kind: keeper.SafetyUnwritten, Count: 1}, "safety: 1 path not in the folder (kept until restored or forgotten)",
			"Sicherheit: 1 Pfad nicht im Ordner (behalten, bis wiederhergestellt oder vergessen)"},
		{keeper.Safety{Kind: keeper.SafetyRestore, Of: "20261206T100000Z", Count: 3}, "safety: saved before restore of 20261206T100000Z (3 paths unsaved; pruned last)",
			"Sicherheit: vor der Wiederherstellung von 20261206T100000Z gesichert (3 Pfade ungesichert; zuletzt gelöscht)"},
		{keeper.Safety{Kind: keeper.SafetyRestore, Count: 1}, "safety: saved before restore (1 path unsaved; pruned last)",
			"Sicherheit: vor der Wiederherstellung gesichert (1 Pfad ungesichert; zuletzt gelöscht)"},
	} {
		if got := safetyMark(en, &c.l); got != c.en {
			t.Errorf("English mark %q, want %q", got, c.en)
		}
		if got := safetyMark(de, &c.l); got != c.de {
			t.Errorf("German mark %q, want %q", got, c.de)
		}
	}

	st := changefeed.Status{Kind: changefeed.KindInotify, Watches: 1, Budget: 24067, Unwatched: 2, Why: "a fanotify filesystem mark needs root or CAP_SYS_ADMIN",
		Mode: "fsevents", Lost: "the feed just started"}
	if got, want := feedPhrase(en, st), "inotify: 1 watch (all disks together hold at most 24067, one eighth of the user's fs.inotify.max_user_watches)"+
		"; 2 folders past that, read again by every save (every few seconds); not fanotify: a fanotify filesystem mark needs root or CAP_SYS_ADMIN"+
		" (test mode: fsevents); lost: the feed just started (the next save walks the whole disk)"; got != want {
		t.Errorf("English feed %q, want %q", got, want)
	}
	if got := feedPhrase(de, st); !strings.HasPrefix(got, "inotify: 1 Watch (alle Disks zusammen halten höchstens 24.067,") ||
		!strings.Contains(got, "; 2 Ordner darüber hinaus, die jede Sicherung erneut liest") || !strings.Contains(got, " (Testmodus: fsevents); verloren: ") {
		t.Errorf("German feed %q", got)
	}
	if got := feedPhrase(ja, changefeed.Status{Kind: changefeed.KindFSEvents, Lost: "x"}); got != "FSEvents: ボリュームに 1 本のストリーム、フォルダごとのウォッチなし；取りこぼし: x（次の保存でディスク全体を走査します）" {
		t.Errorf("Japanese feed %q", got)
	}
	if got := savingWords(en, keeper.State{Snapshots: 1}); got != keeper.SavingWords(keeper.State{Snapshots: 1}) {
		t.Errorf("English saving words %q", got)
	}
}
