// The Go peer harness of bench/compare_peers: bits-and-blooms/bloom v3 and greatroar/blobloom, measured
// as bench/peers/README.md (the harness protocol) says.
//
//	go-harness bits-and-blooms|blobloom --keys KEYS --misses MISSES --n N --queries Q --p P
//
// Prints one line of JSON on stdout; everything else goes to stderr.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/bits-and-blooms/bloom/v3"
	"github.com/cespare/xxhash/v2"
	"github.com/greatroar/blobloom"
)

// Versions of the Debian packages the harness was built against, set by bench/peers/build
// (-ldflags -X) from dpkg-query.
var (
	bloomVersion    = "unknown"
	blobloomVersion = "unknown"
	xxhashVersion   = "unknown"
)

const (
	chunkKeys  = 65536   // keys read (untimed) and then run through the filter (timed) at a time
	warmupKeys = 1 << 20 // cap on the untimed warm-up's inserts and queries
	readBuffer = 1 << 20
)

// filter is one peer. The timed loops live inside the implementations, so the interface call
// costs once per chunk and every key goes through the peer's own API with a direct call.
type filter interface {
	insert(keys [][]byte)
	countPresent(keys [][]byte) int // how many keys the filter answers "maybe present" for
	filterBytes() int64             // the bit array's size in bytes
	hashes() int
}

type bitsAndBlooms struct{ f *bloom.BloomFilter }

func newBitsAndBlooms(n uint64, p float64) filter {
	return &bitsAndBlooms{bloom.NewWithEstimates(uint(n), p)}
}

func (b *bitsAndBlooms) insert(keys [][]byte) {
	for _, k := range keys {
		b.f.Add(k)
	}
}

func (b *bitsAndBlooms) countPresent(keys [][]byte) int {
	present := 0
	for _, k := range keys {
		if b.f.Test(k) {
			present++
		}
	}
	return present
}

// The filter's bitset holds Cap() bits in whole 64-bit words.
func (b *bitsAndBlooms) filterBytes() int64 { return int64((b.f.Cap() + 63) / 64 * 8) }
func (b *bitsAndBlooms) hashes() int        { return int(b.f.K()) }

// blobloom takes a 64-bit hash per key; xxhash is what its documentation pairs it with, and the
// hash is part of every timed call, as it is for the peers that hash internally.
type blobloomFilter struct {
	f       *blobloom.Filter
	nhashes int
}

func newBlobloom(n uint64, p float64) filter {
	config := blobloom.Config{Capacity: n, FPRate: p}
	// Filter does not expose k; NewOptimized is New(Optimize(config)), and New raises k to 2.
	_, k := blobloom.Optimize(config)
	if k < 2 {
		k = 2
	}
	return &blobloomFilter{blobloom.NewOptimized(config), k}
}

func (b *blobloomFilter) insert(keys [][]byte) {
	for _, k := range keys {
		b.f.Add(xxhash.Sum64(k))
	}
}

func (b *blobloomFilter) countPresent(keys [][]byte) int {
	present := 0
	for _, k := range keys {
		if b.f.Has(xxhash.Sum64(k)) {
			present++
		}
	}
	return present
}

func (b *blobloomFilter) filterBytes() int64 { return int64(b.f.NumBits() / 8) }
func (b *blobloomFilter) hashes() int        { return b.nhashes }

type peer struct {
	library string
	create  func(n uint64, p float64) filter
}

func peers() map[string]peer {
	return map[string]peer{
		"bits-and-blooms": {"bits-and-blooms/bloom " + bloomVersion, newBitsAndBlooms},
		"blobloom": {"greatroar/blobloom " + blobloomVersion + " + cespare/xxhash " + xxhashVersion,
			newBlobloom},
	}
}

// keyChunks reads a key file's lines in chunks into one contiguous buffer, so the timed loops
// see plain slices and allocate nothing.
type keyChunks struct {
	path  string
	file  *os.File
	in    *bufio.Reader
	data  []byte
	ends  []int
	keys  [][]byte
	lines uint64 // lines read so far
}

func openKeys(path string) (*keyChunks, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &keyChunks{path: path, file: f, in: bufio.NewReaderSize(f, readBuffer),
		keys: make([][]byte, 0, chunkKeys)}, nil
}

func (c *keyChunks) close() { c.file.Close() }

// next reads the next min(chunkKeys, want) lines; it fails when the file ends first.
func (c *keyChunks) next(want uint64, needed uint64) ([][]byte, error) {
	if want > chunkKeys {
		want = chunkKeys
	}
	c.data = c.data[:0]
	ends := c.ends[:0]
	for uint64(len(ends)) < want {
		line, err := c.in.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) { // a line longer than the buffer
			c.data = append(c.data, line...)
			line, err = c.in.ReadSlice('\n')
		}
		if err != nil && !(errors.Is(err, io.EOF) && len(line) > 0) {
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("%s: has only %d lines, %d needed", c.path,
					c.lines+uint64(len(ends)), needed)
			}
			return nil, fmt.Errorf("%s: %v", c.path, err)
		}
		if len(line) > 0 && line[len(line)-1] == '\n' {
			line = line[:len(line)-1]
		}
		c.data = append(c.data, line...)
		ends = append(ends, len(c.data))
	}
	c.ends = ends
	c.keys = c.keys[:0]
	start := 0
	for _, end := range ends {
		c.keys = append(c.keys, c.data[start:end:end])
		start = end
	}
	c.lines += want
	return c.keys, nil
}

// forEachChunk runs fn over the first count lines of path, chunk by chunk, and returns the
// time spent inside fn only.
func forEachChunk(path string, count uint64, fn func(keys [][]byte)) (time.Duration, error) {
	chunks, err := openKeys(path)
	if err != nil {
		return 0, err
	}
	defer chunks.close()
	var total time.Duration
	for done := uint64(0); done < count; {
		keys, err := chunks.next(count-done, count)
		if err != nil {
			return 0, err
		}
		start := time.Now()
		fn(keys)
		total += time.Since(start)
		done += uint64(len(keys))
	}
	return total, nil
}

type args struct {
	impl, keys, misses string
	n, queries         uint64
	p                  float64
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func parseArgs(argv []string, known map[string]peer) (args, error) {
	var a args
	usage := "usage: go-harness bits-and-blooms|blobloom --keys KEYS --misses MISSES --n N " +
		"--queries Q --p P"
	if len(argv) < 1 || argv[0] == "" || argv[0][0] == '-' {
		return a, usageError{"missing implementation name\n" + usage}
	}
	a.impl = argv[0]
	if _, ok := known[a.impl]; !ok {
		return a, usageError{fmt.Sprintf("unknown implementation %q (known: bits-and-blooms, "+
			"blobloom)\n%s", a.impl, usage)}
	}
	fs := flag.NewFlagSet("go-harness", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&a.keys, "keys", "", "")
	fs.StringVar(&a.misses, "misses", "", "")
	fs.Uint64Var(&a.n, "n", 0, "")
	fs.Uint64Var(&a.queries, "queries", 0, "")
	fs.Float64Var(&a.p, "p", 0, "")
	if err := fs.Parse(argv[1:]); err != nil {
		return a, usageError{err.Error() + "\n" + usage}
	}
	switch {
	case fs.NArg() > 0:
		return a, usageError{fmt.Sprintf("unexpected argument %q\n%s", fs.Arg(0), usage)}
	case a.keys == "" || a.misses == "":
		return a, usageError{"--keys and --misses are required\n" + usage}
	case a.n == 0:
		return a, usageError{"--n must be a positive integer, got 0\n" + usage}
	case a.queries == 0:
		return a, usageError{"--queries must be a positive integer, got 0\n" + usage}
	case !(a.p > 0 && a.p < 1):
		return a, usageError{fmt.Sprintf("--p must be in (0, 1), got %v\n%s", a.p, usage)}
	}
	return a, nil
}

type result struct {
	Impl           string  `json:"impl"`
	Language       string  `json:"language"`
	Library        string  `json:"library"`
	N              uint64  `json:"n"`
	Queries        uint64  `json:"queries"`
	P              float64 `json:"p"`
	InsertNs       float64 `json:"insert_ns"`
	HitNs          float64 `json:"hit_ns"`
	MissNs         float64 `json:"miss_ns"`
	Fpp            float64 `json:"fpp"`
	FalseNegatives uint64  `json:"false_negatives"`
	FalsePositives uint64  `json:"false_positives"`
	FilterBytes    int64   `json:"filter_bytes"`
	Hashes         int     `json:"hashes"`
	BitsPerKey     float64 `json:"bits_per_key"`
}

func min(a, b uint64) uint64 {
	if a < b {
		return a
	}
	return b
}

func nsPerKey(d time.Duration, keys uint64) float64 { return float64(d.Nanoseconds()) / float64(keys) }

func run(a args, p peer) (result, error) {
	// Warm-up, untimed: the same code paths on a scratch filter, then dropped.
	{
		warm := p.create(min(a.n, warmupKeys), a.p)
		sink := 0
		if _, err := forEachChunk(a.keys, min(a.n, warmupKeys), warm.insert); err != nil {
			return result{}, err
		}
		_, err := forEachChunk(a.misses, min(a.queries, warmupKeys),
			func(keys [][]byte) { sink += warm.countPresent(keys) })
		if err != nil {
			return result{}, err
		}
		runtime.KeepAlive(sink)
	}
	runtime.GC()

	f := p.create(a.n, a.p)
	insert, err := forEachChunk(a.keys, a.n, f.insert)
	if err != nil {
		return result{}, err
	}
	hits := hitKeys(a)
	var present uint64
	hit, err := forEachChunk(a.keys, hits,
		func(keys [][]byte) { present += uint64(f.countPresent(keys)) })
	if err != nil {
		return result{}, err
	}
	var falsePositives uint64
	miss, err := forEachChunk(a.misses, a.queries,
		func(keys [][]byte) { falsePositives += uint64(f.countPresent(keys)) })
	if err != nil {
		return result{}, err
	}
	bytes := f.filterBytes()
	return result{
		Impl: a.impl, Language: "Go", Library: p.library, N: a.n, Queries: a.queries, P: a.p,
		InsertNs: nsPerKey(insert, a.n), HitNs: nsPerKey(hit, hits), MissNs: nsPerKey(miss, a.queries),
		Fpp:            float64(falsePositives) / float64(a.queries),
		FalseNegatives: hits - present, FalsePositives: falsePositives,
		FilterBytes: bytes, Hashes: f.hashes(), BitsPerKey: float64(bytes) * 8 / float64(a.n),
	}, nil
}

func main() {
	known := peers()
	a, err := parseArgs(os.Args[1:], known)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-harness: error: %v\n", err)
		os.Exit(2)
	}
	r, err := run(a, known[a.impl])
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-harness: error: %v\n", err)
		os.Exit(1)
	}
	line, err := json.Marshal(r)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-harness: error: cannot encode the result: %v\n", err)
		os.Exit(1)
	}
	fmt.Println(string(line))
	if r.FalseNegatives != 0 {
		fmt.Fprintf(os.Stderr, "go-harness: error: %s: %d false negatives in %d hits\n", a.impl,
			r.FalseNegatives, hitKeys(a))
		os.Exit(1)
	}
}

// The hit phase queries the first min(N, Q) inserted keys.
func hitKeys(a args) uint64 { return min(a.n, a.queries) }
