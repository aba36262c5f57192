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
	o, err := parseOpts(args, getenv)
	if err != nil {
		return err
	}
	switch args[0] {
	case "app":
		return o.assemble(out)
	case "icns":
		if err := o.need("icon", o.icon, "o", o.out); err != nil {
			return err
		}
		return WriteICNS(o.icon, o.out)
	case "sign":
		if err := o.need("app", o.app); err != nil {
			return err
		}
		if o.quill != "" {
			return QuillSign(ctx, r, o.quill, o.app, out)
		}
		return Codesign(ctx, r, o.app, o.identity, out)
	case "check":
		return o.check(ctx, r, out)
	case "dmg":
		if err := o.need("app", o.app, "o", o.out); err != nil {
			return err
		}
		return MakeDMG(ctx, r, o.app, o.out, o.identity, out)
	case "notarize":
		return o.notarize(ctx, r, getenv, out)
	}
	return errUsage
}

// opts are the verbs' flags.
type opts struct {
	verb                                 string
	bin, out, version, build, info, icon string
	icns, app, identity, quill, archs    string
	dmg                                  string
}

func parseOpts(args []string, getenv func(string) string) (opts, error) {
	o := opts{verb: args[0]}
	fl := flag.NewFlagSet("bundle "+args[0], flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.StringVar(&o.bin, "bin", "", "the darwin binary (universal or thin)")
	fl.StringVar(&o.out, "o", "", "what to write")
	fl.StringVar(&o.version, "version", "", "version from git describe")
	fl.StringVar(&o.build, "build", "", "build number (commits)")
	fl.StringVar(&o.info, "info", "Info.plist", "the Info.plist template")
	fl.StringVar(&o.icon, "icon", "assets/appicon.png", "the 1024 px app icon")
	fl.StringVar(&o.icns, "icns", "", "a ready .icns (make icons); default: made from -icon")
	fl.StringVar(&o.app, "app", "", "the .app bundle")
	fl.StringVar(&o.identity, "identity", getenv("RAMBAR_SIGN_IDENTITY"), "codesign identity; empty: ad hoc")
	fl.StringVar(&o.quill, "quill", "", "path to quill: sign or describe with it")
	fl.StringVar(&o.archs, "arch", "arm64,x86_64", "architectures the binary must hold")
	fl.StringVar(&o.dmg, "dmg", "", "the disk image")
	if err := fl.Parse(args[1:]); err != nil {
		return o, fmt.Errorf("%s: %w", args[0], err)
	}
	if fl.NArg() > 0 {
		return o, fmt.Errorf("%s: unexpected argument %q", args[0], fl.Arg(0))
	}
	return o, nil
}

// need refuses a verb whose required flags (name, value pairs) are empty.
func (o opts) need(pairs ...string) error {
	for i := 0; i < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			return fmt.Errorf("%s: -%s is required", o.verb, pairs[i])
		}
	}
	return nil
}

func (o opts) assemble(out io.Writer) error {
	if err := o.need("bin", o.bin, "o", o.out, "version", o.version); err != nil {
		return err
	}
	v := ParseVersion(o.version, o.build)
	spec := AppSpec{Binary: o.bin, Out: o.out, InfoPlist: o.info, Icon: o.icon, Version: v}
	if o.icns != "" {
		data, err := os.ReadFile(o.icns)
		if err != nil {
			return err
		}
		spec.ICNS = data
	}
	if err := Assemble(spec); err != nil {
		return err
	}
	fmt.Fprintf(out, "assembled %s (version %s, build %s)\n", o.out, v.Short, v.Build)
	return nil
}

func (o opts) check(ctx context.Context, r run.Runner, out io.Writer) error {
	if err := o.need("app", o.app); err != nil {
		return err
	}
	want := Want{Archs: strings.Split(o.archs, ",")}
	if o.version != "" {
		v := ParseVersion(o.version, o.build)
		want.Version = &v
	}
	rep, err := Check(o.app, want)
	if err != nil {
		return err
	}
	if o.quill != "" {
		sig, err := Describe(ctx, r, o.quill, rep.Binary)
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
}

func (o opts) notarize(ctx context.Context, r run.Runner, getenv func(string) string, out io.Writer) error {
	if (o.app == "") == (o.dmg == "") {
		return fmt.Errorf("%s: one of -app or -dmg is required", o.verb)
	}
	target := o.dmg
	if o.app != "" {
		target = o.app
	}
	auth, err := NotaryAuth(getenv)
	if err != nil {
		return err
	}
	return Notarize(ctx, r, target, auth, out)
}
