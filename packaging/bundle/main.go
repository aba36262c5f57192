// Command bundle builds, signs, checks and ships RAMBar.app. The Makefile
// drives it (make app, dmg, notarize on a Mac; make bundle-check and icons
// anywhere). Every tool it starts goes through internal/run: argv only, never
// a shell string, so signing identities and paths are passed as they are.
//
//	bundle app      -bin FILE -o DIR.app -version V [-build N] [-info Info.plist] [-icon PNG | -icns FILE]
//	bundle icns     -icon PNG -o FILE.icns
//	bundle sign     -app DIR.app [-identity ID] [-quill PATH]
//	bundle check    -app DIR.app [-version V] [-quill PATH] [-arch arm64,x86_64]
//	bundle dmg      -app DIR.app -o FILE.dmg
//	bundle notarize -app DIR.app | -dmg FILE.dmg
//
// sign: with -quill, the Mach-O is signed ad hoc by quill (Linux CI);
// otherwise codesign signs the bundle with the hardened runtime, using
// -identity or $RAMBAR_SIGN_IDENTITY (a Developer ID), ad hoc when neither is
// set. notarize reads its credentials from the environment (README.md); the
// release notarizes and staples the app, makes the dmg from it, then
// notarizes and staples the dmg.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"rambar/internal/run"
)

// BundleID is RAMBar's bundle identifier and code-signing identifier.
const BundleID = "app.rambar.RAMBar"

// Executable is the program's name inside Contents/MacOS.
const Executable = "rambar"

func main() {
	if err := Main(context.Background(), os.Args[1:], os.Stdout, os.Getenv, run.System()); err != nil {
		fmt.Fprintln(os.Stderr, "bundle:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New(`usage: bundle app|icns|sign|check|dmg|notarize [flags] (see packaging/README.md)`)

// Main runs one subcommand.
func Main(ctx context.Context, args []string, out io.Writer, getenv func(string) string, r run.Runner) error {
	if len(args) == 0 {
		return errUsage
	}
	fl := flag.NewFlagSet("bundle "+args[0], flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	var (
		bin      = fl.String("bin", "", "the darwin binary (universal or thin)")
		outPath  = fl.String("o", "", "what to write")
		version  = fl.String("version", "", "version from git describe")
		build    = fl.String("build", "", "build number (commits)")
		info     = fl.String("info", "Info.plist", "the Info.plist template")
		icon     = fl.String("icon", "assets/appicon.png", "the 1024 px app icon")
		icnsFile = fl.String("icns", "", "a ready .icns (make icons); default: made from -icon")
		app      = fl.String("app", "", "the .app bundle")
		identity = fl.String("identity", getenv("RAMBAR_SIGN_IDENTITY"), "codesign identity; empty: ad hoc")
		quill    = fl.String("quill", "", "path to quill: sign or describe with it")
		archs    = fl.String("arch", "arm64,x86_64", "architectures the binary must hold")
		dmg      = fl.String("dmg", "", "the disk image")
	)
	if err := fl.Parse(args[1:]); err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	if fl.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q", args[0], fl.Arg(0))
	}
	need := func(pairs ...string) error {
		for i := 0; i < len(pairs); i += 2 {
			if pairs[i+1] == "" {
				return fmt.Errorf("%s: -%s is required", args[0], pairs[i])
			}
		}
		return nil
	}
	switch args[0] {
	case "app":
		if err := need("bin", *bin, "o", *outPath, "version", *version); err != nil {
			return err
		}
		v := ParseVersion(*version, *build)
		spec := AppSpec{Binary: *bin, Out: *outPath, InfoPlist: *info, Icon: *icon, Version: v}
		if *icnsFile != "" {
			data, err := os.ReadFile(*icnsFile)
			if err != nil {
				return err
			}
			spec.ICNS = data
		}
		if err := Assemble(spec); err != nil {
			return err
		}
		fmt.Fprintf(out, "assembled %s (version %s, build %s)\n", *outPath, v.Short, v.Build)
		return nil
	case "icns":
		if err := need("icon", *icon, "o", *outPath); err != nil {
			return err
		}
		return WriteICNS(*icon, *outPath)
	case "sign":
		if err := need("app", *app); err != nil {
			return err
		}
		if *quill != "" {
			return QuillSign(ctx, r, *quill, *app, out)
		}
		return Codesign(ctx, r, *app, *identity, out)
	case "check":
		if err := need("app", *app); err != nil {
			return err
		}
		want := Want{Archs: strings.Split(*archs, ",")}
		if *version != "" {
			v := ParseVersion(*version, *build)
			want.Version = &v
		}
		rep, err := Check(*app, want)
		if err != nil {
			return err
		}
		if *quill != "" {
			sig, err := Describe(ctx, r, *quill, rep.Binary)
			if err != nil {
				return err
			}
			if err := sig.Verify(rep.Binary, want.Archs); err != nil {
				return err
			}
			rep.Signature = sig.String()
		}
		fmt.Fprintln(out, rep)
		return nil
	case "dmg":
		if err := need("app", *app, "o", *outPath); err != nil {
			return err
		}
		return MakeDMG(ctx, r, *app, *outPath, *identity, out)
	case "notarize":
		target := *dmg
		if *app != "" {
			target = *app
		}
		if (*app == "") == (*dmg == "") {
			return fmt.Errorf("%s: one of -app or -dmg is required", args[0])
		}
		auth, err := NotaryAuth(getenv)
		if err != nil {
			return err
		}
		return Notarize(ctx, r, target, auth, out)
	}
	return errUsage
}
