package bench

import (
	"strings"
	"testing"

	"golang.org/x/text/language"

	"rambar/i18n"
	"rambar/internal/textwidth"
)

// langReport is chartReport as Run makes it: its labels those of the
// quick sizes, its reasons and notes kept as messages.
func langReport() Report {
	rep := chartReport()
	rep.Quick = true
	rep.Rows = Options{Quick: true, Rows: []RowID{rowSeqWrite, rowFsync, rowFullFsync, rowSQLiteDefault, rowSQLiteFull, rowUntar, rowDeleteFiles}}.Labels()
	for i := range rep.Targets {
		rep.Targets[i].Name = HomeDisk("/home/x").Name
		if rep.Targets[i].RAM {
			rep.Targets[i].Name = "Scratch"
		}
		for j := range rep.Targets[i].Results {
			r := &rep.Targets[i].Results[j]
			if r.Skipped != "" {
				r.skip(wordsOf(r.Skipped))
			}
		}
	}
	seq := &rep.Targets[0].Results[0]
	seq.notes = sequentialNotes(false, true, "tmpfs")
	seq.Note = sayAll(tongue{}, seq.notes)
	return rep
}

// TestReportInTheUsersLanguage: bench's table, headline, compact table
// and progress lines are said whole in the user's language, figures as it
// writes numbers, a Chinese or Japanese compact table within its width;
// with no Speaker they are the English of Table, Headline and Compact.
func TestReportInTheUsersLanguage(t *testing.T) {
	rep := langReport()
	if rep.TableIn(nil) != rep.Table() || rep.HeadlineIn(nil) != rep.Headline() || rep.CompactIn(nil) != rep.Compact() {
		t.Error("without a Speaker the report is not its English")
	}
	p := Progress{Target: homeDiskName, Row: rowSeqWrite, Label: rep.Rows[0].Label, Run: 1, Runs: 3, Step: 2, Steps: 20, sizes: quickSizes}
	if got, want := p.In(nil), "[2/20] Home disk: 64 MiB write, uncached (run 1 of 3)"; got != want || p.String() != want {
		t.Errorf("progress %q, want %q", got, want)
	}
	de := i18n.For(language.German)
	for _, c := range []struct {
		what, got string
		want      []string
	}{
		{"table", rep.TableIn(de), []string{"Test  ", "Home-Disk (ext4)", "RAM ggü. Disk\n", "64 MiB schreiben, ungecacht", "7.357 MiB/s [7.000–7.400] gecacht (",
			"3,0 µs [2,9–3,2]", "5,8×", "entfällt (F_FULLFSYNC gibt es nur unter macOS)", "sqlite3 nicht installiert", "~1,1×", "diese 2.000 Dateien löschen",
			"\nMedian von 3 Durchläufen [Min.–Max.], kleine Größen, ", ". RAM ggü. Disk: Scratch gegen Home-Disk; ~ heißt"}},
		{"headline", rep.HeadlineIn(de), []string{"Scratch ggü. Home-Disk: schneller bei 64 MiB schreiben, ungecacht (5,8×), 4 KiB schreiben + fsync (569×)",
			"; kein messbarer Gewinn bei 600 Dateien entpacken (13 MiB); langsamer bei diese 2.000 Dateien löschen (2,0×)"}},
		{"compact", rep.CompactIn(de), []string{"Scratch (tmpfs) ggü. Home-Disk (ext4), Median von 3 Durchläufen,", "RAM-Disk ist\n", "5,8× schneller\n",
			"~1,1× (Rauschen)", "entfällt (F_FULLFSYNC gibt es nur", "¹ gecacht (", "Nicht gemessen: SQLite-Insert, PRAGMA synchronous=FULL auf Home-Disk:"}},
		{"progress", p.In(de), []string{"[2/20] Home-Disk: 64 MiB schreiben, ungecacht (Durchlauf 1 von 3)"}},
		{"one run", Report{Runs: 1}.TableIn(de), []string{"Median von 1 Durchlauf [Min.–Max.], volle Größen"}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.got, w) {
				t.Errorf("German %s lacks %q:\n%s", c.what, w, c.got)
			}
		}
		if strings.Contains(c.got, "Median of") || strings.Contains(c.got, "faster") {
			t.Errorf("German %s has English:\n%s", c.what, c.got)
		}
	}
	for _, tag := range []language.Tag{language.Japanese, language.SimplifiedChinese, language.French} {
		got := rep.CompactIn(i18n.For(tag))
		for _, l := range strings.Split(got, "\n") {
			if textwidth.Width(l) > CompactWidth {
				t.Errorf("%s: a line of %d columns: %q", tag, textwidth.Width(l), l)
			}
		}
		if strings.Contains(got, "faster") || strings.Contains(got, "n/a") {
			t.Errorf("%s: English left in\n%s", tag, got)
		}
	}
	if got := rep.HeadlineIn(i18n.For(language.Japanese)); !strings.Contains(got, "（569 倍）") || !strings.Contains(got, "で速い；") {
		t.Errorf("Japanese headline %q", got)
	}
}

// TestTrialVerdictInTheUsersLanguage: try's verdict and what it rests on,
// said whole in German; English as Summary and Sureness say it.
func TestTrialVerdictInTheUsersLanguage(t *testing.T) {
	de := i18n.For(language.German)
	r := TrialResult{Verdict: NoGain, Speedup: 4.2 / 2.6, RAM: Result{Median: 2.6, Samples: []float64{2.1, 2.6, 4.5, 2.5, 2.7}},
		Disk: Result{Median: 4.2, Samples: []float64{3.9, 4.2, 4.6, 4.1, 4.3}}}
	if r.SummaryIn(nil) != r.Summary() || r.SurenessIn(nil) != r.Sureness() || r.MoreRuns() != 10 {
		t.Errorf("English: %q, %q, more runs %d", r.SummaryIn(nil), r.SurenessIn(nil), r.MoreRuns())
	}
	for _, c := range []struct{ got, want string }{
		{r.SummaryIn(de), "vielleicht 1,6× schneller auf der RAM-Disk, aber nicht sicher: die Durchläufe überschneiden sich"},
		{TrialResult{Verdict: Faster, Speedup: 2.34}.SummaryIn(de), "auf der RAM-Disk 2,3× schneller"},
		{TrialResult{Verdict: Unknown}.SummaryIn(de), "zu wenige Durchläufe für ein Urteil"},
		{r.SurenessIn(de), "Mediane 2,600 s auf der RAM-Disk gegen 4,200 s an Ort und Stelle, je 5 gemessene Durchläufe; " +
			"ein Gewinn wird nur gemeldet, wenn jeder Durchlauf auf der RAM-Disk jeden an Ort und Stelle schlägt und die Mediane um 5 % oder mehr abweichen " +
			"(der Zufall allein schafft das 1 Mal in 252)"},
		{TrialOptions{Argv: []string{"make", "test"}, Speaker: de}.runLine(OnRAM, 2, 5), "make test auf der RAM-Disk (Durchlauf 2 von 5)"},
		{TrialOptions{Argv: []string{"make"}}.runLine(InSitu, 0, 5), "make in place (warm-up)"},
	} {
		if c.got != c.want {
			t.Errorf("got  %q\nwant %q", c.got, c.want)
		}
	}
}
