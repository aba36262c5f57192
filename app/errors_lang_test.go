package main

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/text/language"

	"rambar/i18n"
	"rambar/ramdisk"
)

// TestErrorSentencesInTheUsersLanguage: the sentences RAMBar words itself
// are said whole in the user's language (the class, the reason, the
// advice), the words of a wrapped error that is not ours (none here) and
// the arguments as they are; in English each line is what it was, byte for
// byte, and the exit code is the same in every language.
func TestErrorSentencesInTheUsersLanguage(t *testing.T) {
	eng, home := helpEngine(t), t.TempDir()
	if _, errOut, code := cliRunLang(t, eng, home, "", "create", "Work", "64M", "--keep"); code != exitOK {
		t.Fatalf("create Work: exit %d, %s", code, errOut)
	}
	for _, c := range []struct {
		args    []string
		code    int
		english string // the whole line, as it was
		german  string
	}{
		{[]string{"create", ".hidden", "1G"}, exitUsage,
			`rambar: invalid name ".hidden": may not start with '.'`,
			`rambar: ungültiger Name ".hidden": darf nicht mit '.' beginnen`},
		{[]string{"create", "X", "9Q"}, exitUsage,
			`rambar: invalid size "9Q": unknown unit "Q"; use a number with a unit like 512M, 4G, 1.5GiB, 4096MiB, or a percentage of memory like 25%`,
			`rambar: ungültige Größe "9Q": unbekannte Einheit "Q"; geben Sie eine Zahl mit Einheit an wie 512M, 4G, 1.5GiB, 4096MiB oder einen Anteil am Speicher wie 25%`},
		{[]string{"create", "X", "20000T"}, exitUsage,
			`rambar: invalid size "20000T": larger than any machine's memory (limit 64 TiB)`,
			`rambar: ungültige Größe "20000T": größer als der Speicher jedes Rechners (Grenze 64 TiB)`},
		{[]string{"create", "X", "15G"}, exitRefused,
			"rambar: too large for this machine's memory: 15 GiB would let RAM disks grow to 15.1 GiB of memory " +
				"(the disks mounted now can fill up to 64 MiB), more than physical memory (16 GiB) minus 2 GiB for the system; " +
				"use --force to make it anyway",
			"rambar: zu groß für den Speicher dieses Rechners: mit 15 GiB könnten RAM-Disks auf 15.1 GiB Speicher anwachsen " +
				"(die jetzt eingehängten Disks können bis zu 64 MiB füllen), mehr als der physische Speicher (16 GiB) " +
				"abzüglich 2 GiB für das System; mit --force wird sie trotzdem angelegt"},
		{[]string{"create", "Work", "64M"}, exitExists,
			`rambar: a disk with that name is already mounted: "Work" at `,
			`rambar: eine Disk dieses Namens ist bereits eingehängt: "Work" unter `},
		{[]string{"eject", "Nope", "--direct"}, exitNotFound,
			`rambar: "Nope": no such RAM disk (mounted: Work)`,
			`rambar: "Nope": keine solche RAM-Disk (eingehängt: Work)`},
		{[]string{"restore", "Work", "--snapshot", "nope", "--direct"}, exitNotFound,
			`rambar: --snapshot "nope": no such snapshot: Work has not been saved yet`,
			`rambar: --snapshot "nope": diesen Schnappschuss gibt es nicht: Work wurde noch nicht gesichert`},
	} {
		for _, lang := range []struct{ env, want string }{{"", c.english}, {"de_DE.UTF-8", c.german}} {
			_, errOut, code := cliRunLang(t, eng, home, lang.env, c.args...)
			if code != c.code || !strings.HasPrefix(errOut, lang.want) {
				t.Errorf("LANG=%s rambar %s: exit %d, stderr\n %q\nwant exit %d,\n %q…", lang.env, strings.Join(c.args, " "),
					code, errOut, c.code, lang.want)
			}
		}
	}
	_, errOut, _ := cliRunLang(t, eng, home, "ja_JP.UTF-8", "create", ".hidden", "1G")
	if want := "rambar: 無効な名前 \".hidden\": '.' で始めることはできません\n"; errOut != want {
		t.Errorf("in Japanese: %q, want %q", errOut, want)
	}
}

// TestErrorLeadWithoutASentence: an error whose chain holds no sentence of
// ours is led, in another language, by the sentence of its class; in
// English it is its text.
func TestErrorLeadWithoutASentence(t *testing.T) {
	err := fmt.Errorf("mount /x: %w", ramdisk.ErrMountPointTaken)
	for _, c := range []struct {
		tag  language.Tag
		want string
	}{
		{language.English, "rambar: mount /x: its mount point cannot be used"},
		{language.German, "rambar: Fehler: Der Einhängepunkt kann nicht benutzt werden: mount /x: its mount point cannot be used"},
	} {
		if got := sayError(speech{i18n.For(c.tag)}, err); got != c.want {
			t.Errorf("%s: %q, want %q", c.tag, got, c.want)
		}
	}
}
