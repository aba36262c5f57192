package main

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/jackmordaunt/icns/v3"
	"howett.net/plist"

	"rambar/i18n"
	"rambar/internal/atomicfile"
	"rambar/update"
)

// Version is what the bundle says about itself.
type Version struct {
	// Short is CFBundleShortVersionString: MAJOR.MINOR.PATCH.
	Short string
	// Build is CFBundleVersion: the commit count when known, else Short.
	Build string
	// Source is `git describe` as given (RAMBarSourceVersion).
	Source string
}

var semverRE = regexp.MustCompile(`^(v?)(\d+)(?:(\.)(\d+))?(?:\.(\d+))?(?:$|[-+])`)

// ParseVersion reads `git describe --tags --always --dirty` output ("v1.2.3",
// "v1.2.3-4-gabc1234-dirty", "abc1234" with no tag yet) and a build number.
// Without a version tag the short version is 0.0.0.
func ParseVersion(describe, build string) Version {
	v := Version{Short: "0.0.0", Source: describe}
	// A tag: v2, v1.2, 1.2.3, v1.2.3-4-gabc1234; not a bare commit hash.
	if m := semverRE.FindStringSubmatch(describe); m != nil && (m[1] == "v" || m[3] == ".") {
		parts := []string{m[2], m[4], m[5]}
		for i, p := range parts {
			if p == "" {
				parts[i] = "0"
			}
		}
		v.Short = strings.Join(parts, ".")
	}
	v.Build = v.Short
	if regexp.MustCompile(`^\d{1,9}$`).MatchString(build) {
		v.Build = build
	}
	return v
}

// requiredKeys are Info.plist keys a menu-bar app bundle must carry, with the
// values this one must have ("" = any non-empty string).
var requiredKeys = map[string]any{
	"CFBundleExecutable":            Executable,
	"CFBundleIdentifier":            BundleID,
	"CFBundlePackageType":           "APPL",
	"CFBundleIconFile":              "AppIcon",
	"CFBundleName":                  "",
	"CFBundleInfoDictionaryVersion": "6.0",
	"LSMinimumSystemVersion":        "",
	"LSUIElement":                   true,
	// Without it AppKit runs the app in low resolution on Retina
	// displays: a blurry status icon, alerts and open panel.
	"NSHighResolutionCapable": true,
	// Purpose strings: mirroring a folder in one of these places makes
	// macOS ask the user, with these words; without them the access is
	// refused outright.
	"NSDesktopFolderUsageDescription":    "",
	"NSDocumentsFolderUsageDescription":  "",
	"NSDownloadsFolderUsageDescription":  "",
	"NSRemovableVolumesUsageDescription": "",
	"NSNetworkVolumesUsageDescription":   "",
	// The update feed and the public half of the key that signs it, in
	// Sparkle's keys, so the app can move to Sparkle itself later; RAMBar
	// reads them from the update package, where they are built in.
	"SUFeedURL":     update.FeedURL,
	"SUPublicEDKey": update.PublicKey,
}

// purposeKeys are the Info.plist keys whose words macOS shows the user (the
// purpose strings): each .lproj's InfoPlist.strings translates them.
var purposeKeys = []string{"NSDesktopFolderUsageDescription", "NSDocumentsFolderUsageDescription",
	"NSDownloadsFolderUsageDescription", "NSNetworkVolumesUsageDescription", "NSRemovableVolumesUsageDescription"}

// Localizations are the languages the bundle declares
// (CFBundleLocalizations), each with its .lproj folder: the languages of
// RAMBar's catalog, so System Settings › Language & Region › Applications
// offers them for RAMBar.
func Localizations() []string {
	out := make([]string, len(i18n.Languages))
	for i, t := range i18n.Languages {
		out[i] = i18n.Lproj(t)
	}
	return out
}

// InfoPlistStrings is a language's InfoPlist.strings: the purpose strings
// of info in that language, from RAMBar's catalog (UTF-8, which macOS
// reads).
func InfoPlistStrings(info map[string]any, lang string) ([]byte, error) {
	tag, ok := i18n.Tag(lang)
	if !ok {
		return nil, fmt.Errorf("%s: not a language", lang)
	}
	var b bytes.Buffer
	b.WriteString("/* The purpose strings of Info.plist, from RAMBar's catalog (i18n/locales). */\n")
	for _, k := range purposeKeys {
		src, _ := info[k].(string)
		text, ok := i18n.Lookup(tag, src)
		if !ok {
			return nil, fmt.Errorf("%s: %s is not in the catalog: %q", lang, k, src)
		}
		fmt.Fprintf(&b, "%s = %s;\n", stringsQuote(k), stringsQuote(text))
	}
	return b.Bytes(), nil
}

// stringsQuote quotes s for a .strings file.
func stringsQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// CheckInfo checks an Info.plist's keys (the template or a bundle's).
func CheckInfo(info map[string]any) error {
	var bad []string
	if got := fmt.Sprint(info["CFBundleLocalizations"]); got != fmt.Sprint(Localizations()) {
		bad = append(bad, fmt.Sprintf("CFBundleLocalizations is %s, want %v", got, Localizations()))
	}
	for k, want := range requiredKeys {
		got, ok := info[k]
		switch {
		case !ok:
			bad = append(bad, k+" is missing")
		case want == "":
			if s, _ := got.(string); s == "" {
				bad = append(bad, k+" is empty")
			}
		case got != want:
			bad = append(bad, fmt.Sprintf("%s is %v, want %v", k, got, want))
		}
	}
	if len(bad) > 0 {
		//lint:ignore ST1005 the message starts with the file's name
		return fmt.Errorf("Info.plist: %s", strings.Join(sorted(bad), "; "))
	}
	return nil
}

func sorted(s []string) []string { sort.Strings(s); return s }

// ReadInfo reads a plist file into a map.
func ReadInfo(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if _, err := plist.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// StampInfo returns the template with the version keys set.
func StampInfo(template map[string]any, v Version) ([]byte, error) {
	m := make(map[string]any, len(template)+3)
	for k, x := range template {
		m[k] = x
	}
	m["CFBundleShortVersionString"] = v.Short
	m["CFBundleVersion"] = v.Build
	m["RAMBarSourceVersion"] = v.Source
	if err := CheckInfo(m); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := plist.NewEncoderForFormat(&b, plist.XMLFormat)
	enc.Indent("\t")
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("plist encode Info.plist: %w", err)
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// ICNS encodes a square PNG of at least 1024 px as an .icns holding every
// size macOS asks for (16 to 1024, with @2x).
func ICNS(pngPath string) ([]byte, error) {
	f, err := os.Open(pngPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pngPath, err)
	}
	if b := img.Bounds(); b.Dx() != b.Dy() || b.Dx() < 1024 {
		return nil, fmt.Errorf("%s: icon is %dx%d, want a square of at least 1024 px", pngPath, b.Dx(), b.Dy())
	}
	var b bytes.Buffer
	if err := icns.Encode(&b, img); err != nil {
		return nil, fmt.Errorf("icns encode %s: %w", pngPath, err)
	}
	return b.Bytes(), nil
}

// WriteICNS writes the .icns made from pngPath.
func WriteICNS(pngPath, out string) error {
	data, err := ICNS(pngPath)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(out, data, 0o644)
}

// AppSpec is what Assemble puts together.
type AppSpec struct {
	Binary    string // the darwin binary
	Out       string // the .app folder to (re)create
	InfoPlist string // the Info.plist template
	Icon      string // the app icon PNG
	// ICNS is the icon already encoded (tests); nil: made from Icon.
	ICNS    []byte
	Version Version
}

// Assemble builds the bundle in a temporary folder beside s.Out and renames
// it into place, so an interrupted build never leaves half a bundle:
//
//	RAMBar.app/Contents/Info.plist          the template, version stamped
//	RAMBar.app/Contents/PkgInfo             APPL????
//	RAMBar.app/Contents/MacOS/rambar        the binary, 0755
//	RAMBar.app/Contents/Resources/AppIcon.icns
//	RAMBar.app/Contents/Resources/LANG.lproj/InfoPlist.strings  for each of Localizations
func Assemble(s AppSpec) error {
	tmpl, err := ReadInfo(s.InfoPlist)
	if err != nil {
		return err
	}
	info, err := StampInfo(tmpl, s.Version)
	if err != nil {
		return err
	}
	icon := s.ICNS
	if icon == nil {
		if icon, err = ICNS(s.Icon); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(s.Out), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(s.Out), ".bundle-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	contents := filepath.Join(tmp, "Contents")
	for _, d := range []string{"MacOS", "Resources"} {
		if err := os.MkdirAll(filepath.Join(contents, d), 0o755); err != nil {
			return err
		}
	}
	files := []struct {
		path string
		data []byte
	}{
		{filepath.Join(contents, "Info.plist"), info},
		{filepath.Join(contents, "PkgInfo"), []byte("APPL????")},
		{filepath.Join(contents, "Resources", "AppIcon.icns"), icon},
	}
	for _, l := range Localizations() {
		strs, err := InfoPlistStrings(tmpl, l)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(contents, "Resources", l+".lproj"), 0o755); err != nil {
			return err
		}
		files = append(files, struct {
			path string
			data []byte
		}{filepath.Join(contents, "Resources", l+".lproj", "InfoPlist.strings"), strs})
	}
	for _, f := range files {
		if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
			return err
		}
	}
	if err := copyFile(s.Binary, filepath.Join(contents, "MacOS", Executable), 0o755); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := os.RemoveAll(s.Out); err != nil {
		return err
	}
	return os.Rename(tmp, s.Out)
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, mode)
}

// decodeIcon is used by Check: the largest image in an .icns.
func decodeIcon(data []byte) (image.Image, error) {
	return icns.Decode(bytes.NewReader(data))
}
