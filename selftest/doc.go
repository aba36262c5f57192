// Package selftest is RAMBar's self-test: the checks a first run on a new
// machine makes against the real engine and a private store, each kept as
// one line of a report (report.json, and a one-screen summary). The CLI
// verb (`rambar selftest`, or the app started with --selftest) lives in
// app, which adds the checks of the native side (the status item, the main
// menu, notifications, the login item, the session guard) through the same
// Report.
//
// Every disk a run makes is named for its process ("RAMBar Selftest PID
// ROLE") and every file it writes is below its own folder (ROOT/run-PID),
// which holds the private data folder of its kept disk; Cleanup removes
// them, and a later run removes what a run that was killed left behind
// (Leftovers). Nothing of the user's disks or saved states is touched.
package selftest
