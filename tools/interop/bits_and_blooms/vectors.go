// Writes interop test vectors with the real bits-and-blooms/bloom v3 (Debian's
// golang-github-willf-bloom-dev): for several (n, p), a NewWithEstimates filter filled with listed
// keys, its WriteTo bytes and MarshalJSON text, probe keys with Test answers, the Locations of a
// few keys, and EstimateParameters for many (n, p).
//
// Usage: go run vectors.go OUTDIR   (see tools/interop/generate for the offline build)
package main

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"bloomkit/interop/vectorkit"
	"github.com/bits-and-blooms/bloom/v3"
)

func must(err error) { vectorkit.Must("bits-and-blooms vectors", err) }

func writeCase(dir string, n uint, p float64) {
	name := fmt.Sprintf("bnb_n%d_p%g", n, p)
	inserted := vectorkit.StringKeys("", int(n))
	absent := vectorkit.StringKeys("probe-", 600)
	f := bloom.NewWithEstimates(n, p)
	for _, k := range inserted {
		f.Add(k)
	}
	var bin bytes.Buffer
	_, err := f.WriteTo(&bin)
	must(err)
	must(os.WriteFile(filepath.Join(dir, name+".bin"), bin.Bytes(), 0o644))
	js, err := f.MarshalJSON()
	must(err)
	must(os.WriteFile(filepath.Join(dir, name+".json"), js, 0o644))

	var w strings.Builder
	fmt.Fprintln(&w, "# bits-and-blooms/bloom v3.3.1, tools/interop/bits_and_blooms/vectors.go")
	fmt.Fprintln(&w, "scheme bits_and_blooms_v3")
	fmt.Fprintln(&w, "key_type string")
	fmt.Fprintf(&w, "expected_insertions %d\n", n)
	fmt.Fprintf(&w, "fpp %g\n", p)
	fmt.Fprintf(&w, "bits %d\n", f.Cap())
	fmt.Fprintf(&w, "hashes %d\n", f.K())
	fmt.Fprintf(&w, "file %s.bin\n", name)
	fmt.Fprintf(&w, "json %s.json\n", name)
	for _, k := range inserted {
		fmt.Fprintf(&w, "insert %s\n", hex.EncodeToString(k))
	}
	answer := func(k []byte) int {
		if f.Test(k) {
			return 1
		}
		return 0
	}
	for _, k := range inserted {
		fmt.Fprintf(&w, "probe %s %d\n", hex.EncodeToString(k), answer(k))
	}
	for _, k := range absent {
		fmt.Fprintf(&w, "probe %s %d\n", hex.EncodeToString(k), answer(k))
	}
	// Locations before the reduction modulo m, in probe order.
	for i := 0; i < 12; i++ {
		k := inserted[i%len(inserted)]
		if i >= 6 {
			k = absent[i]
		}
		locs := bloom.Locations(k, f.K())
		parts := make([]string, len(locs))
		for j, l := range locs {
			parts[j] = fmt.Sprint(l)
		}
		fmt.Fprintf(&w, "locations %s %s\n", hex.EncodeToString(k), strings.Join(parts, ","))
	}
	must(os.WriteFile(filepath.Join(dir, name+".txt"), []byte(w.String()), 0o644))
}

func writeSizing(dir string) {
	ns := []uint{1, 2, 3, 7, 10, 100, 1000, 1234, 10000, 65536, 100000, 1000000, 12345678,
		1000000000, 5000000000}
	ps := []float64{0.5, 0.3, 0.1, 0.05, 0.03, 0.01, 0.001, 1e-4, 1e-6, 1e-9, 0.999}
	var w strings.Builder
	fmt.Fprintln(&w, "# bits-and-blooms/bloom v3.3.1 EstimateParameters(n, p)")
	fmt.Fprintln(&w, "# n p bits hashes")
	for _, n := range ns {
		for _, p := range ps {
			m, k := bloom.EstimateParameters(n, p)
			fmt.Fprintf(&w, "%d %g %d %d\n", n, p, m, k)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "bnb_sizing.txt"), []byte(w.String()), 0o644))
}

func main() {
	dir := os.Args[1]
	must(os.MkdirAll(dir, 0o755))
	writeSizing(dir)
	cases := []struct {
		n uint
		p float64
	}{{100, 0.03}, {1000, 0.01}, {300, 0.001}, {1, 0.5}}
	for _, c := range cases {
		writeCase(dir, c.n, c.p)
	}
	fmt.Printf("bits-and-blooms: wrote %d filters and the sizing table to %s\n", len(cases), dir)
}
