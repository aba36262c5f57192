package ramdisk

import (
	"strconv"
	"strings"
	"time"
)

// Plural is n with its noun, singular only for one: "1 file", "0 files",
// "3 runs". Nouns that take "es" or change are not needed here.
func Plural[N ~int | ~int64](n N, noun string) string {
	s := strconv.FormatInt(int64(n), 10) + " " + noun
	if n != 1 {
		s += "s"
	}
	return s
}

// Ago says how long ago something was, as the menu and `info` say when a
// disk was saved: "just now", "3 s ago", "5 min ago", "2 h ago", "3 days
// ago". A time in the future (a clock set back) is "just now".
func Ago(d time.Duration) string {
	switch {
	case d < time.Second:
		return "just now"
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + " s ago"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + " min ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + " h ago"
	}
	return Plural(int(d/(24*time.Hour)), "day") + " ago"
}

// ContentChoice is one contents choice of the New RAM Disk window, as both
// the macOS and the Linux window show it.
type ContentChoice struct {
	Mode  ContentMode
	Label string
	// InPlace: the Mirror disk is mounted over its folder once loaded.
	InPlace bool
}

// ContentChoices are the New RAM Disk window's contents choices, in order.
// A label holds no apostrophe: zenity --forms (Linux) crashes on a combo
// value with one (TestContentLabelsPassZenity).
var ContentChoices = []ContentChoice{
	{Discard, "None: contents are lost when ejected", false},
	{Keep, "Keep: saved, and restored when mounted", false},
	{Mirror, "Mirror a folder: loaded, changes written back", false},
	{Mirror, "Mirror in place: the folder runs from memory at its own path", true},
}

// ContentIndex is the place of m (in place or not) in ContentChoices (0,
// None, when it has none).
func ContentIndex(m ContentMode, inPlace bool) int {
	for i, c := range ContentChoices {
		if c.Mode == m && c.InPlace == (inPlace && m == Mirror) {
			return i
		}
	}
	return 0
}

// otherUser starts what Whose says of a disk another user owns.
const otherUser = "belongs to another user, "

// OtherUserWhose is what Whose says of a disk the user named owns (its top
// folder is theirs): it is theirs to use, not this user's.
func OtherUserWhose(user string) Said {
	return Sayf(otherUser+"%s: only they can open, save or eject it (its RAMBar mark is theirs to read)", user)
}

// OtherUser says whose disk a Whose sentence names when it is another
// user's ("" when it is not).
func OtherUser(whose Said) string {
	rest, ok := strings.CutPrefix(whose.Text, otherUser)
	if !ok {
		return ""
	}
	user, _, _ := strings.Cut(rest, ":")
	return user
}
