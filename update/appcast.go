package update

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Release is one item of the appcast: a version of RAMBar and its dmg.
type Release struct {
	// Version is the version people read (sparkle:shortVersionString,
	// "1.3.0"); Build is CFBundleVersion (sparkle:version), the commit count.
	Version string
	Build   string
	Title   string
	// Notes are the release notes, plain text.
	Notes     string
	Published time.Time
	// MinimumSystemVersion is the oldest macOS it runs on ("13.0").
	MinimumSystemVersion string
	// URL is the dmg's https address, Length its size in bytes and
	// Signature the Ed25519 signature of its bytes (sparkle:edSignature).
	URL       string
	Length    int64
	Signature []byte
}

// The errors a check or a download can end with; each is wrapped in a
// sentence that says which file and what to do.
var (
	ErrUnsigned     = errors.New("signature is missing")
	ErrBadSignature = errors.New("signature does not match RAMBar's update key")
	ErrDowngrade    = errors.New("is older than this RAMBar")
	ErrIncomplete   = errors.New("is incomplete")
	ErrNoAnswer     = errors.New("no answer")
	ErrNotTrusted   = errors.New("not signed by a Developer ID or not notarized")
)

// maxAppcast is the most an appcast may weigh; more is refused unread.
const maxAppcast = 1 << 20

// maxDmg is the largest dmg an appcast may announce.
const maxDmg = 1 << 30

// The signed-feed trailer Sparkle 2's sign_update appends: an Ed25519
// signature of every byte before it, and how many bytes that is.
const trailerMark = "<!-- sparkle-signatures:"

var trailerRE = regexp.MustCompile(`\A<!-- sparkle-signatures:\nedSignature: ([A-Za-z0-9+/]+={0,2})\nlength: ([0-9]{1,9})\n-->\n?\z`)

// SignFeed appends to an appcast the trailer that signs it.
func SignFeed(content []byte, key ed25519.PrivateKey) []byte {
	sig := ed25519.Sign(key, content)
	var b bytes.Buffer
	b.Write(content)
	fmt.Fprintf(&b, "%s\nedSignature: %s\nlength: %d\n-->\n", trailerMark, base64.StdEncoding.EncodeToString(sig), len(content))
	return b.Bytes()
}

// VerifyFeed checks a signed appcast and returns the signed part.
func VerifyFeed(data []byte, key ed25519.PublicKey) ([]byte, error) {
	i := bytes.LastIndex(data, []byte(trailerMark))
	if i < 0 {
		return nil, ErrUnsigned
	}
	m := trailerRE.FindSubmatch(data[i:])
	if m == nil || bytes.Contains(data[:i], []byte(trailerMark)) {
		return nil, fmt.Errorf("%w (its signature trailer is malformed)", ErrBadSignature)
	}
	n, _ := strconv.Atoi(string(m[2]))
	sig, err := base64.StdEncoding.DecodeString(string(m[1]))
	if err != nil || n != i || len(sig) != ed25519.SignatureSize || !ed25519.Verify(key, data[:i], sig) {
		return nil, ErrBadSignature
	}
	return data[:i], nil
}

// ParsePublicKey reads a base64 Ed25519 public key (SUPublicEDKey's form).
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("an Ed25519 public key is 32 bytes in base64")
	}
	return ed25519.PublicKey(b), nil
}

// ParsePrivateKey reads a base64 Ed25519 private key: its 32-byte seed (what
// Sparkle's generate_keys -x exports, and genkey prints) or the 64-byte seed
// and public key.
func ParsePrivateKey(s string) (ed25519.PrivateKey, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	switch {
	case err != nil:
		return nil, fmt.Errorf("the private key is not base64")
	case len(b) == ed25519.SeedSize:
		return ed25519.NewKeyFromSeed(b), nil
	case len(b) == ed25519.PrivateKeySize:
		k := ed25519.NewKeyFromSeed(b[:ed25519.SeedSize])
		if !bytes.Equal(k, b) {
			return nil, fmt.Errorf("the private key's public half does not match its seed")
		}
		return k, nil
	}
	return nil, fmt.Errorf("an Ed25519 private key is a 32-byte seed (or 64 bytes with its public half) in base64, not %d bytes", len(b))
}

// The appcast as XML. Sparkle takes the version, short version and minimum
// system version as elements of the item (2.x) or attributes of the
// enclosure (1.x); both are read.
type rss struct {
	XMLName xml.Name `xml:"rss"`
	Channel struct {
		Items []item `xml:"item"`
	} `xml:"channel"`
}

type item struct {
	Title       string `xml:"title"`
	PubDate     string `xml:"pubDate"`
	Description string `xml:"description"`
	Version     string `xml:"http://www.andymatuschak.org/xml-namespaces/sparkle version"`
	Short       string `xml:"http://www.andymatuschak.org/xml-namespaces/sparkle shortVersionString"`
	MinSystem   string `xml:"http://www.andymatuschak.org/xml-namespaces/sparkle minimumSystemVersion"`
	Enclosure   struct {
		URL       string `xml:"url,attr"`
		Length    string `xml:"length,attr"`
		Version   string `xml:"http://www.andymatuschak.org/xml-namespaces/sparkle version,attr"`
		Short     string `xml:"http://www.andymatuschak.org/xml-namespaces/sparkle shortVersionString,attr"`
		Signature string `xml:"http://www.andymatuschak.org/xml-namespaces/sparkle edSignature,attr"`
	} `xml:"enclosure"`
}

// ParseAppcast reads the releases of an appcast (its signed part).
func ParseAppcast(data []byte) ([]Release, error) {
	var doc rss
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not an appcast: %v", err)
	}
	var out []Release
	for _, it := range doc.Channel.Items {
		r := Release{Title: strings.TrimSpace(it.Title), Notes: strings.TrimSpace(it.Description),
			Version: firstOf(it.Short, it.Enclosure.Short), Build: firstOf(it.Version, it.Enclosure.Version),
			MinimumSystemVersion: strings.TrimSpace(it.MinSystem), URL: strings.TrimSpace(it.Enclosure.URL)}
		if r.Version == "" {
			r.Version = r.Build
		}
		if t, err := time.Parse(time.RFC1123Z, strings.TrimSpace(it.PubDate)); err == nil {
			r.Published = t
		}
		if r.Version == "" || r.URL == "" {
			return nil, fmt.Errorf("an appcast item (%q) lacks its version or its enclosure's url", r.Title)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(it.Enclosure.Length), 10, 64)
		if err != nil || n <= 0 || n > maxDmg {
			return nil, fmt.Errorf("appcast item %s: enclosure length %q is not a size up to 1 GiB", r.Version, it.Enclosure.Length)
		}
		r.Length = n
		sig, err := base64.StdEncoding.DecodeString(strings.TrimSpace(it.Enclosure.Signature))
		if err != nil || len(sig) != ed25519.SignatureSize {
			return nil, fmt.Errorf("appcast item %s: its enclosure has no valid sparkle:edSignature", r.Version)
		}
		r.Signature = sig
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the appcast lists no release")
	}
	return out, nil
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// WriteAppcast renders an appcast of the releases, newest first, unsigned
// (SignFeed signs it).
func WriteAppcast(title string, rels []Release) []byte {
	var b bytes.Buffer
	esc := func(s string) string {
		var e bytes.Buffer
		_ = xml.EscapeText(&e, []byte(s))
		return e.String()
	}
	fmt.Fprintf(&b, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rss version=\"2.0\" xmlns:sparkle=%q>\n  <channel>\n    <title>%s</title>\n", sparkleNS, esc(title))
	for _, r := range rels {
		fmt.Fprintf(&b, "    <item>\n      <title>%s</title>\n", esc(r.Title))
		if !r.Published.IsZero() {
			fmt.Fprintf(&b, "      <pubDate>%s</pubDate>\n", r.Published.UTC().Format(time.RFC1123Z))
		}
		fmt.Fprintf(&b, "      <sparkle:version>%s</sparkle:version>\n      <sparkle:shortVersionString>%s</sparkle:shortVersionString>\n", esc(r.Build), esc(r.Version))
		if r.MinimumSystemVersion != "" {
			fmt.Fprintf(&b, "      <sparkle:minimumSystemVersion>%s</sparkle:minimumSystemVersion>\n", esc(r.MinimumSystemVersion))
		}
		fmt.Fprintf(&b, "      <description sparkle:format=\"plain-text\">%s</description>\n", esc(r.Notes))
		fmt.Fprintf(&b, "      <enclosure url=\"%s\" length=\"%d\" type=\"application/octet-stream\" sparkle:edSignature=\"%s\"/>\n    </item>\n",
			esc(r.URL), r.Length, base64.StdEncoding.EncodeToString(r.Signature))
	}
	b.WriteString("  </channel>\n</rss>\n")
	return b.Bytes()
}
