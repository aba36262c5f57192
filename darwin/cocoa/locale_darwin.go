//go:build darwin

package cocoa

import "github.com/ebitengine/purego/objc"

var (
	selPreferredLanguages = objc.RegisterName("preferredLanguages")
	selCount              = objc.RegisterName("count")
)

// PreferredLanguages is [NSLocale preferredLanguages]: the user's languages
// in order ("de-DE", "en-US"), with the language chosen for RAMBar alone in
// System Settings › General › Language & Region › Applications first, as
// the bundle's CFBundleLocalizations allow. nil when Foundation cannot be
// loaded.
func PreferredLanguages() []string {
	if frameworks() != nil {
		return nil
	}
	arr := class("NSLocale").Send(selPreferredLanguages)
	if arr == 0 {
		return nil
	}
	n := objc.Send[uint](arr, selCount)
	out := make([]string, 0, n)
	for i := uint(0); i < n; i++ {
		if s := goString(arr.Send(selObjectAtIndex, i)); s != "" {
			out = append(out, s)
		}
	}
	return out
}
