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
// With a second directory, also go-zero with any k: the widely proposed NewFilter(store, key,
// expectedInsertions, falseProbability), sized as newFilterParams below (Guava's formulas in
// Go's float64 arithmetic), k positions per key (byte(i) for i = 0..k-1), the same scripts; and
// that sizing for many (n, p).
//
// Usage: REDIS_URL=redis://127.0.0.1:PORT go run ./go_zero OUTDIR [NEWFILTER_OUTDIR]
package main

import (
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"bloomkit/interop/vectorkit"
	"github.com/gomodule/redigo/redis"
)

const hashCount = 14

func args(key []byte, bits uint64, k int) []interface{} {
	a := []interface{}{"bloomkit:interop:go-zero"}
	for _, p := range vectorkit.GoZeroPositions(key, bits, k) {
		a = append(a, p)
	}
	return a
}

// NewFilter's sizing: bits = uint(-n ln p / (ln 2)^2) (truncated), k = max(1, round(bits / n ln 2)).
func newFilterParams(n uint64, p float64) (uint64, int) {
	bits := uint64(-float64(n) * math.Log(p) / (math.Log(2) * math.Log(2)))
	k := int(math.Max(1, math.Round(float64(bits)/float64(n)*math.Log(2))))
	return bits, k
}

func must(err error) { vectorkit.Must("go-zero vectors", err) }

// go-zero's own filter: k = 14, bits given.
func writeCase(conn redis.Conn, dir string, bits uint64, n int) {
	comments := []string{
		"# go-zero core/bloom (k = 14, murmur3 Sum64 of key ++ byte(i), % bits),",
		"# Redis bytes from its SETBIT script: tools/interop/go_zero/vectors.go",
	}
	writeFilter(conn, dir, fmt.Sprintf("go_zero_bits%d_n%d", bits, n), bits, hashCount, n, comments, nil)
}

// go-zero's layout sized by NewFilter(store, key, n, p): k from the formula.
func writeNewFilterCase(conn redis.Conn, dir string, n int, p float64) {
	bits, hashes := newFilterParams(uint64(n), p)
	comments := []string{
		"# go-zero core/bloom with any k: NewFilter(store, key, expectedInsertions, falseProbability)",
		"# sized in Go (tools/interop/go_zero/vectors.go, newFilterParams), Redis bytes from the SETBIT script",
	}
	fields := []string{fmt.Sprintf("expected_insertions %d", n), fmt.Sprintf("fpp %v", p)}
	name := fmt.Sprintf("go_zero_k%d_n%d_p%v", hashes, n, p)
	writeFilter(conn, dir, name, bits, hashes, n, comments, fields)
}

// A filter of `bits` bits and `hashes` positions per key holding n keys, written by go-zero's
// SETBIT script through redigo; probes answered by its GETBIT script.
func writeFilter(conn redis.Conn, dir string, name string, bits uint64, hashes int, n int,
	comments []string, fields []string) {
	const key = "bloomkit:interop:go-zero"
	_, err := conn.Do("DEL", key)
	must(err)
	inserted := vectorkit.StringKeys("", n)
	absent := vectorkit.StringKeys("probe-", 400)
	for _, k := range inserted {
		_, err := vectorkit.GoZeroSetScript.Do(conn, args(k, bits, hashes)...)
		must(err)
	}
	raw, err := redis.Bytes(conn.Do("GET", key))
	must(err)
	must(os.WriteFile(filepath.Join(dir, name+".redis"), raw, 0o644))

	var w strings.Builder
	lines := append(append(append([]string{}, comments...), "scheme go_zero", "key_type string"), fields...)
	for _, line := range lines {
		fmt.Fprintln(&w, line)
	}
	fmt.Fprintf(&w, "bits %d\n", bits)
	fmt.Fprintf(&w, "hashes %d\n", hashes)
	fmt.Fprintf(&w, "file %s.redis\n", name)
	for _, k := range inserted {
		fmt.Fprintf(&w, "insert %s\n", hex.EncodeToString(k))
	}
	probe := func(k []byte) {
		v, err := vectorkit.GoZeroTestScript.Do(conn, args(k, bits, hashes)...)
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
		for _, p := range vectorkit.GoZeroPositions(k, bits, hashes) {
			parts = append(parts, fmt.Sprint(p))
		}
		fmt.Fprintf(&w, "locations %s %s\n", hex.EncodeToString(k), strings.Join(parts, ","))
	}
	must(os.WriteFile(filepath.Join(dir, name+".txt"), []byte(w.String()), 0o644))
}

// NewFilter's sizing for many (n, p): "n p bits hashes" lines (0 bits left out: % 0 panics).
func writeSizing(path string) {
	var w strings.Builder
	fmt.Fprintln(&w, "# go-zero NewFilter(store, key, n, p) sizing: tools/interop/go_zero/vectors.go newFilterParams")
	fmt.Fprintln(&w, "# n p bits hashes")
	ns := []uint64{1, 2, 3, 7, 10, 100, 1000, 1234, 10000, 65536, 100000, 1000000, 12345678, 100000000}
	ps := []float64{0.5, 0.3, 0.1, 0.05, 0.03, 0.01, 0.001, 1e-4, 1e-6, 1e-9, 0.999}
	for _, n := range ns {
		for _, p := range ps {
			bits, hashes := newFilterParams(n, p)
			if bits == 0 || bits > 1<<32 {
				continue
			}
			fmt.Fprintf(&w, "%d %v %d %d\n", n, p, bits, hashes)
		}
	}
	must(os.WriteFile(path, []byte(w.String()), 0o644))
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
	fmt.Printf("go-zero: wrote %d filters to %s\n", len(cases), dir)
	if len(os.Args) > 2 {
		newDir := os.Args[2]
		must(os.MkdirAll(newDir, 0o755))
		writeSizing(filepath.Join(newDir, "go_zero_new_filter_sizing.txt"))
		newCases := []struct {
			n int
			p float64
		}{{50, 0.2}, {200, 0.01}, {1000, 0.001}}
		for _, c := range newCases {
			writeNewFilterCase(conn, newDir, c.n, c.p)
		}
		fmt.Printf("go-zero NewFilter: wrote %d filters and the sizing table to %s\n", len(newCases), newDir)
	}
	_, err = conn.Do("DEL", "bloomkit:interop:go-zero")
	must(err)
}
