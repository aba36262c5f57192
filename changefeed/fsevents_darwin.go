//go:build darwin

package changefeed

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"
	"golang.org/x/sys/unix"
)

// FSEvents stream flags (FSEvents.h); the event flags are in
// fsevents_event.go.
const (
	createNoDefer    = 0x02
	createWatchRoot  = 0x04
	createFileEvents = 0x10
	eventSinceNow    = ^uint64(0) // kFSEventStreamEventIdSinceNow
	utf8Encoding     = 0x08000100 // kCFStringEncodingUTF8
	// latency is how long FSEvents gathers events before it calls back:
	// a save waits about 2 s of quiet anyway.
	latency = 0.2
)

// The CoreServices, CoreFoundation and libdispatch functions the feed
// calls, bound once.
var fsev = sync.OnceValue(func() error {
	cs, err := purego.Dlopen("/System/Library/Frameworks/CoreServices.framework/CoreServices", purego.RTLD_GLOBAL|purego.RTLD_NOW)
	if err != nil {
		return fmt.Errorf("load CoreServices: %w", err)
	}
	cf, err := purego.Dlopen("/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation", purego.RTLD_GLOBAL|purego.RTLD_NOW)
	if err != nil {
		return fmt.Errorf("load CoreFoundation: %w", err)
	}
	sys, err := purego.Dlopen("/usr/lib/libSystem.B.dylib", purego.RTLD_GLOBAL|purego.RTLD_NOW)
	if err != nil {
		return fmt.Errorf("load libSystem: %w", err)
	}
	purego.RegisterLibFunc(&fsEventStreamCreate, cs, "FSEventStreamCreate")
	purego.RegisterLibFunc(&fsEventStreamSetDispatchQueue, cs, "FSEventStreamSetDispatchQueue")
	purego.RegisterLibFunc(&fsEventStreamStart, cs, "FSEventStreamStart")
	purego.RegisterLibFunc(&fsEventStreamStop, cs, "FSEventStreamStop")
	purego.RegisterLibFunc(&fsEventStreamInvalidate, cs, "FSEventStreamInvalidate")
	purego.RegisterLibFunc(&fsEventStreamRelease, cs, "FSEventStreamRelease")
	purego.RegisterLibFunc(&fsEventStreamFlushSync, cs, "FSEventStreamFlushSync")
	purego.RegisterLibFunc(&cfStringCreateWithCString, cf, "CFStringCreateWithCString")
	purego.RegisterLibFunc(&cfArrayCreate, cf, "CFArrayCreate")
	purego.RegisterLibFunc(&cfRelease, cf, "CFRelease")
	purego.RegisterLibFunc(&dispatchQueueCreate, sys, "dispatch_queue_create")
	if cfTypeArrayCallBacks, err = purego.Dlsym(cf, "kCFTypeArrayCallBacks"); err != nil {
		return fmt.Errorf("find kCFTypeArrayCallBacks: %w", err)
	}
	callback = purego.NewCallback(streamCallback)
	return nil
})

var (
	fsEventStreamCreate           func(alloc, cb, ctx, paths uintptr, since uint64, latency float64, flags uint32) uintptr
	fsEventStreamSetDispatchQueue func(stream, queue uintptr)
	fsEventStreamStart            func(stream uintptr) bool
	fsEventStreamStop             func(stream uintptr)
	fsEventStreamInvalidate       func(stream uintptr)
	fsEventStreamRelease          func(stream uintptr)
	fsEventStreamFlushSync        func(stream uintptr)
	cfStringCreateWithCString     func(alloc uintptr, s string, enc uint32) uintptr
	cfArrayCreate                 func(alloc uintptr, values *uintptr, n int, cb uintptr) uintptr
	cfRelease                     func(ref uintptr)
	dispatchQueueCreate           func(label string, attr uintptr) uintptr
	cfTypeArrayCallBacks          uintptr
	callback                      uintptr
	queue                         = sync.OnceValue(func() uintptr { return dispatchQueueCreate("com.rambar.changefeed", 0) })
)

// streams are the open feeds, by their stream: the callback is told the
// stream.
var streams sync.Map // uintptr → *Feed

// Feed follows one disk's changes (an FSEvents stream of file-level events
// on the disk's root).
type Feed struct {
	*pending
	root  string
	roots fsRoots // root, and the kernel's path of it when that differs
	// stream is the FSEvents stream; started once FSEventStreamStart
	// succeeded (only a started stream is stopped).
	stream  uintptr
	started bool
	mu      sync.Mutex
	closed  bool
	// writers looks at the files open for writing on the disk, which
	// FSEvents hears only once they are closed.
	writers *writers
}

// Open starts following the disk at root. ignored, when not nil, leaves
// out changes it names (RAMBar's own files on the disk). The first Changes
// are Lost: nothing before the stream started is known.
func Open(root string, ignored func(folder, name string) bool) (*Feed, error) {
	return OpenWith(root, Options{Ignored: ignored})
}

// OpenWith starts following the disk at root as o says; on macOS every
// Mode is the native one (FSEvents), and nothing is dropped on purpose.
func OpenWith(root string, o Options) (*Feed, error) {
	if err := fsev(); err != nil {
		return nil, err
	}
	f := &Feed{pending: newPending(o.Ignored, false), root: strings.TrimSuffix(root, "/")}
	f.roots = fsRoots{f.root}
	kp, err := kernelPath(f.root)
	if err != nil {
		return nil, err
	}
	if kp != f.root {
		f.roots = append(f.roots, kp)
	}
	s := cfStringCreateWithCString(0, f.root, utf8Encoding)
	if s == 0 {
		return nil, fmt.Errorf("FSEventStreamCreate %s: the path is not UTF-8", root)
	}
	defer cfRelease(s)
	arr := cfArrayCreate(0, &s, 1, cfTypeArrayCallBacks)
	defer cfRelease(arr)
	f.stream = fsEventStreamCreate(0, callback, 0, arr, eventSinceNow, latency, createFileEvents|createNoDefer|createWatchRoot)
	if f.stream == 0 {
		return nil, fmt.Errorf("FSEventStreamCreate %s failed", root)
	}
	streams.Store(f.stream, f)
	fsEventStreamSetDispatchQueue(f.stream, queue())
	if !fsEventStreamStart(f.stream) {
		f.Close() // invalidated and released, never stopped
		return nil, fmt.Errorf("FSEventStreamStart %s failed", root)
	}
	f.mu.Lock()
	f.started = true
	f.mu.Unlock()
	f.writers = newWriters(f.pending, f.root)
	return f, nil
}

// Watch does nothing: the stream needs no watch per folder.
func (f *Feed) Watch(int, string) {}

// Take returns the changes since the last take, and starts afresh: the
// events of every change made before it is called are delivered first,
// and the folders of the files open for writing are marked changed.
func (f *Feed) Take() Changes {
	f.flush()
	f.writers.look(byTake)
	return f.pending.Take()
}

// Peek returns the changes since the last take, leaving them.
func (f *Feed) Peek() Changes {
	f.flush()
	f.writers.look(byPeek)
	return f.pending.Peek()
}

// flush has the stream deliver what it holds, unless it is closed.
func (f *Feed) flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		fsEventStreamFlushSync(f.stream)
	}
}

// Close stops the stream.
func (f *Feed) Close() error {
	if f.writers != nil {
		f.writers.close()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		f.closed = true
		if f.started {
			fsEventStreamStop(f.stream)
		}
		fsEventStreamInvalidate(f.stream)
		streams.Delete(f.stream)
		fsEventStreamRelease(f.stream)
	}
	return nil
}

// streamCallback is FSEventStreamCallback: each event names a path whose
// folder changed, or says events were lost.
func streamCallback(stream, _ uintptr, n uintptr, paths **byte, flags *uint32, _ *uint64) {
	v, ok := streams.Load(stream)
	if !ok {
		return
	}
	f := v.(*Feed)
	at := time.Now()
	ps, fs := unsafe.Slice(paths, n), unsafe.Slice(flags, n)
	for i := range ps {
		f.event(cString(ps[i]), fs[i], at)
	}
}

// event records one event at absolute path p.
func (f *Feed) event(p string, flags uint32, at time.Time) { f.fsevent(f.roots, p, flags, at) }

// kernelPath is the kernel's path of the folder at root (fcntl
// F_GETPATH on it, opened): the form FSEvents names its events by, which
// for a folder under /Users is /System/Volumes/Data/Users/….
func kernelPath(root string) (string, error) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", fmt.Errorf("open %s: %w", root, err)
	}
	defer unix.Close(fd)
	buf := make([]byte, unix.PathMax)
	if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), unix.F_GETPATH, uintptr(unsafe.Pointer(&buf[0]))); e != 0 {
		return "", fmt.Errorf("fcntl F_GETPATH %s: %w", root, e)
	}
	if n := bytes.IndexByte(buf, 0); n >= 0 {
		buf = buf[:n]
	}
	return strings.TrimSuffix(string(buf), "/"), nil
}

// cString copies a NUL-terminated C string.
func cString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}
