package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/macho"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"rambar/internal/run"
)

// Want is what Check expects of a bundle.
type Want struct {
	Archs   []string // "arm64", "x86_64"
	Version *Version // nil: any
}

// Report is what Check found.
type Report struct {
	App       string
	Binary    string
	Archs     []string
	Size      int64
	Version   string
	Build     string
	IconPx    int
	Signature string // filled by the caller after Describe
}

func (r Report) String() string {
	s := fmt.Sprintf("%s: ok: universal %s binary (%.1f MB), version %s (%s), icon %d px",
		r.App, strings.Join(r.Archs, "+"), float64(r.Size)/1e6, r.Version, r.Build, r.IconPx)
	if r.Signature != "" {
		s += ", " + r.Signature
	}
	return s
}

// expectedFiles is the whole bundle tree; anything else is a mistake (a
// stray file breaks codesign's seal on a Mac). _CodeSignature appears once
// codesign has signed the bundle.
var expectedFiles = func() map[string]bool {
	m := map[string]bool{
		"Contents":                              true,
		"Contents/Info.plist":                   true,
		"Contents/PkgInfo":                      true,
		"Contents/MacOS":                        true,
		"Contents/MacOS/" + Executable:          true,
		"Contents/Resources":                    true,
		"Contents/Resources/AppIcon.icns":       true,
		"Contents/_CodeSignature":               true,
		"Contents/_CodeSignature/CodeResources": true,
	}
	for _, l := range Localizations() {
		m["Contents/Resources/"+l+".lproj"] = true
		m["Contents/Resources/"+l+".lproj/InfoPlist.strings"] = true
	}
	return m
}()

// lprojs checks that every .lproj the bundle holds is a language it
// declares (CFBundleLocalizations) and the other way round, and that each
// InfoPlist.strings gives every purpose string, translated (only en's is
// the English of Info.plist).
func (c *checker) lprojs(app string, info map[string]any) {
	res := filepath.Join(app, "Contents", "Resources")
	found, _ := filepath.Glob(filepath.Join(res, "*.lproj"))
	var names []string
	for _, f := range found {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".lproj"))
	}
	sort.Strings(names)
	declared := fmt.Sprint(info["CFBundleLocalizations"])
	want := append([]string{}, Localizations()...)
	sort.Strings(want)
	if fmt.Sprint(names) != fmt.Sprint(want) {
		c.bad("the bundle holds the .lproj folders %v, it declares %s", names, declared)
	}
	for _, l := range names {
		b, err := os.ReadFile(filepath.Join(res, l+".lproj", "InfoPlist.strings"))
		if err != nil {
			c.bad("%s.lproj: %v", l, err)
			continue
		}
		got := parseStrings(string(b))
		for _, k := range purposeKeys {
			en, _ := info[k].(string)
			switch v := got[k]; {
			case v == "":
				c.bad("%s.lproj/InfoPlist.strings lacks %s", l, k)
			case l != "en" && v == en:
				c.bad("%s.lproj/InfoPlist.strings: %s is not translated", l, k)
			}
		}
	}
}

// parseStrings reads the "KEY" = "VALUE"; lines of a .strings file.
func parseStrings(s string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), " = ")
		if !ok || !strings.HasSuffix(v, ";") {
			continue
		}
		uk, err1 := strconv.Unquote(k)
		uv, err2 := strconv.Unquote(strings.TrimSuffix(v, ";"))
		if err1 == nil && err2 == nil {
			out[uk] = uv
		}
	}
	return out
}

// Check checks a bundle's layout: nothing missing or extra, Info.plist keys
// and version, a universal Mach-O executable with the wanted architectures,
// PkgInfo, and an icon holding a 1024 px image.
func Check(app string, want Want) (Report, error) {
	rep := Report{App: app, Binary: filepath.Join(app, "Contents", "MacOS", Executable)}
	var c checker
	if err := c.layout(app); err != nil {
		return rep, fmt.Errorf("check %s: %w", app, err)
	}
	if err := c.err(app); err != nil {
		return rep, err
	}
	if err := c.info(app, want, &rep); err != nil {
		return rep, err
	}
	if err := c.binary(want, &rep); err != nil {
		return rep, err
	}
	c.icon(app, &rep)
	return rep, c.err(app)
}

// checker gathers what is wrong with a bundle, to say it all at once.
type checker struct{ problems []string }

func (c *checker) bad(f string, a ...any) { c.problems = append(c.problems, fmt.Sprintf(f, a...)) }

func (c *checker) err(app string) error {
	if len(c.problems) == 0 {
		return nil
	}
	return fmt.Errorf("check %s: %s", app, strings.Join(c.problems, "; "))
}

// layout compares the bundle's files with expectedFiles.
func (c *checker) layout(app string) error {
	seen := map[string]bool{}
	err := filepath.WalkDir(app, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(app, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		seen[rel] = true
		if !expectedFiles[rel] {
			c.bad("unexpected %s", rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for f := range expectedFiles {
		if !seen[f] && !strings.Contains(f, "_CodeSignature") {
			c.bad("missing %s", f)
		}
	}
	return nil
}

// info checks Info.plist (and the version asked for) and PkgInfo.
func (c *checker) info(app string, want Want, rep *Report) error {
	info, err := ReadInfo(filepath.Join(app, "Contents", "Info.plist"))
	if err != nil {
		return err
	}
	if err := CheckInfo(info); err != nil {
		c.bad("%v", err)
	}
	c.lprojs(app, info)
	rep.Version, _ = info["CFBundleShortVersionString"].(string)
	rep.Build, _ = info["CFBundleVersion"].(string)
	if want.Version != nil && (rep.Version != want.Version.Short || rep.Build != want.Version.Build || info["RAMBarSourceVersion"] != want.Version.Source) {
		c.bad("Info.plist version %s (%s) from %v, want %s (%s) from %s", rep.Version, rep.Build, info["RAMBarSourceVersion"], want.Version.Short, want.Version.Build, want.Version.Source)
	}
	if b, err := os.ReadFile(filepath.Join(app, "Contents", "PkgInfo")); err != nil || string(b) != "APPL????" {
		c.bad("PkgInfo is %q, want APPL????", b)
	}
	return nil
}

// binary checks the executable: a universal Mach-O of the architectures
// wanted, each slice an executable.
func (c *checker) binary(want Want, rep *Report) error {
	st, err := os.Stat(rep.Binary)
	if err != nil {
		return err
	}
	rep.Size = st.Size()
	if st.Mode().Perm()&0o111 != 0o111 {
		c.bad("%s is not executable (%v)", Executable, st.Mode())
	}
	fat, err := macho.OpenFat(rep.Binary)
	if err != nil {
		c.bad("%s is not a universal Mach-O: %v", Executable, err)
		return nil
	}
	defer fat.Close()
	for _, a := range fat.Arches {
		rep.Archs = append(rep.Archs, archName(a.Cpu))
		if a.Type != macho.TypeExec {
			c.bad("%s slice is %v, not an executable", archName(a.Cpu), a.Type)
		}
	}
	sort.Strings(rep.Archs)
	w := append([]string(nil), want.Archs...)
	sort.Strings(w)
	if strings.Join(rep.Archs, ",") != strings.Join(w, ",") {
		c.bad("architectures %v, want %v", rep.Archs, w)
	}
	return nil
}

// icon checks that AppIcon.icns holds a 1024 px image.
func (c *checker) icon(app string, rep *Report) {
	iconData, err := os.ReadFile(filepath.Join(app, "Contents", "Resources", "AppIcon.icns"))
	if err == nil {
		img, derr := decodeIcon(iconData)
		if derr != nil {
			c.bad("AppIcon.icns: %v", derr)
		} else {
			rep.IconPx = img.Bounds().Dx()
		}
	}
	if rep.IconPx != 1024 {
		c.bad("AppIcon.icns largest image is %d px, want 1024", rep.IconPx)
	}
}

func archName(c macho.Cpu) string {
	switch c {
	case macho.CpuArm64:
		return "arm64"
	case macho.CpuAmd64:
		return "x86_64"
	}
	return c.String()
}

// Signature is what `quill describe -o json` says about each slice.
type Signature struct {
	Slices []sliceSig
}

type sliceSig struct {
	File struct {
		CPU    string `json:"cpu"`
		SubCPU string `json:"subcpu"`
	} `json:"file"`
	SuperBlob *struct {
		CodeDirectories []struct {
			ID    string `json:"id"`
			Flags struct {
				Description string `json:"description"`
			} `json:"flags"`
			Version struct {
				Description string `json:"description"`
			} `json:"version"`
			PageDigests []struct {
				Offset    int64  `json:"offset"`
				Algorithm string `json:"algorithm"`
				Value     string `json:"value"`
			} `json:"pageDigests"`
		} `json:"codeDirectories"`
	} `json:"superBlob"`
}

// Describe runs `quill describe -o json` on a Mach-O file.
func Describe(ctx context.Context, r run.Runner, quill, file string) (Signature, error) {
	out, err := run.Output(ctx, r, quill, "describe", "-o", "json", file)
	if err != nil {
		return Signature{}, fmt.Errorf("quill describe %s: %w", file, err)
	}
	var sig Signature
	if err := json.Unmarshal(out, &sig.Slices); err != nil {
		return Signature{}, fmt.Errorf("quill describe %s: reading its JSON: %w", file, err)
	}
	return sig, nil
}

func (s Signature) String() string {
	pages := 0
	for _, sl := range s.Slices {
		if sl.SuperBlob != nil && len(sl.SuperBlob.CodeDirectories) > 0 {
			pages += len(sl.SuperBlob.CodeDirectories[0].PageDigests)
		}
	}
	return fmt.Sprintf("ad-hoc signed as %s (%d slices, %d page hashes checked against the file)", BundleID, len(s.Slices), pages)
}

// Verify checks that every slice of file is signed ad hoc as BundleID with
// the hardened-runtime code directory version, and recomputes each page's
// SHA-256 from the file itself, up to the signature, to compare with what
// the code directory holds.
func (s Signature) Verify(file string, archs []string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	fat, err := macho.NewFatFile(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("verify %s: %w", file, err)
	}
	if len(s.Slices) != len(fat.Arches) || len(s.Slices) != len(archs) {
		return fmt.Errorf("verify %s: quill describes %d slices, the file has %d, want %d", file, len(s.Slices), len(fat.Arches), len(archs))
	}
	for _, a := range fat.Arches {
		name := archName(a.Cpu)
		var sl *sliceSig
		for i := range s.Slices {
			if quillArch(s.Slices[i].File.SubCPU) == name {
				sl = &s.Slices[i]
			}
		}
		if sl == nil || sl.SuperBlob == nil || len(sl.SuperBlob.CodeDirectories) == 0 {
			return fmt.Errorf("verify %s: %s slice is not signed", file, name)
		}
		cd := sl.SuperBlob.CodeDirectories[0]
		if cd.ID != BundleID || cd.Flags.Description != "adhoc" {
			return fmt.Errorf("verify %s: %s slice signed as %q with flags %q, want %q adhoc", file, name, cd.ID, cd.Flags.Description, BundleID)
		}
		if cd.Version.Description != "Runtime" {
			return fmt.Errorf("verify %s: %s code directory version %q, want Runtime", file, name, cd.Version.Description)
		}
		slice := data[a.Offset : a.Offset+a.Size]
		limit, err := codeLimit(a.File, slice)
		if err != nil {
			return fmt.Errorf("verify %s: %s: %w", file, name, err)
		}
		want := int((limit + 4095) / 4096)
		if len(cd.PageDigests) != want {
			return fmt.Errorf("verify %s: %s has %d page hashes, the code is %d pages", file, name, len(cd.PageDigests), want)
		}
		for i, pd := range cd.PageDigests {
			end := min(pd.Offset+4096, limit)
			sum := sha256.Sum256(slice[pd.Offset:end])
			if pd.Algorithm != "sha256" || pd.Offset != int64(i)*4096 || pd.Value != hex.EncodeToString(sum[:]) {
				return fmt.Errorf("verify %s: %s page %d hash does not match the file", file, name, i)
			}
		}
	}
	return nil
}

// quillArch maps quill's subcpu names onto ours.
func quillArch(sub string) string {
	switch strings.ToLower(sub) {
	case "x86_64", "amd64":
		return "x86_64"
	case "arm64", "aarch64", "arm64_all":
		return "arm64"
	}
	return strings.ToLower(sub)
}

// codeLimit is where a slice's signature starts (LC_CODE_SIGNATURE dataoff):
// the pages before it are what the code directory hashes.
func codeLimit(f *macho.File, slice []byte) (int64, error) {
	const lcCodeSignature = 0x1d
	for _, l := range f.Loads {
		raw := l.Raw()
		if len(raw) >= 16 && f.ByteOrder.Uint32(raw[0:4]) == lcCodeSignature {
			off := int64(f.ByteOrder.Uint32(raw[8:12]))
			if off <= 0 || off > int64(len(slice)) {
				return 0, fmt.Errorf("signature offset %d outside the slice", off)
			}
			return off, nil
		}
	}
	return 0, errors.New("no LC_CODE_SIGNATURE: not signed")
}
