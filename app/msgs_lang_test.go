package main

import (
	"context"
	"rambar/i18n"
	"rambar/ramdisk"
	"strings"
	"testing"

	"golang.org/x/text/language"
)

// TestMessagesInTheUsersLanguage: the everyday verbs (create, save,
// snapshots, info, list, eject) say what they did in the user's language, counts
// by its plural rules; with no language set they say it in English.
func TestMessagesInTheUsersLanguage(t *testing.T) {
	for _, c := range []struct {
		lang string
		want []string
	}{
		{"de_DE.UTF-8", []string{"Work unter ", "Der Inhalt wird in ", "Work als ", ": 1 Datei (", "DATEIEN  GRÖSSE", "neueste, jetzt auf der Disk",
			"NAME  EINHÄNGEPUNKT", "Work ausgeworfen\n",
			"behalten (beim Auswerfen gesichert, beim Erstellen wiederhergestellt)\n", "Ungesicherte Änderungen:  nein\n",
			"wächst beim Schreiben  behalten\n", "Erstelle Work: 64 MiB tmpfs, wächst beim Schreiben\n",
			"  · belegt Speicher erst, wenn Dateien geschrieben werden, bis zu 64 MiB\n", "RAM-Disks belegen 1 B von 16 GiB Speicher"}},
		{"ja_JP.UTF-8", []string{"Work を ", "として保存しました: 1 個のファイル", "ファイル数  サイズ", "最新、現在ディスク上にある", "Work を取り出しました\n"}},
		{"", []string{"Created Work at ", "Contents are kept in ", "Saved Work as ", ": 1 file (", "FILES  SIZE", "latest, on the disk now",
			"NAME  MOUNT POINT", "Ejected Work\n",
			"kept (saved on eject, restored at create)\n", "Unsaved changes:  no\n"}},
	} {
		app := newContentsApp(t)
		lang := c.lang
		app.a.Getenv = func(k string) string { return map[string]string{"LANG": lang}[k] }
		var all strings.Builder
		all.WriteString(app.run(0, "create", "Work", "64M", "--keep"))
		vs, _ := app.mem.List(context.Background())
		put(t, vs[0].MountPoint, "a.txt", "a")
		for _, args := range [][]string{{"save", "Work"}, {"snapshots", "Work"}, {"info", "Work"}, {"list"}, {"eject", "Work"}} {
			all.WriteString(app.run(0, args...))
		}
		for _, w := range c.want {
			if !strings.Contains(all.String(), w) {
				t.Errorf("LANG=%s: the output lacks %q:\n%s", c.lang, w, all.String())
			}
		}
	}
}

// TestProgressInTheUsersLanguage: a progress line is one message per
// phase, its sizes and counts by the language; English is
// ramdisk.Progress.String as it was.
func TestProgressInTheUsersLanguage(t *testing.T) {
	p := ramdisk.Progress{Disk: "Work", Phase: "saving", BytesDone: int64(3 * ramdisk.GiB / 2), BytesTotal: int64(3 * ramdisk.GiB), FilesDone: 1, FilesTotal: 1}
	for _, c := range []struct {
		tag  language.Tag
		p    ramdisk.Progress
		want string
	}{
		{language.English, p, p.String()},
		{language.German, p, "Wird gesichert … 50 % (1,5 GiB von 3 GiB, 1 von 1 Datei)"},
		{language.Japanese, p, "保存中… 50%（1.5 GiB / 3 GiB、ファイル 1 / 1 個）"},
		{language.French, ramdisk.Progress{Phase: "restoring", BytesTotal: 2048, FilesDone: 1200, FilesTotal: 2400},
			"Restauration… 0 % (0 B sur 2 KiB, 1\u00a0200 fichiers sur 2\u00a0400)"},
		{language.German, ramdisk.Progress{Phase: "verifying", FilesTotal: 2}, ramdisk.Progress{Phase: "verifying", FilesTotal: 2}.String()},
	} {
		if got := progressText(speech{i18n.For(c.tag)}, c.p); got != c.want {
			t.Errorf("%s: %q, want %q", c.tag, got, c.want)
		}
	}
}
