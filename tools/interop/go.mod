// The Go generators of the interop vectors, built offline against Debian's Go packages under
// /usr/share/gocode (installed by tools/interop/setup): GOPROXY=off GOFLAGS=-mod=mod.
// Debian ships bitset 1.2.2; bloom v3.3.1 asks for 1.3.1, and the replace directive wins.
// Debian's spaolacci/murmur3 has no go.mod, which a replacement directory needs: tools/interop/
// generate builds in a scratch copy of this module and puts a copy of that package, with a
// go.mod, at ./go_deps/spaolacci_murmur3.
module bloomkit/interop

go 1.19

require (
	github.com/bits-and-blooms/bloom/v3 v3.3.1
	github.com/gomodule/redigo v1.8.3
	github.com/spaolacci/murmur3 v1.1.0
)

require github.com/bits-and-blooms/bitset v1.3.1 // indirect

replace (
	github.com/bits-and-blooms/bitset => /usr/share/gocode/src/github.com/bits-and-blooms/bitset
	github.com/bits-and-blooms/bloom/v3 => /usr/share/gocode/src/github.com/bits-and-blooms/bloom
	github.com/gomodule/redigo => /usr/share/gocode/src/github.com/gomodule/redigo
	github.com/spaolacci/murmur3 => ./go_deps/spaolacci_murmur3
	github.com/stretchr/testify => ./go_stubs/testify
	github.com/twmb/murmur3 => ./go_stubs/twmb_murmur3
)
