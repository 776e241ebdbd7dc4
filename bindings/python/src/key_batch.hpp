#pragma once
// A batch of keys from Python, handed to the C++ batched paths in chunks with the GIL released.
// What a batch can be:
//   - a list or tuple of keys (str, bytes-like or int: keys.hpp), or any other iterable of them;
//   - a C-contiguous 1-d buffer of 2-, 4- or 8-byte integers (a NumPy uint64 array): integral
//     keys, each hashed as its little-endian bytes (the C++ integral overloads of that width);
//   - a bytes-like buffer of 1-byte items (bytes, bytearray, memoryview, NumPy uint8): text,
//     one key per line, split as the CLI splits its input (docs/CLI.md, "Keys").
// A str is refused (TypeError): iterating it would give its characters.
//
// The keys of an object batch are read with the GIL held, a chunk at a time: the bytes of each
// key are copied into the batch's own buffer, and the chunk then runs over views of that buffer
// with the GIL released. Nothing of a key is read without the GIL, so another thread changing
// the list (or a bytearray key) meanwhile cannot free or change what the C++ code reads, and no
// key needs a reference of its own (a reference count written per key cost as much as the
// lookup: bench/RESULTS.md, "Python").

#include <Python.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include <pybind11/pybind11.h>

namespace bloomkit::python {

class key_batch {
 public:
  // Runs over keys[first, first + keys.size()) of the batch; called without the GIL.
  using chunk_fn = std::function<void(std::span<const std::string_view> keys, std::size_t first)>;

  // Classifies `keys` (with the GIL); throws TypeError for what is not a batch. integer_keys:
  // for run_integers (a buffer of 1-byte items that is not bytes / bytearray is int8 / uint8).
  explicit key_batch(pybind11::handle keys, bool integer_keys = false);
  ~key_batch();
  key_batch(const key_batch&) = delete;
  key_batch& operator=(const key_batch&) = delete;

  // The number of keys when known before the run (sequences and buffers), else nullopt.
  std::optional<std::size_t> size() const noexcept { return size_; }
  // Calls fn on successive chunks, each with the GIL released; returns the number of keys.
  std::size_t run(const chunk_fn& fn);

  // Runs over keys[first, first + keys.size()) as 64-bit integer keys; called without the GIL.
  using integer_chunk_fn =
      std::function<void(std::span<const std::uint64_t> keys, std::size_t first)>;
  // The same for a filter of integer keys (key_type 'long'): an integer buffer's items widened
  // as widen_key widens them (signed formats sign-extended), an iterable's ints
  // (integer_key: a TypeError for any other key). A buffer of 1-byte items is int8 / uint8
  // (format 'b' / 'B': a NumPy array), but bytes and bytearray (text lines) are a TypeError.
  std::size_t run_integers(const integer_chunk_fn& fn);

  // Keys per chunk: enough for the C++ pipeline to overlap its cache misses, few enough that the
  // views and the copied bytes of one chunk stay in cache.
  static constexpr std::size_t chunk_keys = 8192;
  // An object chunk also ends once its copied bytes reach this (long keys), after the key that
  // crossed it.
  static constexpr std::size_t chunk_bytes = 64 * chunk_keys;

 private:
  enum class mode { integers, lines, sequence, iterator };
  void run_buffer(const chunk_fn& fn);
  std::size_t run_objects(const chunk_fn& fn);
  // Fill the next chunk (with the GIL) from the list / tuple at `first`, or from the iterator
  // (false once it is exhausted); throw for a key of a wrong type.
  void fill_from_sequence(std::size_t first);
  bool fill_from_iterator();
  // Copies the bytes of `key` to the chunk; throws for a key of a wrong type.
  void append_key(PyObject* key);
  void append_bytes(const char* data, std::size_t size);
  bool chunk_full() const noexcept { return views_.size() == chunk_keys || used_ >= chunk_bytes; }

  mode mode_ = mode::sequence;
  pybind11::object source_;  // the list/tuple, or the iterator
  Py_buffer buffer_{};
  bool holds_buffer_ = false;
  std::size_t item_size_ = 0;
  bool signed_items_ = false;
  bool byte_string_ = false;  // bytes or bytearray: text, never 1-byte integers
  std::optional<std::size_t> size_;

  // The current chunk of an object batch: the keys' bytes, one after the other in bytes_
  // (used_ of capacity_), and their views.
  std::unique_ptr<char[]> bytes_;
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
  std::vector<std::string_view> views_;
};

// The out= buffer of contains_many: writable, C-contiguous, 1-byte items (a NumPy bool array, a
// bytearray, ...), one per key; filled with 0 / 1.
class bool_out {
 public:
  // out may be None (no buffer).
  explicit bool_out(pybind11::handle out);
  ~bool_out();
  bool_out(const bool_out&) = delete;
  bool_out& operator=(const bool_out&) = delete;

  bool given() const noexcept { return held_; }
  // Throws InvalidArgumentError unless the buffer holds `keys` items.
  void require_size(std::size_t keys) const;
  // The items for keys [first, first + count); throws when the buffer is shorter.
  std::span<bool> slice(std::size_t first, std::size_t count) const;

 private:
  Py_buffer buffer_{};
  bool held_ = false;
};

// contains_many of every class, and add_many with `out`: runs answer(chunk, answers) -> count
// over the batch's chunks (without the GIL) of byte-string keys (Key std::string_view:
// key_batch::run) or integer keys (std::uint64_t: run_integers), the answers going to `out` when
// given (one 1-byte item per key) or to scratch; returns the sum of the counts.
template <class Key, class Answer>
std::size_t answered_keys(pybind11::handle keys, pybind11::handle out, Answer answer) {
  constexpr bool integers = std::is_same_v<Key, std::uint64_t>;
  key_batch batch(keys, integers);
  bool_out results(out);
  if (batch.size()) results.require_size(*batch.size());
  std::unique_ptr<bool[]> scratch;
  if (!results.given()) scratch = std::make_unique<bool[]>(key_batch::chunk_keys);
  std::size_t present = 0;
  const auto each = [&](std::span<const Key> chunk, std::size_t first) {
    const std::span<bool> answers = results.given() ? results.slice(first, chunk.size())
                                                    : std::span<bool>(scratch.get(), chunk.size());
    present += answer(chunk, answers);
  };
  std::size_t total = 0;
  if constexpr (integers) {
    total = batch.run_integers(each);
  } else {
    total = batch.run(each);
  }
  if (!batch.size()) results.require_size(total);
  return present;
}

template <class Answer>
std::size_t answered_batch(pybind11::handle keys, pybind11::handle out, Answer answer) {
  return answered_keys<std::string_view>(keys, out, answer);
}

// answered_batch over integer keys (key_batch::run_integers).
template <class Answer>
std::size_t answered_integer_batch(pybind11::handle keys, pybind11::handle out, Answer answer) {
  return answered_keys<std::uint64_t>(keys, out, answer);
}

}  // namespace bloomkit::python
