#pragma once
// Byte-level input: files and stdin, mapped when they are regular files (streamed otherwise:
// line_stream.hpp), and the line rule that turns bytes into keys.
//
// The line rule (docs/CLI.md): a key is the bytes of a line without its '\n'; one '\r' right
// before the '\n' (or at the end of the input) is removed too. An empty line is the empty key.
// The input's last line is a key even without a final '\n', but the nothing after a final '\n'
// is not: "a\nb" and "a\nb\n" are both the two keys "a" and "b", "\n" is one empty key and an
// empty input has no keys. Each input is split on its own: a file's last line never joins the
// next file's first line.

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/mapped_file.hpp"

namespace bloomkit::cli {

// Calls f(key) for every key in `block`, a run of whole lines (see the line rule above).
template <class F>
inline void for_each_line(std::string_view block, F&& f) {
  const char* p = block.data();
  const char* const end = p + block.size();
  while (p < end) {
    const auto* newline = static_cast<const char*>(std::memchr(p, '\n', end - p));
    const char* const line_end = newline ? newline : end;
    std::size_t length = static_cast<std::size_t>(line_end - p);
    if (length > 0 && p[length - 1] == '\r') --length;
    f(std::string_view(p, length));
    p = newline ? newline + 1 : end;
  }
}

// The number of keys for_each_line() finds in `bytes` (memchr, no per-key work).
std::uint64_t count_lines(std::string_view bytes) noexcept;

// An opened input: a named file, or stdin for "-".
class input_file {
 public:
  // Opens the file (stdin for "-"). Throws bloomkit::error (io_error) naming the file when it
  // cannot be opened or is a directory.
  explicit input_file(std::string name);
  ~input_file();
  input_file(input_file&& other) noexcept;
  input_file& operator=(input_file&&) = delete;
  input_file(const input_file&) = delete;
  input_file& operator=(const input_file&) = delete;

  const std::string& name() const noexcept { return name_; }
  bool is_stdin() const noexcept { return name_ == "-"; }
  int fd() const noexcept { return fd_; }
  // A regular file (or stdin redirected from one): its size is known.
  bool regular() const noexcept { return regular_; }
  // Bytes left to read, for regular inputs.
  std::uint64_t size() const noexcept { return size_; }
  // Regular named files are mapped and split in parallel; everything else is streamed.
  bool mappable() const noexcept { return regular_ && !is_stdin(); }
  // The whole file (its size() bytes at open), mapped read-only on first use. Only for
  // mappable() inputs. If the file shrinks or is rewritten meanwhile (log rotation), reads of the
  // lost part see 0xFF bytes instead of killing the process (mapped_file.hpp), and
  // check_unchanged() fails: call it after reading, before using what was read.
  std::string_view mapped();
  // Throws bloomkit::error (io_error) naming the input when its mapping no longer shows the file
  // as it was when opened (truncated or overwritten in place). Nothing for unmapped inputs.
  void check_unchanged() const;

 private:
  std::string name_;
  int fd_ = -1;
  bool regular_ = false;
  std::uint64_t size_ = 0;
  std::unique_ptr<mapped_file> map_;
};

// Opens the inputs named (stdin when there are none), in order.
std::vector<input_file> open_inputs(std::vector<std::string> names);

// The bytes of all `inputs` when every one is regular, for a progress bar; none otherwise.
std::optional<std::uint64_t> total_size(const std::vector<input_file>& inputs);

}  // namespace bloomkit::cli
