package update

import (
	"context"
	"crypto/ed25519"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rambar/internal/run/runtest"
)

func testKey(t *testing.T, name string) ed25519.PrivateKey {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	k, err := ParsePrivateKey(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// release is one scenario: what the server serves.
type release struct {
	appcast []byte // served at /appcast.xml
	dmg     []byte // served at /RAMBar.dmg
	// serveDmg, when set, serves the dmg instead.
	serveDmg http.HandlerFunc
}

// fixture is an httptest TLS server and a Service pointed at it, with its
// own Downloads folder.
type fixture struct {
	srv       *httptest.Server
	s         *Service
	downloads string
	hits      atomic.Int32
	verified  []string
}

func newFixture(t *testing.T, r *release) *fixture {
	t.Helper()
	f := &fixture{downloads: t.TempDir()}
	mux := http.NewServeMux()
	mux.HandleFunc("/appcast.xml", func(w http.ResponseWriter, _ *http.Request) { f.hits.Add(1); w.Write(r.appcast) })
	mux.HandleFunc("/RAMBar.dmg", func(w http.ResponseWriter, req *http.Request) {
		f.hits.Add(1)
		if r.serveDmg != nil {
			r.serveDmg(w, req)
			return
		}
		w.Write(r.dmg)
	})
	f.srv = httptest.NewTLSServer(mux)
	t.Cleanup(f.srv.Close)
	f.s = &Service{Current: "1.2.0", Feed: f.srv.URL + "/appcast.xml", Key: testKey(t, "test-key").Public().(ed25519.PublicKey),
		Client: f.srv.Client(), Timeout: 2 * time.Second, Install: Install{Kind: AppBundle, Where: "/Applications/RAMBar.app"},
		Downloads: f.downloads}
	f.s.Verify = func(_ context.Context, path string) error { f.verified = append(f.verified, path); return nil }
	return f
}

// signedCast is an appcast of one release of dmg at the fixture's address,
// the dmg signed with dmgKey and the feed with feedKey.
func signedCast(url, version string, dmg []byte, dmgKey, feedKey ed25519.PrivateKey) []byte {
	r := Release{Version: version, Build: "120", Title: "RAMBar " + version, Notes: "Faster saves.\nFixed the <eject> & menu.",
		Published: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), MinimumSystemVersion: "13.0",
		URL: url + "/RAMBar.dmg", Length: int64(len(dmg)), Signature: ed25519.Sign(dmgKey, dmg)}
	return SignFeed(WriteAppcast("RAMBar", []Release{r}), feedKey)
}

// scenario builds the release an httptest server serves, given its URL.
func scenario(t *testing.T, build func(url string, key, other ed25519.PrivateKey, dmg []byte) *release) *fixture {
	key, other := testKey(t, "test-key"), testKey(t, "other-key")
	dmg := []byte(strings.Repeat("RAMBar disk image ", 4000))
	r := &release{}
	f := newFixture(t, r)
	*r = *build(f.srv.URL, key, other, dmg)
	return f
}

func valid(url string, key, _ ed25519.PrivateKey, dmg []byte) *release {
	return &release{appcast: signedCast(url, "1.3.0", dmg, key, key), dmg: dmg}
}

// emptyFolder fails the test if Downloads holds anything.
func emptyFolder(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("left in Downloads: %s", e.Name())
	}
}

// oneLine fails the test unless err is a single line naming want.
func oneLine(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one with %q", want)
	}
	if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), want) {
		t.Errorf("error %q: want one line with %q", err, want)
	}
	t.Logf("%v", err)
}

func TestValidNewerReleaseIsOfferedAndDownloaded(t *testing.T) {
	f := scenario(t, valid)
	o, err := f.s.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != Available || o.Release.Version != "1.3.0" || o.Release.Notes != "Faster saves.\nFixed the <eject> & menu." {
		t.Fatalf("outcome %+v", o)
	}
	if got := o.Line(); got != "RAMBar 1.3.0 is available (this copy is 1.2.0)." {
		t.Errorf("line %q", got)
	}
	var last int64
	path, err := f.s.Download(context.Background(), o.Release, func(done, _ int64) { last = done })
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(f.downloads, "RAMBar-1.3.0.dmg") || last != o.Release.Length {
		t.Errorf("saved as %s after %d bytes", path, last)
	}
	if len(f.verified) != 1 || filepath.Dir(f.verified[0]) != f.downloads {
		t.Errorf("the platform check saw %q", f.verified)
	}
	ents, _ := os.ReadDir(f.downloads)
	if len(ents) != 1 {
		t.Errorf("Downloads holds %d files, want the dmg alone", len(ents))
	}
	// A second download keeps the first.
	p2, err := f.s.Download(context.Background(), o.Release, nil)
	if err != nil || filepath.Base(p2) != "RAMBar-1.3.0 (2).dmg" {
		t.Errorf("second download: %s, %v", p2, err)
	}
}

func TestRefusedAppcasts(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func(url string, key, other ed25519.PrivateKey, dmg []byte) *release
		want  string
		is    error
	}{
		{"tampered", func(url string, key, _ ed25519.PrivateKey, dmg []byte) *release {
			cast := signedCast(url, "1.3.0", dmg, key, key)
			cast = []byte(strings.Replace(string(cast), "Faster saves.", "Faster saves!", 1))
			return &release{appcast: cast, dmg: dmg}
		}, "signature does not match", ErrBadSignature},
		{"other key", func(url string, key, other ed25519.PrivateKey, dmg []byte) *release {
			return &release{appcast: signedCast(url, "1.3.0", dmg, other, other), dmg: dmg}
		}, "signature does not match", ErrBadSignature},
		{"unsigned", func(url string, key, _ ed25519.PrivateKey, dmg []byte) *release {
			cast := signedCast(url, "1.3.0", dmg, key, key)
			return &release{appcast: cast[:strings.Index(string(cast), trailerMark)], dmg: dmg}
		}, "its signature is missing", ErrUnsigned},
		{"two trailers", func(url string, key, _ ed25519.PrivateKey, dmg []byte) *release {
			cast := signedCast(url, "1.3.0", dmg, key, key)
			return &release{appcast: SignFeed(cast, key), dmg: dmg}
		}, "malformed", ErrBadSignature},
		{"downgrade", func(url string, key, _ ed25519.PrivateKey, dmg []byte) *release {
			return &release{appcast: signedCast(url, "1.1.9", dmg, key, key), dmg: dmg}
		}, "1.1.9, is older than this RAMBar (1.2.0): a downgrade, refused", ErrDowngrade},
		{"not an appcast", func(url string, key, _ ed25519.PrivateKey, dmg []byte) *release {
			return &release{appcast: SignFeed([]byte("<html>hello</html>"), key), dmg: dmg}
		}, "not an appcast", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := scenario(t, c.build)
			o, err := f.s.Check(context.Background())
			oneLine(t, err, c.want)
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("%v is not %v", err, c.is)
			}
			if o.Status == Available {
				t.Errorf("offered %+v", o.Release)
			}
			emptyFolder(t, f.downloads)
		})
	}
}

func TestUpToDate(t *testing.T) {
	f := scenario(t, valid)
	f.s.Current = "v1.3.0"
	o, err := f.s.Check(context.Background())
	if err != nil || o.Status != UpToDate || o.Line() != "RAMBar v1.3.0 is up to date." {
		t.Fatalf("%+v %v", o, err)
	}
	f.s.Current = "v1.3.0-2-gabc1234" // two commits later: the release is older
	if _, err := f.s.Check(context.Background()); !errors.Is(err, ErrDowngrade) {
		t.Errorf("a build after the tag: %v", err)
	}
	f.s.Current = "dev"
	if o, err := f.s.Check(context.Background()); err != nil || o.Status != DevBuild {
		t.Errorf("dev build: %+v %v", o, err)
	}
}

func TestRefusedDownloads(t *testing.T) {
	for _, c := range []struct {
		name   string
		serve  func(dmg []byte) http.HandlerFunc
		want   string
		is     error
		refuse bool // the platform check refuses
	}{
		{"truncated", func(dmg []byte) http.HandlerFunc {
			return func(w http.ResponseWriter, _ *http.Request) { w.Write(dmg[:len(dmg)/2]) }
		}, "is incomplete", ErrIncomplete, false},
		{"truncated mid-stream", func(dmg []byte) http.HandlerFunc {
			return func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Length", "72000")
				w.Write(dmg[:1000])
				panic(http.ErrAbortHandler)
			}
		}, "the connection ended before the whole file came", nil, false},
		{"swapped", func(dmg []byte) http.HandlerFunc {
			other := []byte(strings.Repeat("Evil disk image.. ", 4000))
			return func(w http.ResponseWriter, _ *http.Request) { w.Write(other) }
		}, "signature does not match", ErrBadSignature, false},
		{"longer", func(dmg []byte) http.HandlerFunc {
			return func(w http.ResponseWriter, _ *http.Request) { w.Write(append(dmg, 'x')) }
		}, "refused", nil, false},
		{"redirected to http", func(dmg []byte) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "http://"+r.Host+"/RAMBar.dmg", http.StatusFound)
			}
		}, "not https; refused", nil, false},
		{"missing", func(dmg []byte) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }
		}, "404 Not Found", nil, false},
		{"not notarized", func(dmg []byte) http.HandlerFunc {
			return func(w http.ResponseWriter, _ *http.Request) { w.Write(dmg) }
		}, "not signed by a Developer ID or not notarized", ErrNotTrusted, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := scenario(t, func(url string, key, other ed25519.PrivateKey, dmg []byte) *release {
				r := valid(url, key, other, dmg)
				r.serveDmg = c.serve(dmg)
				return r
			})
			if c.refuse {
				f.s.Verify = func(context.Context, string) error { return errors.New("spctl: rejected") }
			}
			o, err := f.s.Check(context.Background())
			if err != nil || o.Status != Available {
				t.Fatalf("check: %+v %v", o, err)
			}
			path, err := f.s.Download(context.Background(), o.Release, nil)
			oneLine(t, err, c.want)
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("%v is not %v", err, c.is)
			}
			if path != "" {
				t.Errorf("returned %s", path)
			}
			emptyFolder(t, f.downloads)
		})
	}
}

// silent is a server that accepts and never answers (or stops in the middle).
func silent(t *testing.T, first []byte) *httptest.Server {
	release := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if first != nil {
			w.Header().Set("Content-Length", "72000")
			w.Write(first)
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	return srv
}

func TestServerThatNeverAnswers(t *testing.T) {
	srv := silent(t, nil)
	dl := t.TempDir()
	s := &Service{Current: "1.2.0", Feed: srv.URL + "/appcast.xml", Key: testKey(t, "test-key").Public().(ed25519.PublicKey),
		Client: srv.Client(), Timeout: 300 * time.Millisecond, Install: Install{Kind: AppBundle}, Downloads: dl}
	start := time.Now()
	o, err := s.Check(context.Background())
	oneLine(t, err, "no answer from 127.0.0.1")
	if !errors.Is(err, ErrNoAnswer) || o.Status == Available {
		t.Errorf("%v, %+v", err, o)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("gave up after %s", d)
	}
	// A dmg that stops coming half-way.
	stalled := silent(t, []byte(strings.Repeat("x", 1000)))
	s.Client = stalled.Client()
	r := Release{Version: "1.3.0", URL: stalled.URL + "/RAMBar.dmg", Length: 72000, Signature: make([]byte, 64)}
	_, err = s.Download(context.Background(), r, nil)
	oneLine(t, err, "no answer from 127.0.0.1")
	emptyFolder(t, dl)
}

func TestHomebrewAndLinuxFetchNothing(t *testing.T) {
	f := scenario(t, valid)
	for _, in := range []Install{{Kind: Homebrew}, {Kind: MakeInstall, Where: "/usr/local/bin/rambar", Prefix: "/usr/local"}} {
		f.s.Install = in
		o, err := f.s.Check(context.Background())
		if err != nil || o.Status != Managed {
			t.Fatalf("%+v %v", o, err)
		}
		t.Log(o.Line())
	}
	if f.hits.Load() != 0 {
		t.Errorf("the server was asked %d times", f.hits.Load())
	}
	d := Daily{S: f.s, First: time.Millisecond, Every: time.Millisecond, Found: func(Outcome) { t.Error("found") }}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	d.Run(ctx)
	if f.hits.Load() != 0 {
		t.Errorf("the daily check asked the server %d times", f.hits.Load())
	}
}

func TestDailyChecksOnceADayAndTellsOnce(t *testing.T) {
	f := scenario(t, valid)
	stamp := filepath.Join(t.TempDir(), "state", "update-check")
	now := time.Now()
	var found atomic.Int32
	on := atomic.Bool{}
	on.Store(false)
	d := Daily{S: f.s, On: on.Load, Stamp: stamp, First: time.Millisecond, Every: 5 * time.Millisecond,
		Now: func() time.Time { return now }, Found: func(o Outcome) { found.Add(1) }}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Millisecond)
	d.Run(ctx)
	cancel()
	if f.hits.Load() != 0 {
		t.Fatalf("checked with the setting off")
	}
	on.Store(true)
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	d.Run(ctx)
	cancel()
	if f.hits.Load() != 1 || found.Load() != 1 {
		t.Errorf("%d checks, %d told; want 1 of each in a day", f.hits.Load(), found.Load())
	}
	if _, err := os.Stat(stamp); err != nil {
		t.Error(err)
	}
}

func TestCompare(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"1.3.0", "1.2.0", 1}, {"v1.2.0", "1.2.0", 0}, {"1.2", "1.2.0", 0}, {"1.10.0", "1.9.9", 1},
		{"1.2.0-3-gabcdef0", "1.2.0", 1}, {"1.2.0-3-gabcdef0-dirty", "1.2.0-4-g1234567", -1},
		{"1.3.0-rc1", "1.3.0", -1}, {"1.3.0-rc1", "1.2.9", 1},
	} {
		got, err := Compare(c.a, c.b)
		if err != nil || got != c.want {
			t.Errorf("Compare(%s, %s) = %d, %v; want %d", c.a, c.b, got, err, c.want)
		}
	}
	for _, bad := range []string{"dev", "abc1234", "", "1..2"} {
		if _, err := Compare(bad, "1.0.0"); err == nil {
			t.Errorf("%q read as a version", bad)
		}
	}
}

func TestDetectInstall(t *testing.T) {
	has := func(paths ...string) func(string) bool {
		return func(p string) bool {
			for _, x := range paths {
				if x == p {
					return true
				}
			}
			return false
		}
	}
	for _, c := range []struct {
		goos, exe string
		exists    func(string) bool
		want      Install
	}{
		{"darwin", "/Applications/RAMBar.app/Contents/MacOS/rambar", has(), Install{Kind: AppBundle, Where: "/Applications/RAMBar.app"}},
		{"darwin", "/Applications/RAMBar.app/Contents/MacOS/rambar", has("/opt/homebrew/Caskroom/rambar"), Install{Kind: Homebrew, Where: "/Applications/RAMBar.app"}},
		{"linux", "/usr/local/bin/rambar", has("/usr/local/share/applications/rambar.desktop"), Install{Kind: MakeInstall, Where: "/usr/local/bin/rambar", Prefix: "/usr/local"}},
		{"linux", "/src/rambar/bin/rambar", has("/src/rambar/go.mod", "/src/rambar/app/main.go"), Install{Kind: Checkout, Where: "/src/rambar/bin/rambar", Tree: "/src/rambar"}},
		{"linux", "/opt/rambar", has(), Install{Kind: Other, Where: "/opt/rambar"}},
	} {
		got := DetectInstall(c.goos, c.exe, c.exists)
		if got != c.want {
			t.Errorf("%s %s: %+v, want %+v", c.goos, c.exe, got, c.want)
		}
		if line := (Outcome{Status: Managed, Install: got}).Line(); strings.Contains(line, "\n") || !strings.Contains(line, "pdate") {
			t.Errorf("%q", line)
		}
	}
}

func TestMacVerifyRunsCodesignThenSpctl(t *testing.T) {
	p := "/Users/ada/Downloads/.RAMBar-1.3.0-1.dmg"
	s := runtest.NewScript(t,
		runtest.Call{Argv: MacChecks(p)[0]},
		runtest.Call{Argv: MacChecks(p)[1], Reply: runtest.Reply{Stderr: p + ": rejected\nsource=Unnotarized Developer ID", Exit: 3}})
	err := MacVerify(s)(context.Background(), p)
	if err == nil || !strings.Contains(err.Error(), "spctl refused it") {
		t.Errorf("%v", err)
	}
	if got := MacChecks(p)[0]; got[0] != "codesign" || got[len(got)-1] != p || !strings.HasPrefix(got[4], "-R=anchor apple generic") {
		t.Errorf("%q", got)
	}
}

func TestBuiltInKeyAndKeys(t *testing.T) {
	if _, err := ParsePublicKey(PublicKey); err != nil {
		t.Fatal(err)
	}
	k := testKey(t, "test-key")
	if k2, err := ParsePrivateKey(base64Std(k)); err != nil || !k2.Equal(k) {
		t.Errorf("64-byte form: %v", err)
	}
	if _, err := ParsePrivateKey("c2hvcnQ="); err == nil {
		t.Error("a short key was read")
	}
}

// TestDailyStampNeverFollowsALink: the stamp is made or touched only as a
// file of its own; a link planted at its name (another user's folder, run
// as root) never makes or touches the file it names.
func TestDailyStampNeverFollowsALink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "nologin") // a file whose mere being does harm
	stamp := filepath.Join(dir, "update-check")
	if err := os.Symlink(victim, stamp); err != nil {
		t.Fatal(err)
	}
	(&Daily{Stamp: stamp}).touch(time.Now())
	if _, err := os.Lstat(victim); err == nil {
		t.Error("the file the link named was made")
	}
}
