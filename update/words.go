package update

import (
	"fmt"
	"strings"
)

// Line says what a check found in one sentence.
func (o Outcome) Line() string {
	cur := o.Current
	if cur == "" {
		cur = "dev"
	}
	switch o.Status {
	case Available:
		return fmt.Sprintf("RAMBar %s is available (this copy is %s).", o.Release.Version, cur)
	case UpToDate:
		return fmt.Sprintf("RAMBar %s is up to date.", cur)
	case DevBuild:
		return fmt.Sprintf("This RAMBar is a development build (%s); the newest release is %s.", cur, o.Release.Version)
	}
	return o.Install.Describe() + " " + o.Install.HowToUpdate()
}

// Describe says how this copy was installed.
func (i Install) Describe() string {
	switch i.Kind {
	case AppBundle:
		return fmt.Sprintf("This RAMBar is %s, installed from the release's disk image.", i.Where)
	case Homebrew:
		return "This RAMBar was installed with Homebrew (brew install --cask rambar)."
	case MakeInstall:
		return fmt.Sprintf("This RAMBar is %s, installed by make install with PREFIX=%s.", i.Where, i.Prefix)
	case Checkout:
		return fmt.Sprintf("This RAMBar is %s, built in the source checkout %s.", i.Where, i.Tree)
	}
	if i.Where == "" {
		return "This RAMBar was built or copied by hand."
	}
	return fmt.Sprintf("This RAMBar is %s, built or copied by hand.", i.Where)
}

// HowToUpdate says how to update a copy installed that way.
func (i Install) HowToUpdate() string {
	switch i.Kind {
	case AppBundle:
		return "Check for Updates… in the menu (or rambar update) downloads and opens a newer release."
	case Homebrew:
		return "Update it with: brew upgrade --cask rambar"
	case MakeInstall:
		sudo := "sudo "
		if underHome(i.Prefix) {
			sudo = ""
		}
		return fmt.Sprintf("Update it in your RAMBar source checkout with: git pull && %smake install PREFIX=%s", sudo, i.Prefix)
	case Checkout:
		if strings.Contains(i.Where, ".app/") {
			return fmt.Sprintf("Update it with: git -C %s pull && make -C %s app", i.Tree, i.Tree)
		}
		return fmt.Sprintf("Update it with: git -C %s pull && make -C %s build", i.Tree, i.Tree)
	}
	return "Update it from the source: git pull in your checkout, then make install (README, Install)."
}
