package tree

// DirectMin: files from this size are copied with direct I/O on Linux
// (direct_linux.go; on macOS directCopy declines and they are copied as
// usual). Smaller ones are packed, or cost too little to matter.
const DirectMin = 8 << 20
