// Fuzz target for every filter-file reader: read_header, and load and map (full and
// header-only) of every kind.
// Any input must end in a filter or a bloomkit::error; anything else (a crash, a sanitizer
// report, another exception) is a bug.

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "bloomkit/file.hpp"

namespace {

void exercise(const std::string& path) {
  try {
    bloomkit::read_header(path);
  } catch (const bloomkit::error&) {
  }
  try {
    auto f = bloomkit::load(path);
    // A loaded filter must be usable.
    f.insert("fuzz");
    if (!f.contains("fuzz")) std::abort();
    (void)f.estimated_count();
  } catch (const bloomkit::error&) {
  }
  for (auto check : {bloomkit::verify::full, bloomkit::verify::header}) {
    try {
      const auto m = bloomkit::map(path, check);
      (void)m.contains("fuzz");
      (void)m.fill_ratio();
    } catch (const bloomkit::error&) {
    }
  }
  try {
    auto f = bloomkit::load<bloomkit::counting_bloom_filter>(path);
    f.insert("fuzz");
    if (!f.contains("fuzz") || !f.remove("fuzz")) std::abort();
    (void)f.estimated_count();
    (void)f.to_bloom_filter();
  } catch (const bloomkit::error&) {
  }
  try {
    auto f = bloomkit::load<bloomkit::scalable_bloom_filter>(path);
    try {
      f.insert("fuzz");
      if (!f.contains("fuzz")) std::abort();
    } catch (const bloomkit::error& e) {
      // A loaded chain may be at its memory ceiling or at the end of what it can grow to.
      if (e.code() != bloomkit::errc::too_large) std::abort();
    }
    (void)f.estimated_fpp();
  } catch (const bloomkit::error&) {
  }
  for (auto check : {bloomkit::verify::full, bloomkit::verify::header}) {
    try {
      const auto m = bloomkit::map<bloomkit::counting_bloom_filter>(path, check);
      (void)m.contains("fuzz");
      (void)m.fill_ratio();
    } catch (const bloomkit::error&) {
    }
    try {
      const auto m = bloomkit::map<bloomkit::scalable_bloom_filter>(path, check);
      (void)m.contains("fuzz");
      (void)m.fill_ratio();
    } catch (const bloomkit::error&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int fd = ::memfd_create("bloomkit-fuzz", 0);
  if (fd < 0) std::abort();
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n <= 0) std::abort();
    done += static_cast<std::size_t>(n);
  }
  exercise("/proc/self/fd/" + std::to_string(fd));
  ::close(fd);
  return 0;
}
