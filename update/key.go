package update

// PublicKey is the public half of the Ed25519 key the release job signs the
// appcast and the dmg with (base64 of 32 bytes, as Sparkle's SUPublicEDKey).
// The private half is the repository secret SPARKLE_ED_PRIVATE_KEY; a new
// pair comes from `go run ./packaging/appcast genkey`, and
// `go run ./packaging/appcast sign` refuses a private key whose public half is
// not this one, so a release never ships an appcast its users cannot check.
const PublicKey = "Na7RtQfKMfqPWkW1UR8/lwvaLhqQB2eRnSeI/dVvpb0="

// FeedURL is where the release job publishes the appcast: an asset of the
// latest GitHub release.
const FeedURL = "https://github.com/rambar/rambar/releases/latest/download/appcast.xml"

// Sparkle's XML namespace.
const sparkleNS = "http://www.andymatuschak.org/xml-namespaces/sparkle"
