// Command appcast makes and checks RAMBar's update feed: an appcast in
// Sparkle's format listing one release, its dmg signed with Ed25519
// (sparkle:edSignature) and the feed signed as a whole (Sparkle's signed-feed
// trailer), with the key whose public half is built into RAMBar
// (update.PublicKey).
//
//	go run ./packaging/appcast genkey
//	    prints a new key pair: the private half for the secret, the public
//	    half for update/key.go
//	RAMBAR_UPDATE_KEY=… go run ./packaging/appcast sign -dmg dist/RAMBar.dmg \
//	    -version 1.3.0 -build 412 -url https://…/RAMBar-v1.3.0.dmg -notes notes.txt -o dist/appcast.xml
//	    signs with the private key in RAMBAR_UPDATE_KEY (base64), and refuses
//	    one whose public half is not the built-in key
//	go run ./packaging/appcast verify -appcast dist/appcast.xml -dmg dist/RAMBar.dmg
//	    checks both as RAMBar will
package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"rambar/update"
)

func main() {
	if err := run(os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "appcast: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, getenv func(string) string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: appcast genkey | sign … | verify … (see the comment at the top of packaging/appcast/main.go)")
	}
	switch args[0] {
	case "genkey":
		pub, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "private key (the secret SPARKLE_ED_PRIVATE_KEY; never commit it):\n%s\npublic key (update.PublicKey in update/key.go):\n%s\n",
			base64.StdEncoding.EncodeToString(priv.Seed()), base64.StdEncoding.EncodeToString(pub))
		return nil
	case "sign":
		return sign(args[1:], getenv, out)
	case "verify":
		return verify(args[1:], out)
	}
	return fmt.Errorf("unknown verb %q: genkey, sign or verify", args[0])
}

func sign(args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet("sign", flag.ContinueOnError)
	dmg := fs.String("dmg", "", "the notarized dmg")
	ver := fs.String("version", "", "the release's version (v1.3.0 or 1.3.0)")
	build := fs.String("build", "", "its build number (CFBundleVersion)")
	addr := fs.String("url", "", "the dmg's https address")
	notes := fs.String("notes", "", "a file of release notes, plain text (optional)")
	minOS := fs.String("min-system", "13.0", "the oldest macOS it runs on")
	o := fs.String("o", "", "the appcast to write")
	public := fs.String("public", update.PublicKey, "the public key the signatures must verify with")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dmg == "" || *ver == "" || *addr == "" || *o == "" {
		return errors.New("sign needs -dmg, -version, -url and -o")
	}
	if !strings.HasPrefix(*addr, "https://") {
		return fmt.Errorf("-url %q: RAMBar fetches only https", *addr)
	}
	secret := getenv("RAMBAR_UPDATE_KEY")
	if secret == "" {
		return errors.New("RAMBAR_UPDATE_KEY is not set: it holds the update signing key's private half (base64), from the secret SPARKLE_ED_PRIVATE_KEY")
	}
	key, err := update.ParsePrivateKey(secret)
	if err != nil {
		return fmt.Errorf("RAMBAR_UPDATE_KEY: %v", err)
	}
	pub, err := update.ParsePublicKey(*public)
	if err != nil {
		return fmt.Errorf("-public: %v", err)
	}
	if !pub.Equal(key.Public()) {
		return fmt.Errorf("RAMBAR_UPDATE_KEY's public half is %s, not the key built into RAMBar (%s): RAMBar would refuse this appcast; put the right secret, or the new public key in update/key.go",
			base64.StdEncoding.EncodeToString(key.Public().(ed25519.PublicKey)), *public)
	}
	data, err := os.ReadFile(*dmg)
	if err != nil {
		return err
	}
	text := ""
	if *notes != "" {
		b, err := os.ReadFile(*notes)
		if err != nil {
			return err
		}
		text = strings.TrimSpace(string(b))
	}
	v := strings.TrimPrefix(*ver, "v")
	if _, err := update.Compare(v, v); err != nil {
		return fmt.Errorf("-version: %v", err)
	}
	b := *build
	if b == "" {
		b = v
	}
	r := update.Release{Version: v, Build: b, Title: "RAMBar " + v, Notes: text, Published: time.Now(),
		MinimumSystemVersion: *minOS, URL: *addr, Length: int64(len(data)), Signature: ed25519.Sign(key, data)}
	feed := update.SignFeed(update.WriteAppcast("RAMBar", []update.Release{r}), key)
	if err := check(feed, data, pub); err != nil {
		return fmt.Errorf("the appcast just made does not verify: %v", err)
	}
	if err := os.WriteFile(*o, feed, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: RAMBar %s, %d bytes at %s, signed\n", *o, v, len(data), *addr)
	return nil
}

func verify(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	cast := fs.String("appcast", "", "the signed appcast")
	dmg := fs.String("dmg", "", "the dmg it lists (optional)")
	public := fs.String("public", update.PublicKey, "the public key")
	if err := fs.Parse(args); err != nil {
		return err
	}
	pub, err := update.ParsePublicKey(*public)
	if err != nil {
		return fmt.Errorf("-public: %v", err)
	}
	feed, err := os.ReadFile(*cast)
	if err != nil {
		return err
	}
	var data []byte
	if *dmg != "" {
		if data, err = os.ReadFile(*dmg); err != nil {
			return err
		}
	}
	if err := check(feed, data, pub); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s verifies\n", *cast)
	return nil
}

// check verifies the feed and, when dmg is not nil, that its one release is
// that dmg.
func check(feed, dmg []byte, pub ed25519.PublicKey) error {
	signed, err := update.VerifyFeed(feed, pub)
	if err != nil {
		return fmt.Errorf("the appcast's %v", err)
	}
	rels, err := update.ParseAppcast(signed)
	if err != nil {
		return err
	}
	if dmg == nil {
		return nil
	}
	r := rels[0]
	if r.Length != int64(len(dmg)) || !ed25519.Verify(pub, dmg, r.Signature) {
		return fmt.Errorf("the dmg does not match the appcast's release %s (length or signature)", r.Version)
	}
	return nil
}
