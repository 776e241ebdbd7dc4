// An empty stand-in for github.com/twmb/murmur3, which bits-and-blooms/bloom v3's go.mod lists
// (for its tests) but Debian does not package. No code imports it; it only completes the module
// graph so that the generators build offline.
module github.com/twmb/murmur3
