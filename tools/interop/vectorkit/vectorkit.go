// Package vectorkit holds what the interop generators and the check share: the listed keys of
// every vector, the exit-on-error helper, and go-zero's Redis scripts and bit positions.
package vectorkit

import (
	"fmt"
	"os"

	"github.com/gomodule/redigo/redis"
	"github.com/spaolacci/murmur3"
)

// StringKeys returns count keys, starting with the empty key when prefix is empty: ASCII,
// Cyrillic, CJK and 4-byte UTF-8 stems so every vector covers multi-byte keys.
func StringKeys(prefix string, count int) [][]byte {
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

// Must exits with "tool: err" when err is set: a generator that cannot write a vector must fail.
func Must(tool string, err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, tool+":", err)
		os.Exit(1)
	}
}

// GoZeroSetScript and GoZeroTestScript are the scripts go-zero runs: one round trip per key,
// every bit of the key in one script.
var GoZeroSetScript = redis.NewScript(1, `
for _, offset in ipairs(ARGV) do
	redis.call("setbit", KEYS[1], offset, 1)
end
`)
var GoZeroTestScript = redis.NewScript(1, `
for _, offset in ipairs(ARGV) do
	if tonumber(redis.call("getbit", KEYS[1], offset)) == 0 then
		return false
	end
end
return true
`)

// GoZeroPositions is go-zero's k bit positions of a key: murmur3.Sum64(key ++ byte(i)) % bits.
func GoZeroPositions(key []byte, bits uint64, k int) []uint64 {
	out := make([]uint64, k)
	for i := 0; i < k; i++ {
		data := append(append([]byte{}, key...), byte(i))
		out[i] = murmur3.Sum64(data) % bits
	}
	return out
}
