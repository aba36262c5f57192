package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rambar/internal/run"
	"rambar/internal/run/runtest"
)

type call = runtest.Call
type reply = runtest.Reply

func TestCodesign(t *testing.T) {
	tests := []struct {
		name     string
		identity string
		calls    []call
		wantErr  string
	}{
		{"ad hoc", "", []call{
			{Argv: []string{"codesign", "--force", "--options", "runtime", "--identifier", BundleID, "--sign", "-", "dist/RAMBar.app"}},
			{Argv: []string{"codesign", "--verify", "--strict", "--verbose=2", "dist/RAMBar.app"}},
		}, ""},
		{"developer id", "Developer ID Application: Ada L (TEAM123456)", []call{
			{Argv: []string{"codesign", "--force", "--options", "runtime", "--identifier", BundleID, "--timestamp", "--sign", "Developer ID Application: Ada L (TEAM123456)", "dist/RAMBar.app"}},
			{Argv: []string{"codesign", "--verify", "--strict", "--verbose=2", "dist/RAMBar.app"}},
		}, ""},
		{"no such identity", "Developer ID Application: Nobody", []call{
			{Argv: []string{"codesign", "--force", "--options", "runtime", "--identifier", BundleID, "--timestamp", "--sign", "Developer ID Application: Nobody", "dist/RAMBar.app"},
				Reply: reply{Stderr: "Developer ID Application: Nobody: no identity found\n", Exit: 1}},
		}, "no identity found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := Codesign(context.Background(), runtest.NewScript(t, tt.calls...), "dist/RAMBar.app", tt.identity, &out)
			if (tt.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Codesign = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestQuillSign(t *testing.T) {
	s := runtest.NewScript(t, call{Argv: []string{"/w/bin/quill", "sign", "--ad-hoc", "--identity", BundleID, "d/RAMBar.app/Contents/MacOS/rambar"}})
	if err := QuillSign(context.Background(), s, "/w/bin/quill", "d/RAMBar.app", &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
}

// dmgScript expects MakeDMG's calls for one macOS version.
func dmgScript(t *testing.T, version string, create []string, createReply reply, extra ...call) *runtest.Script {
	return runtest.NewScript(t, append([]call{
		{Argv: []string{"ditto", "dist/RAMBar.app", "STAGE/RAMBar.app"}},
		{Argv: []string{"sw_vers", "-productVersion"}, Reply: reply{Stdout: version + "\n"}},
		{Argv: create, Reply: createReply},
	}, extra...)...)
}

// stageFake names MakeDMG's random staging folder STAGE in argv before the
// script sees it, and checks the folder holds the Applications link when the
// image is made from it.
type stageFake struct {
	t *testing.T
	s *runtest.Script
}

func (f stageFake) Run(ctx context.Context, c run.Cmd) (run.Result, error) {
	argv := append([]string(nil), c.Argv...)
	for i, a := range argv {
		if strings.Contains(a, "rambar-dmg-") {
			stage := a
			if strings.HasSuffix(a, ".app") {
				stage = filepath.Dir(a)
			} else if dest, err := os.Readlink(filepath.Join(stage, "Applications")); err != nil || dest != "/Applications" {
				f.t.Errorf("staging folder has no Applications link: %q, %v", dest, err)
			}
			argv[i] = strings.Replace(a, stage, "STAGE", 1)
		}
	}
	c.Argv = argv
	return f.s.Run(ctx, c)
}

// tmpFake names Notarize's temporary zip folder TMP in argv.
type tmpFake struct{ s *runtest.Script }

func (f tmpFake) Run(ctx context.Context, c run.Cmd) (run.Result, error) {
	argv := append([]string(nil), c.Argv...)
	for i, a := range argv {
		if strings.Contains(a, "rambar-notarize-") {
			argv[i] = filepath.Join("TMP", filepath.Base(a))
		}
	}
	c.Argv = argv
	return f.s.Run(ctx, c)
}

func TestMakeDMG(t *testing.T) {
	tests := []struct {
		name     string
		macOS    string
		identity string
		create   []string
		reply    reply
		extra    []call
		wantErr  string
	}{
		{"macOS 27: diskutil image", "27.0", "",
			[]string{"diskutil", "image", "create", "from", "--format", "UDZO", "--volumeName", "RAMBar", "STAGE", "OUT/RAMBar.dmg"}, reply{}, nil, ""},
		{"macOS 26: hdiutil", "26.4.1", "",
			[]string{"hdiutil", "create", "-volname", "RAMBar", "-srcfolder", "STAGE", "-fs", "HFS+", "-format", "UDZO", "-ov", "OUT/RAMBar.dmg"}, reply{}, nil, ""},
		{"macOS 14: hdiutil", "14.6.1", "",
			[]string{"hdiutil", "create", "-volname", "RAMBar", "-srcfolder", "STAGE", "-fs", "HFS+", "-format", "UDZO", "-ov", "OUT/RAMBar.dmg"}, reply{}, nil, ""},
		{"macOS 27: diskutil verb missing, hdiutil", "27.0", "",
			[]string{"diskutil", "image", "create", "from", "--format", "UDZO", "--volumeName", "RAMBar", "STAGE", "OUT/RAMBar.dmg"},
			reply{Stdout: "Usage:  diskutil [quiet] <verb> <options>\n", Exit: 1},
			[]call{{Argv: []string{"hdiutil", "create", "-volname", "RAMBar", "-srcfolder", "STAGE", "-fs", "HFS+", "-format", "UDZO", "-ov", "OUT/RAMBar.dmg"}}}, ""},
		{"signed image", "27.1", "Developer ID Application: Ada L (TEAM123456)",
			[]string{"diskutil", "image", "create", "from", "--format", "UDZO", "--volumeName", "RAMBar", "STAGE", "OUT/RAMBar.dmg"}, reply{},
			[]call{{Argv: []string{"codesign", "--force", "--timestamp", "--sign", "Developer ID Application: Ada L (TEAM123456)", "OUT/RAMBar.dmg"}}}, ""},
		{"create fails: no fallback", "27.0", "",
			[]string{"diskutil", "image", "create", "from", "--format", "UDZO", "--volumeName", "RAMBar", "STAGE", "OUT/RAMBar.dmg"},
			reply{Stderr: "Error: -69877: Couldn't open device\n", Exit: 1}, nil, "Couldn't open device"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			create := append([]string(nil), tt.create...)
			for i, a := range create {
				create[i] = strings.Replace(a, "OUT", out, 1)
			}
			extra := append([]call(nil), tt.extra...)
			for i := range extra {
				extra[i].Argv = append([]string(nil), extra[i].Argv...)
				for j, a := range extra[i].Argv {
					extra[i].Argv[j] = strings.Replace(a, "OUT", out, 1)
				}
			}
			s := dmgScript(t, tt.macOS, create, tt.reply, extra...)
			err := MakeDMG(context.Background(), stageFake{t: t, s: s}, "dist/RAMBar.app", out+"/RAMBar.dmg", tt.identity, &bytes.Buffer{})
			if (tt.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("MakeDMG = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestNotaryAuth(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"RAMBAR_NOTARY_PROFILE": "rambar", "RAMBAR_NOTARY_KEY": "k.p8"}, "--keychain-profile rambar"},
		{map[string]string{"RAMBAR_NOTARY_KEY": "/tmp/k.p8", "RAMBAR_NOTARY_KEY_ID": "ABC", "RAMBAR_NOTARY_ISSUER": "iss"}, "--key /tmp/k.p8 --key-id ABC --issuer iss"},
		{map[string]string{"RAMBAR_NOTARY_KEY": "/tmp/k.p8", "RAMBAR_NOTARY_APPLE_ID": "a@b", "RAMBAR_NOTARY_TEAM_ID": "T", "RAMBAR_NOTARY_PASSWORD": "p"}, "--apple-id a@b --team-id T --password p"},
		{map[string]string{"RAMBAR_NOTARY_KEY": "/tmp/k.p8"}, "error"},
		{nil, "error"},
	}
	for _, tt := range tests {
		got, err := NotaryAuth(func(k string) string { return tt.env[k] })
		s := strings.Join(got, " ")
		if err != nil {
			s = "error"
		}
		if s != tt.want {
			t.Errorf("NotaryAuth(%v) = %q, want %q", tt.env, s, tt.want)
		}
	}
}

func TestNotarize(t *testing.T) {
	auth := []string{"--keychain-profile", "rambar"}
	submit := []string{"xcrun", "notarytool", "submit", "RAMBar.dmg", "--wait", "--output-format", "json", "--keychain-profile", "rambar"}
	accepted := `{"id":"2efe2717-52ef-43a5-96dc-0797e4ca1041","status":"Accepted","message":"Processing complete"}`
	invalid := `{"id":"2efe2717-52ef-43a5-96dc-0797e4ca1041","status":"Invalid","message":"Processing complete"}`
	tests := []struct {
		name    string
		calls   []call
		wantErr string
		wantOut string
	}{
		{"accepted", []call{
			{Argv: submit, Reply: reply{Stdout: accepted}},
			{Argv: []string{"xcrun", "stapler", "staple", "RAMBar.dmg"}, Reply: reply{Stdout: "The staple and validate action worked!\n"}},
			{Argv: []string{"xcrun", "stapler", "validate", "RAMBar.dmg"}, Reply: reply{Stdout: "The validate action worked!\n"}},
		}, "", "stapled RAMBar.dmg"},
		{"invalid: the log is shown", []call{
			{Argv: submit, Reply: reply{Stdout: invalid}},
			{Argv: []string{"xcrun", "notarytool", "log", "2efe2717-52ef-43a5-96dc-0797e4ca1041", "--keychain-profile", "rambar"},
				Reply: reply{Stdout: `{"issues":[{"message":"The executable does not have the hardened runtime enabled."}]}`}},
		}, `status "Invalid"`, "hardened runtime"},
		{"submit fails", []call{
			{Argv: submit, Reply: reply{Stderr: "Error: HTTP status code: 401. Unable to authenticate.\n", Exit: 69}},
		}, "Unable to authenticate", ""},
		{"the app: zipped, sent, stapled itself", []call{
			{Argv: []string{"ditto", "-c", "-k", "--keepParent", "dist/RAMBar.app", "TMP/RAMBar.zip"}},
			{Argv: []string{"xcrun", "notarytool", "submit", "TMP/RAMBar.zip", "--wait", "--output-format", "json", "--keychain-profile", "rambar"}, Reply: reply{Stdout: accepted}},
			{Argv: []string{"xcrun", "stapler", "staple", "dist/RAMBar.app"}, Reply: reply{Stdout: "The staple and validate action worked!\n"}},
			{Argv: []string{"xcrun", "stapler", "validate", "dist/RAMBar.app"}, Reply: reply{Stdout: "The validate action worked!\n"}},
		}, "", "stapled dist/RAMBar.app"},
		{"staple fails", []call{
			{Argv: submit, Reply: reply{Stdout: accepted}},
			{Argv: []string{"xcrun", "stapler", "staple", "RAMBar.dmg"}, Reply: reply{Stderr: "CloudKit query for RAMBar.dmg failed due to \"Record not found\".\n", Exit: 65}},
		}, "Record not found", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			target := "RAMBar.dmg"
			if strings.HasPrefix(tt.name, "the app") {
				target = "dist/RAMBar.app"
			}
			err := Notarize(context.Background(), tmpFake{runtest.NewScript(t, tt.calls...)}, target, auth, &out)
			if (tt.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Notarize = %v, want %q", err, tt.wantErr)
			}
			if !strings.Contains(out.String(), tt.wantOut) {
				t.Errorf("output %q, want %q", out.String(), tt.wantOut)
			}
		})
	}
}
