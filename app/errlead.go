package main

import (
	"errors"
	"strings"

	"rambar/disks"
	"rambar/i18n"
	"rambar/keeper"
	"rambar/ramdisk"
)

// Errors in the user's language. The sentences RAMBar words itself are
// translatable errors (i18n.Errorf: the English format and its arguments,
// Error() as fmt.Errorf's), and are said whole in the user's language:
// the outermost one in the error's chain, with its arguments, the error
// classes it wraps (translatable too) and any other error inside as it is
// (an OS error, a tool's output). Plain wrappers around it ("save Build:
// …": a verb's and a disk's name, as typed) stay around it as they are
// (i18n's Printer.Err). --json, logs and scripts read the English text.
//
// An error with no translatable sentence in its chain is its English
// detail led, in another language, by a sentence naming its class (the
// classes the exit codes map):
//
//	rambar: Fehler: Der Einhängepunkt kann nicht benutzt werden: …
//
// Usage errors and refused combinations of options are ours and said whole.

// errorLead is one class of error and the sentence that leads it.
type errorLead struct {
	class error
	lead  string
}

// errorLeads are checked in order: the narrower classes first.
var errorLeads = []errorLead{
	{keeper.ErrRefused, i18n.N("Refused, to protect saved contents")},
	{keeper.ErrNoSnapshot, i18n.N("No such snapshot")},
	{keeper.ErrNotKept, i18n.N("The disk's contents are not kept")},
	{keeper.ErrNotMirror, i18n.N("It is not a Mirror disk")},
	{keeper.ErrAlreadyKept, i18n.N("Its contents are kept already")},
	{keeper.ErrClaimed, i18n.N("The folder is mirrored already")},
	{keeper.ErrKeptWork, i18n.N("Kept work would be buried")},
	{keeper.ErrReclaimStopped, i18n.N("A reclaim was not finished")},
	{disks.ErrNotOurs, i18n.N("It is not this RAMBar's disk")},
	{disks.ErrStillKept, i18n.N("A disk of that name is mounted and kept")},
	{disks.ErrNothingSaved, i18n.N("Nothing is saved under that name")},
	{disks.ErrNotWorthwhile, i18n.N("A reclaim would gain too little")},
	{disks.ErrTryDisk, i18n.N("It is a try disk")},
	{disks.ErrStillMounted, i18n.N("The disk is still mounted")},
	{ramdisk.ErrMountPointTaken, i18n.N("The mount point cannot be used")},
	{ramdisk.ErrSettingsCorrupt, i18n.N("The settings file is damaged")},
	{ramdisk.ErrSettingsNewer, i18n.N("The settings file is from a newer RAMBar")},
	{ramdisk.ErrName, i18n.N("The name is not valid")},
	{ramdisk.ErrSize, i18n.N("The size is not valid")},
	{ramdisk.ErrFileSystem, i18n.N("That file system is not available")},
	{ramdisk.ErrOption, i18n.N("The options are not valid")},
	{ramdisk.ErrBusy, i18n.N("The disk is in use")},
	{ramdisk.ErrNotFound, i18n.N("No such RAM disk")},
	{ramdisk.ErrNeedsAdmin, i18n.N("Administrator rights are needed")},
	{ramdisk.ErrTooLarge, i18n.N("There is not enough memory for it")},
	{ramdisk.ErrNoSpace, i18n.N("There is not enough space")},
	{errRefused, i18n.N("Refused, to keep your data safe (--force overrides)")},
	{ramdisk.ErrUnsupported, i18n.N("It is not possible here")},
	{ramdisk.ErrExists, i18n.N("The name is already taken")},
	{ramdisk.ErrCancelled, i18n.N("Cancelled")},
}

// sayError is err's line on stderr, in s's language.
func sayError(s speech, err error) string {
	detail := strings.ReplaceAll(err.Error(), "\n", "; ")
	if s.english() {
		return "rambar: " + detail
	}
	if line, ok := sayUsage(s, err); ok {
		return s.T("rambar: %s", strings.ReplaceAll(line, "\n", "; "))
	}
	var clash *ramdisk.ClashError
	if errors.As(err, &clash) && clash.Error() == err.Error() {
		return s.T("rambar: %s", s.Text(clash.Clash.Why))
	}
	if _, ok := i18n.Translatable(err); ok {
		return s.T("rambar: %s", strings.ReplaceAll(s.p.Err(err), "\n", "; "))
	}
	for _, l := range errorLeads {
		if errors.Is(err, l.class) {
			return s.T("rambar: error: %s: %s", s.Text(l.lead), detail)
		}
	}
	return s.T("rambar: error: %s", detail)
}
