package update

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// version is a release's version: "1.3.0", "v1.3.0", or what git describe
// says of a build after a tag ("v1.3.0-4-gabc1234", 4 commits later; a
// "-dirty" suffix is ignored). A suffix of another form ("-rc1") is a
// pre-release, older than the release itself.
type version struct {
	nums  []int
	after int    // commits after the tag (git describe)
	pre   string // pre-release suffix
}

var describeRE = regexp.MustCompile(`^([0-9]+)-g[0-9a-f]+$`)

// parseVersion reads a version; a build that is not from a tag ("dev", a
// bare commit hash) has none.
func parseVersion(s string) (version, error) {
	s = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "v"), "-dirty")
	core, rest, _ := strings.Cut(s, "-")
	var v version
	for _, p := range strings.Split(core, ".") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || len(p) > 9 {
			return version{}, fmt.Errorf("%q is not a release version", s)
		}
		v.nums = append(v.nums, n)
	}
	if m := describeRE.FindStringSubmatch(rest); m != nil {
		v.after, _ = strconv.Atoi(m[1])
	} else {
		v.pre = rest
	}
	return v, nil
}

// compare is -1, 0 or 1 as a is older than, the same as or newer than b.
func (a version) compare(b version) int {
	for i := 0; i < max(len(a.nums), len(b.nums)); i++ {
		x, y := at(a.nums, i), at(b.nums, i)
		if x != y {
			return sign(x - y)
		}
	}
	switch {
	case a.pre != b.pre && a.pre == "":
		return 1
	case a.pre != b.pre && b.pre == "":
		return -1
	case a.pre != b.pre:
		return sign(strings.Compare(a.pre, b.pre))
	}
	return sign(a.after - b.after)
}

func at(n []int, i int) int {
	if i < len(n) {
		return n[i]
	}
	return 0
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// Compare is -1, 0 or 1 as version a is older than, the same as or newer
// than b; an error when either is not a release version.
func Compare(a, b string) (int, error) {
	va, err := parseVersion(a)
	if err != nil {
		return 0, err
	}
	vb, err := parseVersion(b)
	if err != nil {
		return 0, err
	}
	return va.compare(vb), nil
}
