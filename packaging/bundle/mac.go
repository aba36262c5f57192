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

// diskutilImageSince is the first macOS major version where the dmg is made
// with `diskutil image create from`: 27, where hdiutil is deprecated (the
// same probe as the engine's attach, darwin/README.md).
const diskutilImageSince = 27

// MakeDMG makes a compressed disk image holding the app and a link to
// /Applications to drag it onto: `hdiutil create` through macOS 26,
// `diskutil image create from` from 27, falling back to hdiutil where the
// diskutil verb is missing (its usage text, no image made). With a Developer
// ID identity the image is signed too. Make it from an app that is already
// stapled (Notarize on the .app), so the copy dragged to /Applications
// carries its own ticket.
func MakeDMG(ctx context.Context, r run.Runner, app, dmg, identity string, out io.Writer) error {
	stage, err := os.MkdirTemp("", "rambar-dmg-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	// ditto keeps the signature, the stapled ticket, extended attributes and modes intact.
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
	hd := []string{"hdiutil", "create", "-volname", vol, "-srcfolder", stage, "-fs", "HFS+", "-format", "UDZO", "-ov", dmg}
	argv := hd
	if major >= diskutilImageSince {
		argv = []string{"diskutil", "image", "create", "from", "--format", "UDZO", "--volumeName", vol, stage, dmg}
	}
	res, err := r.Run(ctx, run.Cmd{Argv: argv})
	if err != nil && argv[0] == "diskutil" && verbMissing(res) {
		if _, statErr := os.Stat(dmg); errors.Is(statErr, os.ErrNotExist) {
			fmt.Fprintf(out, "diskutil image create is missing here; using hdiutil create\n")
			argv = hd
			_, err = r.Run(ctx, run.Cmd{Argv: argv})
		}
	}
	if err != nil {
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

// verbMissing reports diskutil answering with its usage text: a verb this
// macOS does not have.
func verbMissing(res run.Result) bool {
	return strings.Contains(string(res.Stdout)+string(res.Stderr), "Usage:")
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

// Notarize sends the app or the disk image to Apple's notary service and
// waits, fetches the log when it is not accepted, then staples the ticket to
// it and validates it, so Gatekeeper accepts it offline on first open. An
// .app is sent as a zip (ditto -c -k --keepParent) and the ticket stapled to
// the bundle itself: staple the app before making the dmg from it, so the
// copy in /Applications has its own ticket.
func Notarize(ctx context.Context, r run.Runner, path string, auth []string, out io.Writer) error {
	send := path
	if strings.HasSuffix(path, ".app") {
		dir, err := os.MkdirTemp("", "rambar-notarize-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		send = filepath.Join(dir, strings.TrimSuffix(filepath.Base(path), ".app")+".zip")
		if _, err := run.Output(ctx, r, "ditto", "-c", "-k", "--keepParent", path, send); err != nil {
			return fmt.Errorf("ditto -c -k %s: %w", path, err)
		}
	}
	argv := append([]string{"xcrun", "notarytool", "submit", send, "--wait", "--output-format", "json"}, auth...)
	b, err := run.Output(ctx, r, argv...)
	var sub submission
	if jerr := json.Unmarshal(b, &sub); jerr != nil && err == nil {
		return fmt.Errorf("notarytool submit %s: reading its answer %q: %w", path, b, jerr)
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
		return fmt.Errorf("notarytool submit %s: %s", path, why)
	}
	fmt.Fprintf(out, "notarized %s (submission %s)\n", path, sub.ID)
	if _, err := run.Output(ctx, r, "xcrun", "stapler", "staple", path); err != nil {
		return fmt.Errorf("stapler staple %s: %w", path, err)
	}
	if _, err := run.Output(ctx, r, "xcrun", "stapler", "validate", path); err != nil {
		return fmt.Errorf("stapler validate %s: %w", path, err)
	}
	fmt.Fprintf(out, "stapled %s\n", path)
	return nil
}
