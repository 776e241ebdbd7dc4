#pragma once
// The one batch engine of the Redis filters (internal; docs/REDIS.md, "Operations"). Keys become
// BITFIELD (write) / BITFIELD_RO (read) commands, grouped by Redis string, up to
// keys_per_command keys per command, all pipelined in one round trip (the client sends each
// cluster node's commands in parallel); the replies become one answer per key.
//
// What varies between filters is a batch_layout: where a key's cells are (which Redis strings,
// which cells), how a cell is read and written (cell_codec: u1 bits, saturating u4 counters),
// and how a string proves it is whole (string_check: a guard bit, a length, nothing). The
// native sharded filter (native_layout.hpp), the peers' single strings (single_string_layout.hpp:
// go-zero with any k, the Guava-based SETBIT helper), the rebuild's fill, counting cells and a
// time window's slices (bits, or 64-bit words read whole: masked_word_reads) all go through here.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <algorithm>
#include "bloomkit/redis/client.hpp"

namespace bloomkit::redis::detail {

// Batches larger than this go out in several round trips, so that a call with millions of keys
// never builds (and Redis never buffers) hundreds of MiB of commands at once.
inline constexpr std::size_t max_keys_per_round_trip = 8192;

// Runs round_trip(keys, out) (which sets out[i] to key i's answer and returns how many are
// true) over batches of at most max_keys_per_round_trip keys, and copies the answers into
// `answers` unless it is empty. Returns the total.
template <class RoundTrip>
std::size_t in_round_trips(std::span<const std::string_view> keys, std::span<bool> answers,
                           RoundTrip&& round_trip) {
  std::size_t n = 0;
  std::vector<char> out;
  for (std::size_t at = 0; at < keys.size(); at += max_keys_per_round_trip) {
    const std::size_t count = std::min(max_keys_per_round_trip, keys.size() - at);
    n += round_trip(keys.subspan(at, count), out);
    if (!answers.empty()) {
      for (std::size_t i = 0; i < count; ++i) answers[at + i] = out[i] != 0;
    }
  }
  return n;
}

// remove: counting cells only; one script per key (counter_removal.cpp), since refusing a
// definitely-absent key and sparing saturated counters both need a read before the write.
enum class cell_op { read, write, remove };

// How a layout's cells are read and written in BITFIELD.
struct cell_codec {
  enum class write_kind {
    // SET <type> <offset> 1; the reply is the old value: a key with an old 0 was new.
    set_one,
    // OVERFLOW SAT then INCRBY <type> <offset> 1 (counting cells); the reply is the new value:
    // a key with a new 1 (an old 0) was new.
    saturating_increment,
  };
  std::string type = "u1";  // BITFIELD type of one cell
  // Offsets are cell numbers written "#n" (the n-th cell of `type`), not bit offsets.
  bool cell_numbers = false;
  write_kind write = write_kind::set_one;
  // Word-blocked layouts: a read placement is one `GET i64 #<word>` per cell (its offsets are
  // word numbers) and answers true when every bit of the placement's mask is set in the
  // integer; writes stay `type` cells. Redis returns the word's first bit as the integer's most
  // significant one: the layout's masks are in integer bits.
  bool masked_word_reads = false;
  // Fingerprint layouts (a static filter's b-bit fields): a read answers true when the XOR of
  // all the key's cells, over all its placements, equals its placements' mask (the key's
  // fingerprint as Redis returns it).
  bool xor_reads = false;
};

// How a batch proves that a string it touches is whole (docs/REDIS.md, "Missing shards"): a
// string that is not answers nothing, its keys are reported broken.
struct string_check {
  enum class kind {
    none,       // a missing string reads as zeros (go-zero's semantics)
    guard_bit,  // the command reads bit `guard_bit` first (GET u1): 0 means missing or short
    length,     // a STRLEN per string touched (before a write, after a read) of at least min_bytes
  };
  kind how = kind::none;
  std::uint64_t guard_bit = 0;
  std::uint64_t min_bytes = 0;
};

// One key's placement: `cells` offsets in string number `string`.
struct placement {
  std::uint64_t string;
  std::uint32_t key;    // index into the batch's keys
  std::uint32_t cells;  // offsets[first .. first + cells) of the sink
  std::size_t first;
  std::uint64_t mask = 0;  // cell_codec::masked_word_reads: the bits a read needs set
};

// Collects where a layout places the keys of a batch, one key after the other.
class placement_sink {
 public:
  // Adds a placement of the current key in the layout's string number `string`, of `cells`
  // cells; returns where the layout writes their offsets (bit offsets, or cell numbers with
  // cell_codec::cell_numbers).
  std::uint64_t* add(std::uint64_t string, std::uint32_t cells, std::uint64_t mask = 0);
  void next_key() noexcept { ++key_; }

  std::vector<placement> placements;
  std::vector<std::uint64_t> offsets;

 private:
  std::uint32_t key_ = 0;
};

// Where keys live in Redis and how their cells are accessed.
class batch_layout {
 public:
  virtual ~batch_layout() = default;
  virtual const cell_codec& codec() const noexcept = 0;
  virtual string_check check() const noexcept = 0;
  // Places `key` for `op`: one placement per string the operation reaches (a windowed layout
  // reads every live slice and writes the newest). A key's answer is true when any of its
  // placements answers true (read: all its cells are non-zero, or with masked_word_reads all
  // its mask bits set; write: the key was new there).
  virtual void place(std::string_view key, cell_op op, placement_sink& out) const = 0;
  // The Redis key of string number `string`.
  virtual std::string string_key(std::uint64_t string) const = 0;
  // The guard bit of string number `string` (string_check::kind::guard_bit): the same for every
  // string unless a layout's strings differ in length (a static filter's tables).
  virtual std::uint64_t guard_bit_of(std::uint64_t) const { return check().guard_bit; }
  // How an error names a command of this layout ("BITFIELD users:1:0"), for a caller that
  // names its filter in its own way.
  virtual std::string describe_command(std::string text) const { return text; }
};

// The keys of one batch, placed and grouped: one group per command.
struct batch_plan {
  struct group {
    std::uint64_t string;
    std::size_t begin, end;  // range of `placements`
  };
  cell_op op = cell_op::read;
  std::size_t keys = 0;
  std::vector<placement> placements;  // sorted by string
  std::vector<std::uint64_t> offsets;
  std::vector<group> groups;

  // A plan may be sent through any layout that places keys the same way (the generations of
  // one filter: the same shards under other names).
  static batch_plan make(const batch_layout& layout, std::span<const std::string_view> keys,
                         cell_op op, std::size_t keys_per_command);
};

// Where one plan's commands are in a round trip's command list.
struct batch_commands {
  string_check check;
  std::size_t checks_begin = 0, checks_end = 0;  // the STRLENs
  std::size_t bitfields_begin = 0;               // plan.groups.size() BITFIELDs from here
};

// Appends the plan's commands through `layout` to `cs`.
batch_commands append_commands(const batch_layout& layout, const batch_plan& plan,
                               std::vector<command>& cs);

struct batch_answers {
  std::vector<char> answers;        // one per key: present (read) / new (write)
  std::vector<std::string> broken;  // strings found missing or short; their keys answer false
  std::size_t count() const noexcept;
};

// A remove's commands and answers (counter_removal.cpp; append_commands and decode call them):
// one EVAL per placement; a key answers true when its counters were decremented.
batch_commands append_remove_commands(const batch_layout& layout, const batch_plan& plan,
                                      std::vector<command>& cs);
batch_answers decode_removes(const batch_plan& plan, const batch_commands& where,
                             std::span<const command> cs, std::span<const reply> replies);

// Decodes the replies of append_commands' commands (replies[i] answers cs[i]).
batch_answers decode(const batch_layout& layout, const batch_plan& plan,
                     const batch_commands& where, std::span<const command> cs,
                     std::span<const reply> replies);

// A plan of `keys` sent in one round trip and decoded: for callers without anything to send in
// the same pipeline (go-zero's layout, the rebuild's fill).
batch_answers run_batch(client& c, const batch_layout& layout,
                        std::span<const std::string_view> keys, cell_op op,
                        std::size_t keys_per_command);

}  // namespace bloomkit::redis::detail
