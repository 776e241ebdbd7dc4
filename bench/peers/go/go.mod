// The Go peer harness (bench/peers/go-harness), built offline by bench/peers/build against
// Debian's Go packages under /usr/share/gocode (installed by bench/peers/setup).
// Debian ships bitset 1.2.2; bloom v3.3.1 asks for 1.3.1, and the replace directive wins.
// twmb/murmur3 (bloom's tests) and stretchr/testify (blobloom's tests) are not needed by the
// harness; they are replaced by the empty stand-ins of tools/interop/go_stubs (relative paths:
// bench/peers/build builds in place with -modfile, so they resolve against this directory).
module bloomkit/bench/peers

go 1.19

require (
	github.com/bits-and-blooms/bloom/v3 v3.3.1
	github.com/cespare/xxhash/v2 v2.1.1
	github.com/greatroar/blobloom v0.7.1
)

require github.com/bits-and-blooms/bitset v1.3.1 // indirect

replace (
	github.com/bits-and-blooms/bitset => /usr/share/gocode/src/github.com/bits-and-blooms/bitset
	github.com/bits-and-blooms/bloom/v3 => /usr/share/gocode/src/github.com/bits-and-blooms/bloom
	github.com/cespare/xxhash/v2 => /usr/share/gocode/src/github.com/cespare/xxhash
	github.com/greatroar/blobloom => /usr/share/gocode/src/github.com/greatroar/blobloom
	github.com/stretchr/testify => ../../../tools/interop/go_stubs/testify
	github.com/twmb/murmur3 => ../../../tools/interop/go_stubs/twmb_murmur3
)
