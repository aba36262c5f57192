package update

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// Status is what a check found.
type Status int

// What a check can find.
const (
	// UpToDate: the appcast's newest release is this one.
	UpToDate Status = iota
	// Available: a newer release is out (Outcome.Release).
	Available
	// Managed: this copy is updated as it was installed (Homebrew, make
	// install, a checkout); Outcome.Install says how. Nothing was fetched.
	Managed
	// DevBuild: this copy has no release version ("dev", a bare commit),
	// so it cannot tell older from newer; Outcome.Release is the newest.
	DevBuild
)

// Outcome is what a check found.
type Outcome struct {
	Status  Status
	Current string
	// Release is the appcast's newest release (Available, UpToDate, DevBuild).
	Release Release
	Install Install
}

// Service is the update use case, the same for the CLI and the menu.
type Service struct {
	// Current is this copy's version (main.version).
	Current string
	// Feed is the appcast's https address (FeedURL).
	Feed string
	// Key is the public key the appcast and the dmg must be signed with.
	Key ed25519.PublicKey
	// Client fetches (nil: http.DefaultClient; tests give the httptest
	// TLS server's client).
	Client *http.Client
	// Timeout is how long a server may stay silent, before its answer or in
	// the middle of it (default 30 s).
	Timeout time.Duration
	// Install is how this copy was installed (ThisInstall).
	Install Install
	// Downloads is the folder the dmg is saved in (~/Downloads).
	Downloads string
	// Verify checks a downloaded dmg beyond its signature: on a Mac
	// MacVerify (codesign, spctl); nil: no further check.
	Verify func(ctx context.Context, path string) error
	// Open shows the verified dmg to the user (open on a Mac).
	Open func(path string) error
}

// New is the Service for this copy: the built-in key and feed.
func New(current string, in Install, downloads string) *Service {
	key, err := ParsePublicKey(PublicKey)
	if err != nil {
		panic("update: PublicKey: " + err.Error())
	}
	return &Service{Current: current, Feed: FeedURL, Key: key, Install: in, Downloads: downloads}
}

func (s *Service) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return 30 * time.Second
}

func (s *Service) client() *http.Client {
	if s.Client != nil {
		return s.Client
	}
	return http.DefaultClient
}

// Check reads the appcast and says whether a newer release is out. A copy
// that is updated as it was installed (Homebrew, Linux) fetches nothing.
// Every failure is one sentence: no answer, an appcast that is not signed
// with RAMBar's key, a downgrade.
func (s *Service) Check(ctx context.Context) (Outcome, error) {
	o := Outcome{Current: s.Current, Install: s.Install}
	if !s.Install.SelfUpdates() {
		o.Status = Managed
		return o, nil
	}
	var buf bytes.Buffer
	if _, err := s.get(ctx, s.Feed, &buf, maxAppcast, nil); err != nil {
		return o, fmt.Errorf("update check: %w", err)
	}
	signed, err := VerifyFeed(buf.Bytes(), s.Key)
	if err != nil {
		return o, fmt.Errorf("update check: the appcast at %s: its %w: not trusted, nothing offered", s.Feed, err)
	}
	rels, err := ParseAppcast(signed)
	if err != nil {
		return o, fmt.Errorf("update check: %v", err)
	}
	newest, err := newestOf(rels)
	if err != nil {
		return o, fmt.Errorf("update check: %v", err)
	}
	o.Release = newest
	c, err := Compare(newest.Version, s.Current)
	switch {
	case err != nil:
		o.Status = DevBuild
	case c < 0:
		return o, fmt.Errorf("update check: the appcast's newest release, %s, %w (%s): a downgrade, refused", newest.Version, ErrDowngrade, s.Current)
	case c == 0:
		o.Status = UpToDate
	default:
		o.Status = Available
	}
	return o, nil
}

// newestOf is the release with the highest version.
func newestOf(rels []Release) (Release, error) {
	var best Release
	for i, r := range rels {
		if _, err := parseVersion(r.Version); err != nil {
			return Release{}, fmt.Errorf("the appcast's release %q has no release version", r.Version)
		}
		if c, _ := Compare(r.Version, best.Version); i == 0 || c > 0 {
			best = r
		}
	}
	return best, nil
}

// Download saves a release's dmg in Downloads and returns its path, once
// its length and its Ed25519 signature match the appcast and (on a Mac)
// codesign and spctl accept it. Until then it is a hidden temporary file
// there, removed on any failure: nothing is left in Downloads but a dmg
// that passed every check. progress, when set, hears bytes received.
func (s *Service) Download(ctx context.Context, r Release, progress func(done, total int64)) (path string, err error) {
	if s.Downloads == "" {
		return "", errors.New("update: no Downloads folder to save the dmg in")
	}
	if fi, err := os.Stat(s.Downloads); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("update: the Downloads folder %s is missing", s.Downloads)
	}
	base := "RAMBar-" + safeName(r.Version)
	f, err := os.CreateTemp(s.Downloads, "."+base+"-*.dmg")
	if err != nil {
		return "", fmt.Errorf("update: %w", err)
	}
	tmp := f.Name()
	defer func() {
		f.Close()
		if err != nil {
			os.Remove(tmp)
		}
	}()
	n, err := s.get(ctx, r.URL, f, r.Length, progress)
	if err != nil {
		return "", fmt.Errorf("update: downloading RAMBar %s: %w; nothing kept", r.Version, err)
	}
	if n != r.Length {
		return "", fmt.Errorf("update: the download of RAMBar %s %w (%d of %d bytes); nothing kept", r.Version, ErrIncomplete, n, r.Length)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("update: %w", err)
	}
	data, err := os.ReadFile(tmp)
	if err != nil {
		return "", fmt.Errorf("update: %w", err)
	}
	if !ed25519.Verify(s.Key, data, r.Signature) {
		return "", fmt.Errorf("update: the dmg of RAMBar %s: its %w; nothing kept", r.Version, ErrBadSignature)
	}
	data = nil
	if s.Verify != nil {
		if err := s.Verify(ctx, tmp); err != nil {
			return "", fmt.Errorf("update: the dmg of RAMBar %s is %w (%v); nothing kept", r.Version, ErrNotTrusted, err)
		}
	}
	for i := 1; i < 100; i++ {
		name := base + ".dmg"
		if i > 1 {
			name = fmt.Sprintf("%s (%d).dmg", base, i)
		}
		path = filepath.Join(s.Downloads, name)
		if err = os.Link(tmp, path); err == nil {
			os.Remove(tmp)
			return path, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("update: %w", err)
		}
	}
	return "", fmt.Errorf("update: %s has 99 copies of %s.dmg already", s.Downloads, base)
}

// safeName keeps a version to the characters a file name may safely hold.
func safeName(v string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, v)
}

// errStalled ends a fetch whose server stays silent too long.
var errStalled = errors.New("stalled")

// get fetches an https address into w, at most limit bytes (more is an
// error), and returns how many came. A server silent for Timeout (before
// its answer or in the middle of it) ends the fetch with ErrNoAnswer.
func (s *Service) get(ctx context.Context, addr string, w io.Writer, limit int64, progress func(done, total int64)) (int64, error) {
	u, err := url.Parse(addr)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return 0, fmt.Errorf("%q is not an https address; refused", addr)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timeout := s.timeout()
	timer := time.AfterFunc(timeout, func() { cancel(errStalled) })
	defer timer.Stop()
	stalled := func(err error) error {
		if errors.Is(context.Cause(ctx), errStalled) {
			return fmt.Errorf("%w from %s within %s", ErrNoAnswer, u.Host, timeout)
		}
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, addr, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("User-Agent", "RAMBar")
	client := *s.client()
	client.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		switch {
		case r.URL.Scheme != "https":
			return fmt.Errorf("redirected to %s, not https; refused", r.URL.Redacted())
		case len(via) >= 10:
			return errors.New("redirected 10 times; refused")
		}
		return nil
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, stalled(fmt.Errorf("%s: %v", u.Host, unwrapURL(err)))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s answered %s", u.Host, resp.Status)
	}
	if resp.ContentLength > limit {
		return 0, fmt.Errorf("%s sent %d bytes where at most %d were expected; refused", u.Host, resp.ContentLength, limit)
	}
	var n atomic.Int64
	body := readFunc(func(p []byte) (int, error) {
		k, err := resp.Body.Read(p)
		if k > 0 {
			timer.Reset(timeout)
			if progress != nil {
				progress(n.Add(int64(k)), limit)
			} else {
				n.Add(int64(k))
			}
		}
		return k, err
	})
	copied, err := io.Copy(w, io.LimitReader(body, limit+1))
	if err != nil {
		return copied, stalled(fmt.Errorf("%s: %v", u.Host, unwrapURL(err)))
	}
	if copied > limit {
		return copied, fmt.Errorf("%s sent more than the %d bytes expected; refused", u.Host, limit)
	}
	return copied, nil
}

type readFunc func([]byte) (int, error)

func (f readFunc) Read(p []byte) (int, error) { return f(p) }

// unwrapURL drops net/http's "Get "https://…": " prefix: the host is said
// already.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("the connection ended before the whole file came")
	}
	return err
}
