package selftest

import (
	"strings"
	"testing"

	"golang.org/x/text/language"

	"rambar/i18n"
)

// phrase is a front end's message inside a check's detail.
type phrase string

func (p phrase) String() string            { return string(p) }
func (p phrase) In(sp i18n.Speaker) string { return sp.T(string(p)) }

// TestSummaryInTheUsersLanguage: the summary printed to a person says its
// heading, each check's outcome and detail (a front end's message inside
// one too) and the totals in the user's language, the checks' names as
// they are; summary.txt's English (Summary) is what it was.
func TestSummaryInTheUsersLanguage(t *testing.T) {
	r := NewReport("1.2.3", "linux", "amd64", "/tmp/st", nil)
	r.Add(Passf("cleanup.stale", "cleaned what a stopped self-test left: %s, %s", counted(1, "%d disks"), counted(2, "%d folders")),
		Skipf("desktop.zenity", "missing (%s); without it: %s", phrase("not installed"), phrase("tray host")),
		Failf("notify.post", "not shown: %s", "denied"))
	r.Seconds = 12
	en := r.Summary()
	for _, want := range []string{"RAMBar 1.2.3 self-test on linux/amd64\n", "  pass  cleanup.stale      cleaned what a stopped self-test left: 1 disk, 2 folders\n",
		"  skip  desktop.zenity     missing (not installed); without it: tray host\n", "  FAIL  notify.post        not shown: denied\n",
		"1 FAILED: 1 passed, 1 failed, 1 skipped in 12 s\n", "Report: /tmp/st/report.json\n"} {
		if !strings.Contains(en, want) {
			t.Errorf("English summary lacks %q:\n%s", want, en)
		}
	}
	if r.SummaryIn(nil) != en {
		t.Error("SummaryIn(nil) is not Summary")
	}
	de := r.SummaryIn(i18n.For(language.German))
	for _, want := range []string{"RAMBar 1.2.3 Selbsttest auf linux/amd64\n",
		"  ok            cleanup.stale      aufgeräumt, was ein unterbrochener Selbsttest hinterließ: 1 Disk, 2 Ordner\n",
		"  übersprungen  desktop.zenity     fehlt (nicht installiert); ohne dies: Tray-Host\n", "  FEHLER        notify.post        nicht gezeigt: denied\n",
		"1 FEHLGESCHLAGEN: 1 bestanden, 1 fehlgeschlagen, 1 übersprungen in 12 s\n", "Bericht: /tmp/st/report.json\n"} {
		if !strings.Contains(de, want) {
			t.Errorf("German summary lacks %q:\n%s", want, de)
		}
	}
	ja := r.SummaryIn(i18n.For(language.Japanese))
	if !strings.Contains(ja, "  合格  cleanup.stale      停止されたセルフテストが残したものを片付けました: 1 個のディスク、2 個のフォルダ\n") {
		t.Errorf("Japanese summary:\n%s", ja)
	}
	// A detail changed after it was made is said as it is.
	c := Passf("x", "posted")
	c.Detail += "; more"
	if got := LineIn(c, i18n.For(language.German)); !strings.HasSuffix(got, " posted; more") {
		t.Errorf("changed detail: %q", got)
	}
}
