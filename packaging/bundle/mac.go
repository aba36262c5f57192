package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"rambar/internal/run"
)

// QuillSign signs the bundle's Mach-O ad hoc with quill, as BundleID with the
// hardened-runtime flag (Linux CI: quill signs Mach-O files, not the bundle
// seal, which only codesign on a Mac writes).
func QuillSign(ctx context.Context, r run.Runner, quill, app string, out io.Writer) error {
	bin := filepath.Join(app, "Contents", "MacOS", Executable)
	if _, err := run.Output(ctx, r, quill, "sign", "--ad-hoc", "--identity", BundleID, bin); err != nil {
		return fmt.Errorf("quill sign %s: %w", bin, err)
	}
	fmt.Fprintf(out, "signed %s ad hoc with quill\n", bin)
	return nil
}

// Codesign signs the bundle on a Mac with the hardened runtime (required for
// notarization): with a Developer ID identity and a secure timestamp, or ad
// hoc ("-") when identity is empty, then verifies the seal.
func Codesign(ctx context.Context, r run.Runner, app, identity string, out io.Writer) error {
	argv := []string{"codesign", "--force", "--options", "runtime", "--identifier", BundleID}
	if identity == "" {
		argv = append(argv, "--sign", "-", app)
	} else {
		argv = append(argv, "--timestamp", "--sign", identity, app)
	}
	if _, err := run.Output(ctx, r, argv...); err != nil {
		return fmt.Errorf("codesign %s: %w", app, err)
	}
	if _, err := run.Output(ctx, r, "codesign", "--verify", "--strict", "--verbose=2", app); err != nil {
		return fmt.Errorf("codesign --verify %s: %w", app, err)
	}
	how := "ad hoc (no Developer ID: set RAMBAR_SIGN_IDENTITY)"
	if identity != "" {
		how = "with " + identity
	}
	fmt.Fprintf(out, "signed %s %s\n", app, how)
	return nil
}

// macOSMajor reads the running macOS's major version from sw_vers.
func macOSMajor(ctx context.Context, r run.Runner) (int, error) {
	b, err := run.Output(ctx, r, "sw_vers", "-productVersion")
	if err != nil {
		return 0, fmt.Errorf("sw_vers: %w", err)
	}
	major, _, _ := strings.Cut(strings.TrimSpace(string(b)), ".")
	n, err := strconv.Atoi(major)
	if err != nil {
		return 0, fmt.Errorf("sw_vers -productVersion: %q is not a version", b)
	}
	return n, nil
}

// MakeDMG makes a compressed disk image holding the app and a link to
// /Applications to drag it onto. macOS 14 and later create it with
// `diskutil image create from` (hdiutil is deprecated in macOS 27); older
// ones with `hdiutil create`. With a Developer ID identity the image is
// signed too.
func MakeDMG(ctx context.Context, r run.Runner, app, dmg, identity string, out io.Writer) error {
	stage, err := os.MkdirTemp("", "rambar-dmg-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	// ditto keeps the signature, extended attributes and modes intact.
	if _, err := run.Output(ctx, r, "ditto", app, filepath.Join(stage, filepath.Base(app))); err != nil {
		return fmt.Errorf("ditto %s: %w", app, err)
	}
	if err := os.Symlink("/Applications", filepath.Join(stage, "Applications")); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dmg), 0o755); err != nil {
		return err
	}
	if err := os.Remove(dmg); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	major, err := macOSMajor(ctx, r)
	if err != nil {
		return err
	}
	vol := strings.TrimSuffix(filepath.Base(app), ".app")
	var argv []string
	if major >= 14 {
		argv = []string{"diskutil", "image", "create", "from", "--format", "UDZO", "--volumeName", vol, stage, dmg}
	} else {
		argv = []string{"hdiutil", "create", "-volname", vol, "-srcfolder", stage, "-fs", "HFS+", "-format", "UDZO", "-ov", dmg}
	}
	if _, err := run.Output(ctx, r, argv...); err != nil {
		return fmt.Errorf("%s %s %s: %w", argv[0], argv[1], dmg, err)
	}
	if identity != "" {
		if _, err := run.Output(ctx, r, "codesign", "--force", "--timestamp", "--sign", identity, dmg); err != nil {
			return fmt.Errorf("codesign %s: %w", dmg, err)
		}
	}
	fmt.Fprintf(out, "made %s with %s\n", dmg, argv[0])
	return nil
}

// NotaryAuth picks notarytool's credentials from the environment, in this
// order: a keychain profile (RAMBAR_NOTARY_PROFILE, made once with `xcrun
// notarytool store-credentials`), an App Store Connect API key
// (RAMBAR_NOTARY_KEY = the .p8 file, RAMBAR_NOTARY_KEY_ID,
// RAMBAR_NOTARY_ISSUER), or an Apple ID (RAMBAR_NOTARY_APPLE_ID,
// RAMBAR_NOTARY_TEAM_ID, RAMBAR_NOTARY_PASSWORD, an app-specific password).
func NotaryAuth(getenv func(string) string) ([]string, error) {
	if p := getenv("RAMBAR_NOTARY_PROFILE"); p != "" {
		return []string{"--keychain-profile", p}, nil
	}
	all := func(keys ...string) ([]string, bool) {
		var v []string
		for _, k := range keys {
			if getenv(k) == "" {
				return nil, false
			}
			v = append(v, getenv(k))
		}
		return v, true
	}
	if v, ok := all("RAMBAR_NOTARY_KEY", "RAMBAR_NOTARY_KEY_ID", "RAMBAR_NOTARY_ISSUER"); ok {
		return []string{"--key", v[0], "--key-id", v[1], "--issuer", v[2]}, nil
	}
	if v, ok := all("RAMBAR_NOTARY_APPLE_ID", "RAMBAR_NOTARY_TEAM_ID", "RAMBAR_NOTARY_PASSWORD"); ok {
		return []string{"--apple-id", v[0], "--team-id", v[1], "--password", v[2]}, nil
	}
	return nil, errors.New("notarize: no credentials: set RAMBAR_NOTARY_PROFILE, or RAMBAR_NOTARY_KEY, _KEY_ID and _ISSUER, or RAMBAR_NOTARY_APPLE_ID, _TEAM_ID and _PASSWORD (packaging/README.md)")
}

// submission is `notarytool submit --output-format json`'s answer.
type submission struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Message string `json:"message"`
}

// Notarize sends the disk image to Apple's notary service and waits, fetches
// the log when it is not accepted, then staples the ticket to the image and
// validates it, so Gatekeeper accepts the app offline on first open.
func Notarize(ctx context.Context, r run.Runner, dmg string, auth []string, out io.Writer) error {
	argv := append([]string{"xcrun", "notarytool", "submit", dmg, "--wait", "--output-format", "json"}, auth...)
	b, err := run.Output(ctx, r, argv...)
	var sub submission
	if jerr := json.Unmarshal(b, &sub); jerr != nil && err == nil {
		return fmt.Errorf("notarytool submit %s: reading its answer %q: %w", dmg, b, jerr)
	}
	if err != nil || sub.Status != "Accepted" {
		why := fmt.Sprintf("status %q: %s", sub.Status, sub.Message)
		if err != nil {
			why = err.Error()
		}
		if sub.ID != "" {
			logArgv := append([]string{"xcrun", "notarytool", "log", sub.ID}, auth...)
			if lb, lerr := run.Output(ctx, r, logArgv...); lerr == nil {
				out.Write(lb)
			}
		}
		return fmt.Errorf("notarytool submit %s: %s", dmg, why)
	}
	fmt.Fprintf(out, "notarized %s (submission %s)\n", dmg, sub.ID)
	if _, err := run.Output(ctx, r, "xcrun", "stapler", "staple", dmg); err != nil {
		return fmt.Errorf("stapler staple %s: %w", dmg, err)
	}
	if _, err := run.Output(ctx, r, "xcrun", "stapler", "validate", dmg); err != nil {
		return fmt.Errorf("stapler validate %s: %w", dmg, err)
	}
	fmt.Fprintf(out, "stapled %s\n", dmg)
	return nil
}
