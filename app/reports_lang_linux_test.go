package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"rambar/bench"
	"rambar/disks"
)

// langApp is an App that speaks lang ("" for English), its output kept.
func langApp(lang string) (*App, *bytes.Buffer) {
	var out bytes.Buffer
	return &App{Stdout: &out, Stderr: &out, Getenv: func(k string) string { return map[string]string{"LANG": lang}[k] }}, &out
}

// TestDoctorDesktopAndLeftoversInTheUsersLanguage: doctor's desktop rows
// (each piece, what was found, what breaks without it) and its leftovers'
// advice come whole in the user's language; in English as they were.
func TestDoctorDesktopAndLeftoversInTheUsersLanguage(t *testing.T) {
	found := newDesktopCheck(msg("session bus"), msg("the menu-bar app: 'rambar' with no command cannot start (the CLI works without it)"))
	found.find(true, msg("%s", "unix:path=/run/user/1000/bus"))
	missing := newDesktopCheck(msg("%s", "zenity"), msg("the menu's windows: Custom… and Edit Presets… are hidden, results come as notifications only, and Quit leaves the disks mounted without asking (Debian and Ubuntu: apt install zenity)"))
	missing.find(false, msg("none: %v", errors.New("no bus")))
	checks := []desktopCheck{found, missing, adminCheck()}
	left := []disks.Leftover{disks.Leftover{Kind: disks.LeftTryLog, Path: "/tmp/.rambar-try-1-2.log"}.
		Advised("the log of a 'rambar try' that was stopped; the next try removes it"),
		{Kind: "old", Path: "/x", Advice: "as it was read back"}}
	for _, c := range []struct {
		lang string
		want []string
	}{
		{"", []string{"Desktop:\n", "  ok       session bus: unix:path=/run/user/1000/bus\n", "  MISSING  zenity: none: no bus\n",
			"           without it: the menu's windows: Custom… and Edit Presets… are hidden",
			"  /tmp/.rambar-try-1-2.log (try-log): the log of a 'rambar try' that was stopped; the next try removes it\n",
			"  /x (old): as it was read back\n"}},
		{"de_DE.UTF-8", []string{"  ok     Sitzungsbus: unix:path=/run/user/1000/bus\n", "  FEHLT  zenity: keiner: no bus\n",
			"         ohne dies: die Fenster des Menüs: Eigene … und Vorlagen bearbeiten … sind ausgeblendet",
			"  Administratorrechte: ", "Von einem unterbrochenen RAMBar zurückgelassen:\n",
			"  /tmp/.rambar-try-1-2.log (try-log): das Protokoll eines unterbrochenen 'rambar try'; der nächste try entfernt es\n",
			"  /x (old): as it was read back\n"}},
		{"fr_FR.UTF-8", []string{"bus de session : unix:path=/run/user/1000/bus\n", "zenity : aucun : no bus\n"}},
	} {
		a, out := langApp(c.lang)
		printDesktop(a, checks)
		printLeftovers(a, left)
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("LANG=%s: doctor lacks %q:\n%s", c.lang, w, out.String())
			}
		}
	}
	if missing.Found != "none: no bus" || found.Name != "session bus" {
		t.Errorf("--json's English: %+v, %+v", found, missing)
	}
}

// TestTryVerdictInTheUsersLanguage: try's figures, verdict and what it
// rests on, in German, each line a message of its own; English as it was.
func TestTryVerdictInTheUsersLanguage(t *testing.T) {
	r := bench.TrialResult{Verdict: bench.NoGain, Speedup: 4.2 / 2.6,
		RAM:  bench.Result{Unit: bench.Secs, Median: 2.6, Min: 2.1, Max: 4.5, Samples: []float64{2.1, 2.6, 4.5, 2.5, 2.7}},
		Disk: bench.Result{Unit: bench.Secs, Median: 4.2, Min: 3.9, Max: 4.6, Samples: []float64{3.9, 4.2, 4.6, 4.1, 4.3}}}
	for _, c := range []struct {
		lang string
		want []string
	}{
		{"", []string{"  RAM disk: 2.600 s [2.100–4.500]\n  in place: 4.200 s [3.900–4.600]\n",
			"Perhaps 1.6× faster on the RAM disk, but not surely: the runs overlap\n",
			"(medians 2.600 s on the RAM disk vs 4.200 s in place, 5 timed runs each; ", "(chance alone does that 1 time in 252); more runs can tell: --runs 10)\n"}},
		{"de_DE.UTF-8", []string{"  RAM-Disk: 2,600 s [2,100–4,500]\n  an Ort und Stelle: 4,200 s [3,900–4,600]\n",
			"Vielleicht 1,6× schneller auf der RAM-Disk, aber nicht sicher: die Durchläufe überschneiden sich\n",
			"(Mediane 2,600 s auf der RAM-Disk gegen 4,200 s an Ort und Stelle, je 5 gemessene Durchläufe; ",
			"(der Zufall allein schafft das 1 Mal in 252); mehr Durchläufe können es klären: --runs 10)\n"}},
	} {
		a, out := langApp(c.lang)
		printTrial(a.say(), out, r)
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("LANG=%s: try lacks %q:\n%s", c.lang, w, out.String())
			}
		}
	}
}
