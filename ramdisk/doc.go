// Package ramdisk is the portable core of RAMBar: what a RAM disk is (Size,
// FileSystem, Volume, Usage), how a request becomes a Plan checked against the
// machine's memory, the Engine contract every platform implements, the sentinel
// errors engines map tool failures onto, and the versioned settings file that
// holds presets.
//
// It imports only the standard library and howett.net/plist. Engines (darwin,
// linux) carry Plans out; they never decide sizes or names themselves.
package ramdisk
