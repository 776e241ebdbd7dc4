// Writes interop test vectors for go-zero's core/bloom filter (go-zero itself is not packaged by
// Debian; its algorithm is reproduced from its documentation and source behaviour):
//   - k = 14 positions per key: position i = murmur3.Sum64(key ++ byte(i)) % bits, i = 0..13,
//     with spaolacci/murmur3 (Debian's golang-github-spaolacci-murmur3-dev, the library
//     go-zero's core/hash uses);
//   - its Redis layout: the bits of one Redis string, set by a Lua script that runs SETBIT for
//     each position and tested by one that runs GETBIT, run here through redigo against a real
//     redis-server (REDIS_URL, e.g. redis://127.0.0.1:6399); the string's bytes (GET) are the
//     layout bloomkit must reproduce.
//
// Usage: REDIS_URL=redis://127.0.0.1:PORT go run ./go_zero OUTDIR
package main

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gomodule/redigo/redis"
	"github.com/spaolacci/murmur3"
)

const hashCount = 14

// The scripts go-zero runs (one round trip per key: all 14 bits in one script).
var setScript = redis.NewScript(1, `
for _, offset in ipairs(ARGV) do
	redis.call("setbit", KEYS[1], offset, 1)
end
`)
var testScript = redis.NewScript(1, `
for _, offset in ipairs(ARGV) do
	if tonumber(redis.call("getbit", KEYS[1], offset)) == 0 then
		return false
	end
end
return true
`)

func positions(key []byte, bits uint64) []uint64 {
	out := make([]uint64, hashCount)
	for i := 0; i < hashCount; i++ {
		data := append(append([]byte{}, key...), byte(i))
		out[i] = murmur3.Sum64(data) % bits
	}
	return out
}

func args(key []byte, bits uint64) []interface{} {
	a := []interface{}{"bloomkit:interop:go-zero"}
	for _, p := range positions(key, bits) {
		a = append(a, p)
	}
	return a
}

func stringKeys(prefix string, count int) [][]byte {
	stems := []string{"key-", "ключ-", "鍵-", "\U0001F511-", "k"}
	var keys [][]byte
	if prefix == "" {
		keys = append(keys, []byte{})
	}
	for i := 0; len(keys) < count; i++ {
		keys = append(keys, []byte(fmt.Sprintf("%s%s%d", prefix, stems[i%len(stems)], i)))
	}
	return keys
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-zero vectors:", err)
		os.Exit(1)
	}
}

func writeCase(conn redis.Conn, dir string, bits uint64, n int) {
	const key = "bloomkit:interop:go-zero"
	_, err := conn.Do("DEL", key)
	must(err)
	name := fmt.Sprintf("go_zero_bits%d_n%d", bits, n)
	inserted := stringKeys("", n)
	absent := stringKeys("probe-", 400)
	for _, k := range inserted {
		_, err := setScript.Do(conn, args(k, bits)...)
		must(err)
	}
	raw, err := redis.Bytes(conn.Do("GET", key))
	must(err)
	must(os.WriteFile(filepath.Join(dir, name+".redis"), raw, 0o644))

	var w strings.Builder
	fmt.Fprintln(&w, "# go-zero core/bloom (k = 14, murmur3 Sum64 of key ++ byte(i), % bits),")
	fmt.Fprintln(&w, "# Redis bytes from its SETBIT script: tools/interop/go_zero/vectors.go")
	fmt.Fprintln(&w, "scheme go_zero")
	fmt.Fprintln(&w, "key_type string")
	fmt.Fprintf(&w, "bits %d\n", bits)
	fmt.Fprintf(&w, "hashes %d\n", hashCount)
	fmt.Fprintf(&w, "file %s.redis\n", name)
	for _, k := range inserted {
		fmt.Fprintf(&w, "insert %s\n", hex.EncodeToString(k))
	}
	probe := func(k []byte) {
		v, err := testScript.Do(conn, args(k, bits)...)
		must(err)
		answer := 0
		if v != nil { // Lua true is 1, false is nil
			answer = 1
		}
		fmt.Fprintf(&w, "probe %s %d\n", hex.EncodeToString(k), answer)
	}
	for _, k := range inserted {
		probe(k)
	}
	for _, k := range absent {
		probe(k)
	}
	for i := 0; i < 12; i++ {
		k := inserted[i%len(inserted)]
		if i >= 6 {
			k = absent[i]
		}
		parts := []string{}
		for _, p := range positions(k, bits) {
			parts = append(parts, fmt.Sprint(p))
		}
		fmt.Fprintf(&w, "locations %s %s\n", hex.EncodeToString(k), strings.Join(parts, ","))
	}
	must(os.WriteFile(filepath.Join(dir, name+".txt"), []byte(w.String()), 0o644))
}

func main() {
	dir := os.Args[1]
	must(os.MkdirAll(dir, 0o755))
	conn, err := redis.DialURL(os.Getenv("REDIS_URL"))
	must(err)
	defer conn.Close()
	cases := []struct {
		bits uint64
		n    int
	}{{1000, 50}, {4096, 200}, {20011, 1000}}
	for _, c := range cases {
		writeCase(conn, dir, c.bits, c.n)
	}
	_, err = conn.Do("DEL", "bloomkit:interop:go-zero")
	must(err)
	fmt.Printf("go-zero: wrote %d filters to %s\n", len(cases), dir)
}
