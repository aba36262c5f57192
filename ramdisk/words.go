package ramdisk

import "strconv"

// Plural is n with its noun, singular only for one: "1 file", "0 files",
// "3 runs". Nouns that take "es" or change are not needed here.
func Plural[N ~int | ~int64](n N, noun string) string {
	s := strconv.FormatInt(int64(n), 10) + " " + noun
	if n != 1 {
		s += "s"
	}
	return s
}
