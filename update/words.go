package update

import (
	"rambar/i18n"
	"strings"
)

// Line says what a check found in one sentence, in English.
func (o Outcome) Line() string { return o.Say(nil) }

// Say says what a check found in one sentence, in p's language.
func (o Outcome) Say(p *i18n.Printer) string {
	cur := o.Current
	if cur == "" {
		cur = "dev"
	}
	switch o.Status {
	case Available:
		return p.T("RAMBar %s is available (this copy is %s).", o.Release.Version, cur)
	case UpToDate:
		return p.T("RAMBar %s is up to date.", cur)
	case DevBuild:
		return p.T("This RAMBar is a development build (%s); the newest release is %s.", cur, o.Release.Version)
	}
	return o.Install.Describe(p) + " " + o.Install.HowToUpdate(p)
}

// Describe says how this copy was installed.
func (i Install) Describe(p *i18n.Printer) string {
	switch i.Kind {
	case AppBundle:
		return p.T("This RAMBar is %s, installed from the release's disk image.", i.Where)
	case Homebrew:
		return p.T("This RAMBar was installed with Homebrew (brew install --cask rambar).")
	case MakeInstall:
		return p.T("This RAMBar is %s, installed by make install with PREFIX=%s.", i.Where, i.Prefix)
	case Checkout:
		return p.T("This RAMBar is %s, built in the source checkout %s.", i.Where, i.Tree)
	}
	if i.Where == "" {
		return p.T("This RAMBar was built or copied by hand.")
	}
	return p.T("This RAMBar is %s, built or copied by hand.", i.Where)
}

// HowToUpdate says how to update a copy installed that way.
func (i Install) HowToUpdate(p *i18n.Printer) string {
	switch i.Kind {
	case AppBundle:
		return p.T("Check for Updates… in the menu (or rambar update) downloads and opens a newer release.")
	case Homebrew:
		return p.T("Update it with: brew upgrade --cask rambar")
	case MakeInstall:
		sudo := "sudo "
		if underHome(i.Prefix) {
			sudo = ""
		}
		return p.T("Update it in your RAMBar source checkout with: git pull && %smake install PREFIX=%s", sudo, i.Prefix)
	case Checkout:
		if strings.Contains(i.Where, ".app/") {
			return p.T("Update it with: git -C %s pull && make -C %s app", i.Tree, i.Tree)
		}
		return p.T("Update it with: git -C %s pull && make -C %s build", i.Tree, i.Tree)
	}
	return p.T("Update it from the source: git pull in your checkout, then make install (README, Install).")
}
