#pragma once
// Internal: where the static builder (include/bloomkit/static_builder.hpp) keeps key hashes that
// do not fit its memory bound: one scratch file of appended segments, read back by offset.
// The file has no name (file/temp_file.hpp, open_scratch_file), so nothing survives the process
// however it ends; a segment's space is given back (hole punched) once it has been read for the
// last time, so the disk holds at most the 8 bytes of every hash not yet consumed.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <span>
#include <string>

#include "../../file/unique_fd.hpp"

namespace bloomkit::detail {

// A run of hashes in the spill file (offset and length in hashes).
struct spill_segment {
  std::uint64_t offset = 0;
  std::uint64_t count = 0;
};

class hash_spill {
 public:
  // Spills into `dir`, created there on the first append. `byte_limit` (tests only; 0 = none)
  // makes writes past that many bytes fail as a full disk would (ENOSPC).
  hash_spill(std::filesystem::path dir, std::uint64_t byte_limit = 0);

  // Writes `hashes` at the end of the file. Thread-safe. Throws bloomkit::error (io_error)
  // naming the directory and the system's reason (a full disk: "No space left on device").
  spill_segment append(std::span<const std::uint64_t> hashes);
  // Reads a segment into `out` (out.size() == segment.count). Thread-safe.
  void read(const spill_segment& segment, std::span<std::uint64_t> out) const;
  // Gives the segment's disk space back (best effort: file systems without hole punching keep
  // it until the file is closed).
  void release(const spill_segment& segment) noexcept;

  bool used() const noexcept { return written_.load() > 0; }
  // Bytes written so far, and the most the file held at once.
  std::uint64_t bytes_written() const noexcept { return written_.load(); }
  std::uint64_t peak_bytes() const noexcept { return peak_.load(); }

 private:
  [[noreturn]] void fail(const std::string& action, int err) const;

  std::filesystem::path dir_;
  std::uint64_t byte_limit_;
  std::mutex open_mutex_;
  unique_fd fd_;
  std::atomic<std::uint64_t> end_{0};  // bytes reserved
  std::atomic<std::uint64_t> written_{0};
  std::atomic<std::uint64_t> held_{0};
  std::atomic<std::uint64_t> peak_{0};
};

}  // namespace bloomkit::detail
