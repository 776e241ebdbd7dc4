// The bloomkit -> Go check of tools/interop/generate: reads every bits-and-blooms filter bloomkit
// wrote (tools/interop/bloomkit_writer.cpp) with the real ReadFrom and UnmarshalJSON, and every
// go-zero Redis string through go-zero's GETBIT script on a real redis-server (REDIS_URL); each
// must answer every probe key as bloomkit did, and WriteTo / MarshalJSON must give back
// bloomkit's bytes exactly.
//
// Usage: REDIS_URL=redis://127.0.0.1:PORT go run ./check DIR
package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"bloomkit/interop/vectorkit"
	"github.com/bits-and-blooms/bloom/v3"
	"github.com/gomodule/redigo/redis"
)

type vector struct {
	scheme, file, json string
	bits               uint64
	keys               [][]byte
	answers            []bool
}

func readVector(path string) vector {
	f, err := os.Open(path)
	must(err)
	defer f.Close()
	var v vector
	s := bufio.NewScanner(f)
	for s.Scan() {
		parts := strings.Split(s.Text(), " ")
		switch parts[0] {
		case "scheme":
			v.scheme = parts[1]
		case "file":
			v.file = filepath.Join(filepath.Dir(path), parts[1])
		case "json":
			v.json = filepath.Join(filepath.Dir(path), parts[1])
		case "bits":
			v.bits, err = strconv.ParseUint(parts[1], 10, 64)
			must(err)
		case "probe":
			k, err := hex.DecodeString(parts[1])
			must(err)
			v.keys = append(v.keys, k)
			v.answers = append(v.answers, parts[2] == "1")
		}
	}
	return v
}

func must(err error) { vectorkit.Must("check", err) }

func main() {
	dir := os.Args[1]
	bnb, err := filepath.Glob(filepath.Join(dir, "bnb_*.txt"))
	must(err)
	goZero, err := filepath.Glob(filepath.Join(dir, "go_zero_*.txt"))
	must(err)
	paths := append(bnb, goZero...)
	sort.Strings(paths)
	conn, err := redis.DialURL(os.Getenv("REDIS_URL"))
	must(err)
	defer conn.Close()
	const redisKey = "bloomkit:interop:check"
	filters, probes, failures := map[string]int{}, 0, 0
	for _, path := range paths {
		v := readVector(path)
		switch v.scheme {
		case "bits_and_blooms_v3":
			data, err := os.ReadFile(v.file)
			must(err)
			var fromBinary bloom.BloomFilter
			_, err = fromBinary.ReadFrom(bytes.NewReader(data))
			must(err)
			text, err := os.ReadFile(v.json)
			must(err)
			var fromJSON bloom.BloomFilter
			must(fromJSON.UnmarshalJSON(text))
			var again bytes.Buffer
			_, err = fromBinary.WriteTo(&again)
			must(err)
			againJSON, err := fromJSON.MarshalJSON()
			must(err)
			if !bytes.Equal(again.Bytes(), data) || !bytes.Equal(againJSON, text) {
				fmt.Printf("bits-and-blooms: %s: WriteTo / MarshalJSON do not give back bloomkit's bytes\n", v.file)
				failures++
			}
			for i, k := range v.keys {
				if fromBinary.Test(k) != v.answers[i] || fromJSON.Test(k) != v.answers[i] {
					fmt.Printf("bits-and-blooms: %s: key %x: Go says %v\n", v.file, k, !v.answers[i])
					failures++
				}
				probes++
			}
			filters["bits-and-blooms"]++
		case "go_zero":
			data, err := os.ReadFile(v.file)
			must(err)
			_, err = conn.Do("SET", redisKey, data)
			must(err)
			for i, k := range v.keys {
				args := []interface{}{redisKey}
				for _, p := range vectorkit.GoZeroPositions(k, v.bits, 14) {
					args = append(args, p)
				}
				reply, err := vectorkit.GoZeroTestScript.Do(conn, args...)
				must(err)
				if (reply != nil) != v.answers[i] {
					fmt.Printf("go-zero: %s: key %x: its script says %v\n", v.file, k, !v.answers[i])
					failures++
				}
				probes++
			}
			filters["go-zero"]++
		}
	}
	_, err = conn.Do("DEL", redisKey)
	must(err)
	fmt.Printf("go: read %d bits-and-blooms filters (ReadFrom, UnmarshalJSON) and %d go-zero Redis strings, %d probes, %d differences\n",
		filters["bits-and-blooms"], filters["go-zero"], probes, failures)
	if failures > 0 || filters["bits-and-blooms"] == 0 || filters["go-zero"] == 0 {
		os.Exit(1)
	}
}
