package main

import (
	"bytes"
	"crypto/sha256"
	"debug/macho"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestRootInfoPlist: the Info.plist at the repository root, which every
// bundle starts from, is a valid plist with the keys a menu-bar app needs.
func TestRootInfoPlist(t *testing.T) {
	info, err := ReadInfo(filepath.Join("..", "..", "Info.plist"))
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckInfo(info); err != nil {
		t.Error(err)
	}
	v, _ := info["LSMinimumSystemVersion"].(string)
	if major, _, _ := strings.Cut(v, "."); len(major) < 2 || major < "13" {
		t.Errorf("LSMinimumSystemVersion %q: make app builds for macOS 13 (MACOSX_DEPLOYMENT_TARGET)", v)
	}
	stamped, err := StampInfo(info, ParseVersion("v1.4.2-3-gabcdef0", "117"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "Info.plist")
	os.WriteFile(p, stamped, 0o644)
	back, err := ReadInfo(p)
	if err != nil {
		t.Fatal(err)
	}
	if back["CFBundleShortVersionString"] != "1.4.2" || back["CFBundleVersion"] != "117" || back["RAMBarSourceVersion"] != "v1.4.2-3-gabcdef0" ||
		back["LSUIElement"] != true || back["NSHighResolutionCapable"] != true || back["NSHumanReadableCopyright"] != info["NSHumanReadableCopyright"] {
		t.Errorf("stamped Info.plist: %v", back)
	}
}

func TestCheckInfoRefuses(t *testing.T) {
	info, _ := ReadInfo(filepath.Join("..", "..", "Info.plist"))
	for k, bad := range map[string]any{"CFBundleExecutable": "RAMBar", "CFBundleIdentifier": "com.example", "LSUIElement": false, "NSHighResolutionCapable": false, "CFBundleName": "",
		"NSDocumentsFolderUsageDescription": "", "NSRemovableVolumesUsageDescription": ""} {
		m := map[string]any{}
		for kk, v := range info {
			m[kk] = v
		}
		m[k] = bad
		if err := CheckInfo(m); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s = %v: %v", k, bad, err)
		}
		delete(m, k)
		if err := CheckInfo(m); err == nil || !strings.Contains(err.Error(), k+" is missing") {
			t.Errorf("%s missing: %v", k, err)
		}
	}
}

func TestParseVersion(t *testing.T) {
	tests := []struct{ describe, build, short, bundle string }{
		{"v1.2.3", "", "1.2.3", "1.2.3"},
		{"v1.2.3", "42", "1.2.3", "42"},
		{"v1.2.3-4-gabc1234-dirty", "42", "1.2.3", "42"},
		{"1.2", "", "1.2.0", "1.2.0"},
		{"v2", "7", "2.0.0", "7"},
		{"v0.9.0-rc1", "", "0.9.0", "0.9.0"},
		{"6b2d5ca", "5", "0.0.0", "5"},
		{"6b2d5ca-dirty", "", "0.0.0", "0.0.0"},
		{"dev", "x1", "0.0.0", "0.0.0"},
	}
	for _, tt := range tests {
		v := ParseVersion(tt.describe, tt.build)
		if v.Short != tt.short || v.Build != tt.bundle || v.Source != tt.describe {
			t.Errorf("ParseVersion(%q, %q) = %+v, want %s (%s)", tt.describe, tt.build, v, tt.short, tt.bundle)
		}
	}
}

// machoSlice is a minimal 64-bit Mach-O executable: a header, an
// LC_CODE_SIGNATURE load command pointing at sigOff (0: none), and filler.
func machoSlice(cpu macho.Cpu, size, sigOff int) []byte {
	b := make([]byte, size)
	le := binary.LittleEndian
	le.PutUint32(b[0:], macho.Magic64)
	le.PutUint32(b[4:], uint32(cpu))
	le.PutUint32(b[12:], uint32(macho.TypeExec))
	if sigOff > 0 {
		le.PutUint32(b[16:], 1)  // ncmds
		le.PutUint32(b[20:], 16) // sizeofcmds
		le.PutUint32(b[32:], 0x1d)
		le.PutUint32(b[36:], 16)
		le.PutUint32(b[40:], uint32(sigOff))
		le.PutUint32(b[44:], uint32(size-sigOff))
	}
	for i := 48; i < size; i++ {
		b[i] = byte(i * 7)
	}
	return b
}

// fatFile joins slices into a universal binary (4096-aligned).
func fatFile(slices map[macho.Cpu][]byte, order ...macho.Cpu) []byte {
	be := binary.BigEndian
	hdr := make([]byte, 8+20*len(order))
	be.PutUint32(hdr[0:], macho.MagicFat)
	be.PutUint32(hdr[4:], uint32(len(order)))
	body := []byte{}
	off := 4096
	for i, c := range order {
		s := slices[c]
		e := hdr[8+20*i:]
		be.PutUint32(e[0:], uint32(c))
		be.PutUint32(e[8:], uint32(off))
		be.PutUint32(e[12:], uint32(len(s)))
		be.PutUint32(e[16:], 12)
		for len(hdr)+len(body) < off {
			body = append(body, 0)
		}
		body = append(body, s...)
		off += (len(s) + 4095) / 4096 * 4096
	}
	return append(hdr, body...)
}

// newApp assembles a bundle around bin and returns its path. The icon is
// encoded once and reused (encoding takes most of a second).
func newApp(t *testing.T, bin []byte, v Version) string {
	t.Helper()
	dir := t.TempDir()
	if cachedApp != "" {
		app := filepath.Join(dir, "dist", "RAMBar.app")
		if err := os.CopyFS(app, os.DirFS(cachedApp)); err != nil {
			t.Fatal(err)
		}
		os.Chmod(filepath.Join(app, "Contents", "MacOS", "rambar"), 0o755)
		return app
	}
	binPath := filepath.Join(dir, "rambar-universal")
	os.WriteFile(binPath, bin, 0o755)
	app := filepath.Join(dir, "dist", "RAMBar.app")
	err := Assemble(AppSpec{Binary: binPath, Out: app, InfoPlist: filepath.Join("..", "..", "Info.plist"), ICNS: appIcon(t), Version: v})
	if err != nil {
		t.Fatal(err)
	}
	return app
}

var cachedApp string

// appIcon is the committed app icon encoded as .icns, once per test run
// (encoding takes seconds under the race detector).
var appIcon = func() func(t *testing.T) []byte {
	var once sync.Once
	var data []byte
	var err error
	return func(t *testing.T) []byte {
		once.Do(func() { data, err = ICNS(filepath.Join("..", "..", "assets", "appicon.png")) })
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
}()

func TestAssembleAndCheck(t *testing.T) {
	universal := fatFile(map[macho.Cpu][]byte{macho.CpuAmd64: machoSlice(macho.CpuAmd64, 6000, 0), macho.CpuArm64: machoSlice(macho.CpuArm64, 7000, 0)},
		macho.CpuAmd64, macho.CpuArm64)
	v := ParseVersion("v0.2.0", "12")
	want := Want{Archs: []string{"arm64", "x86_64"}, Version: &v}
	app := newApp(t, universal, v)
	cachedApp = app
	t.Cleanup(func() { cachedApp = "" })
	rep, err := Check(app, want)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if rep.Version != "0.2.0" || rep.Build != "12" || rep.IconPx != 1024 || strings.Join(rep.Archs, ",") != "arm64,x86_64" {
		t.Errorf("report %+v", rep)
	}
	// Assembling again replaces the bundle whole and leaves no temp folder.
	os.WriteFile(filepath.Join(app, "Contents", "stray"), nil, 0o644)
	if err := Assemble(AppSpec{Binary: filepath.Join(filepath.Dir(filepath.Dir(app)), "rambar-universal"), Out: app,
		InfoPlist: filepath.Join("..", "..", "Info.plist"), ICNS: appIcon(t), Version: v}); err != nil {
		t.Fatal(err)
	}
	if _, err := Check(app, want); err != nil {
		t.Errorf("Check after reassembly: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(app)); len(ents) != 1 {
		t.Errorf("dist holds %v", ents)
	}
	// Every language's purpose strings, from the catalog.
	for _, l := range Localizations() {
		b, err := os.ReadFile(filepath.Join(app, "Contents", "Resources", l+".lproj", "InfoPlist.strings"))
		if err != nil || len(parseStrings(string(b))) != len(purposeKeys) {
			t.Errorf("%s.lproj: %v\n%s", l, err, b)
		}
	}
	de, _ := os.ReadFile(filepath.Join(app, "Contents", "Resources", "de.lproj", "InfoPlist.strings"))
	if !strings.Contains(string(de), `"NSDownloadsFolderUsageDescription" = "RAMBar lädt einen Ordner in „Downloads“`) {
		t.Errorf("de.lproj/InfoPlist.strings:\n%s", de)
	}

	breakers := []struct {
		name  string
		mess  func(app string)
		want  Want
		match string
	}{
		{"stray file", func(app string) { os.WriteFile(filepath.Join(app, "Contents", "MacOS", ".DS_Store"), nil, 0o644) }, want, "unexpected Contents/MacOS/.DS_Store"},
		{"no icon", func(app string) { os.Remove(filepath.Join(app, "Contents", "Resources", "AppIcon.icns")) }, want, "missing Contents/Resources/AppIcon.icns"},
		{"not executable", func(app string) { os.Chmod(filepath.Join(app, "Contents", "MacOS", "rambar"), 0o644) }, want, "not executable"},
		{"thin binary", func(app string) {
			os.WriteFile(filepath.Join(app, "Contents", "MacOS", "rambar"), machoSlice(macho.CpuArm64, 5000, 0), 0o755)
		}, want, "not a universal Mach-O"},
		{"other version", func(string) {}, Want{Archs: want.Archs, Version: &Version{Short: "0.3.0", Build: "12", Source: "v0.3.0"}}, "want 0.3.0"},
		{"one arch short", func(string) {}, Want{Archs: []string{"arm64", "x86_64", "arm64e"}}, "architectures"},
		{"bad PkgInfo", func(app string) { os.WriteFile(filepath.Join(app, "Contents", "PkgInfo"), []byte("APPLRMBR"), 0o644) }, want, "PkgInfo"},
		{"bad icon", func(app string) {
			os.WriteFile(filepath.Join(app, "Contents", "Resources", "AppIcon.icns"), []byte("icns"), 0o644)
		}, want, "AppIcon.icns"},
		{"a language missing", func(app string) { os.RemoveAll(filepath.Join(app, "Contents", "Resources", "ja.lproj")) }, want,
			"missing Contents/Resources/ja.lproj"},
		{"a language not declared", func(app string) {
			os.MkdirAll(filepath.Join(app, "Contents", "Resources", "pt-BR.lproj"), 0o755)
		}, want, "unexpected Contents/Resources/pt-BR.lproj"},
		{"a purpose string missing", func(app string) {
			os.WriteFile(filepath.Join(app, "Contents", "Resources", "de.lproj", "InfoPlist.strings"), []byte(`"NSDesktopFolderUsageDescription" = "x";`+"\n"), 0o644)
		}, want, "de.lproj/InfoPlist.strings lacks NSDocumentsFolderUsageDescription"},
		{"a purpose string in English", func(app string) {
			p := filepath.Join(app, "Contents", "Resources", "fr.lproj", "InfoPlist.strings")
			en, _ := os.ReadFile(filepath.Join(app, "Contents", "Resources", "en.lproj", "InfoPlist.strings"))
			os.WriteFile(p, en, 0o644)
		}, want, "fr.lproj/InfoPlist.strings: NSDesktopFolderUsageDescription is not translated"},
	}
	for _, b := range breakers {
		t.Run(b.name, func(t *testing.T) {
			app := newApp(t, universal, v)
			b.mess(app)
			if _, err := Check(app, b.want); err == nil || !strings.Contains(err.Error(), b.match) {
				t.Errorf("Check = %v, want %q", err, b.match)
			}
		})
	}
}

// describeJSON is what quill describe -o json prints for a file whose slices
// are signed ad hoc, with the page hashes of the bytes given.
func describeJSON(t *testing.T, slices map[string][]byte, sigOff int, id, flags string) []byte {
	type pd struct {
		Index     int    `json:"index"`
		Offset    int64  `json:"offset"`
		Algorithm string `json:"algorithm"`
		Value     string `json:"value"`
	}
	var out []any
	for sub, s := range slices {
		var pds []pd
		for off := 0; off < sigOff; off += 4096 {
			sum := sha256.Sum256(s[off:min(off+4096, sigOff)])
			pds = append(pds, pd{off / 4096, int64(off), "sha256", hex.EncodeToString(sum[:])})
		}
		out = append(out, map[string]any{
			"file": map[string]any{"cpu": "x", "subcpu": sub},
			"superBlob": map[string]any{"codeDirectories": []any{map[string]any{
				"id": id, "flags": map[string]any{"value": 2, "description": flags},
				"version": map[string]any{"description": "Runtime"}, "pageDigests": pds}}},
		})
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSignatureVerify(t *testing.T) {
	const size, sigOff = 12000, 9000
	arm, amd := machoSlice(macho.CpuArm64, size, sigOff), machoSlice(macho.CpuAmd64, size, sigOff)
	file := filepath.Join(t.TempDir(), "rambar")
	os.WriteFile(file, fatFile(map[macho.Cpu][]byte{macho.CpuArm64: arm, macho.CpuAmd64: amd}, macho.CpuAmd64, macho.CpuArm64), 0o755)
	archs := []string{"arm64", "x86_64"}
	parse := func(b []byte) Signature {
		var s Signature
		if err := json.Unmarshal(b, &s.Slices); err != nil {
			t.Fatal(err)
		}
		return s
	}
	good := parse(describeJSON(t, map[string][]byte{"ARM64": arm, "x86_64": amd}, sigOff, BundleID, "adhoc"))
	if err := good.Verify(file, archs); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if s := good.String(); !strings.Contains(s, "2 slices, 6 page hashes") {
		t.Errorf("String() = %q", s)
	}
	// A byte changed after signing, in the second page of the arm64 slice.
	data, _ := os.ReadFile(file)
	tampered := bytes.Clone(data)
	tampered[16384+4096+100] ^= 0xff // the arm64 slice starts at 16384
	tfile := filepath.Join(t.TempDir(), "rambar")
	os.WriteFile(tfile, tampered, 0o755)
	if err := good.Verify(tfile, archs); err == nil || !strings.Contains(err.Error(), "page 1 hash does not match") {
		t.Errorf("tampered: %v", err)
	}
	wrongID := parse(describeJSON(t, map[string][]byte{"arm64": arm, "x86_64": amd}, sigOff, "a.out", "adhoc"))
	if err := wrongID.Verify(file, archs); err == nil || !strings.Contains(err.Error(), `"a.out"`) {
		t.Errorf("wrong identifier: %v", err)
	}
	oneSlice := parse(describeJSON(t, map[string][]byte{"arm64": arm}, sigOff, BundleID, "adhoc"))
	if err := oneSlice.Verify(file, archs); err == nil {
		t.Errorf("one slice described: no error")
	}
	unsigned := filepath.Join(t.TempDir(), "rambar")
	os.WriteFile(unsigned, fatFile(map[macho.Cpu][]byte{macho.CpuArm64: machoSlice(macho.CpuArm64, size, 0), macho.CpuAmd64: machoSlice(macho.CpuAmd64, size, 0)}, macho.CpuAmd64, macho.CpuArm64), 0o755)
	if err := good.Verify(unsigned, archs); err == nil || !strings.Contains(err.Error(), "no LC_CODE_SIGNATURE") {
		t.Errorf("unsigned: %v", err)
	}
}

func TestICNS(t *testing.T) {
	data := appIcon(t)
	if !bytes.HasPrefix(data, []byte("icns")) {
		t.Errorf("not an icns file: % x", data[:8])
	}
	img, err := decodeIcon(data)
	if err != nil || img.Bounds().Dx() != 1024 {
		t.Errorf("decoded: %v, %v", img, err)
	}
	small := filepath.Join(t.TempDir(), "small.png")
	os.WriteFile(small, []byte("not a png"), 0o644)
	if _, err := ICNS(small); err == nil {
		t.Errorf("a non-PNG made an icon")
	}
}
