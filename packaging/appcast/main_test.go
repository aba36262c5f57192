package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rambar/update"
)

func TestSignAndVerifyWithTheTestKey(t *testing.T) {
	seed, err := os.ReadFile("../../update/testdata/test-key")
	if err != nil {
		t.Fatal(err)
	}
	key, err := update.ParsePrivateKey(string(seed))
	if err != nil {
		t.Fatal(err)
	}
	pub := base64.StdEncoding.EncodeToString(key.Public().(ed25519.PublicKey))
	dir := t.TempDir()
	dmg, notes, cast := filepath.Join(dir, "RAMBar.dmg"), filepath.Join(dir, "notes.txt"), filepath.Join(dir, "appcast.xml")
	os.WriteFile(dmg, bytes.Repeat([]byte("dmg"), 1000), 0o644)
	os.WriteFile(notes, []byte("Check for Updates… & more\n"), 0o644)
	env := func(k string) string {
		if k == "RAMBAR_UPDATE_KEY" {
			return string(seed)
		}
		return ""
	}
	var out bytes.Buffer
	args := []string{"sign", "-dmg", dmg, "-version", "v1.3.0", "-build", "412", "-url", "https://example.invalid/RAMBar-v1.3.0.dmg",
		"-notes", notes, "-o", cast}
	// The built-in key is not the test key's public half: refused.
	if err := run(args, env, &out); err == nil || !strings.Contains(err.Error(), "not the key built into RAMBar") {
		t.Fatalf("signed with a key RAMBar does not know: %v", err)
	}
	if err := run(append(args, "-public", pub), env, &out); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"verify", "-appcast", cast, "-dmg", dmg, "-public", pub}, env, &out); err != nil {
		t.Fatal(err)
	}
	feed, _ := os.ReadFile(cast)
	signed, err := update.VerifyFeed(feed, key.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	rels, err := update.ParseAppcast(signed)
	if err != nil || len(rels) != 1 || rels[0].Version != "1.3.0" || rels[0].Build != "412" || rels[0].Notes != "Check for Updates… & more" {
		t.Fatalf("%+v %v", rels, err)
	}
	for _, want := range []string{`xmlns:sparkle="http://www.andymatuschak.org/xml-namespaces/sparkle"`, "<sparkle:version>412</sparkle:version>",
		"<sparkle:shortVersionString>1.3.0</sparkle:shortVersionString>", `sparkle:edSignature="`, `length="3000"`, "<!-- sparkle-signatures:\nedSignature: "} {
		if !strings.Contains(string(feed), want) {
			t.Errorf("the appcast lacks %q", want)
		}
	}
	// Another dmg does not verify against it.
	os.WriteFile(dmg, bytes.Repeat([]byte("DMG"), 1000), 0o644)
	if err := run([]string{"verify", "-appcast", cast, "-dmg", dmg, "-public", pub}, env, &out); err == nil {
		t.Error("a swapped dmg verified")
	}
	if err := run(append(args[:len(args):len(args)], "-public", pub), func(string) string { return "" }, &out); err == nil {
		t.Error("signed without RAMBAR_UPDATE_KEY")
	}
}

func TestGenkey(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"genkey"}, nil, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	k, err := update.ParsePrivateKey(lines[1])
	if err != nil {
		t.Fatal(err)
	}
	p, err := update.ParsePublicKey(lines[3])
	if err != nil || !p.Equal(k.Public()) {
		t.Errorf("genkey's halves do not match: %v", err)
	}
}
