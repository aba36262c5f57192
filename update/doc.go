// Package update tells a RAMBar that a newer release is out and, on a Mac,
// brings it to the user: it reads the appcast the release job publishes
// (Sparkle's format, so the app can move to Sparkle itself later), trusts it
// only when it carries an Ed25519 signature (Sparkle's signed-feed trailer)
// made with the key whose public half is built in (PublicKey), refuses a
// downgrade, and downloads the dmg to Downloads only when its own signature
// (sparkle:edSignature) and length match; on a Mac the dmg must also pass
// codesign --verify (a Developer ID) and spctl --assess (notarized). Then it
// opens the dmg for the user: it never replaces the running app and never
// runs anything it downloaded. A copy installed by Homebrew, or any Linux
// copy, is told how to update itself instead (Install).
//
// The use case (Service) is the same for the CLI (rambar update --check) and
// the menu (Check for Updates…, the daily check).
package update
