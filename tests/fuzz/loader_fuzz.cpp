// Fuzz target for every filter-file reader: read_header, load, map (full and header-only), for
// every filter kind.
// Any input must end in a filter or a bloomkit::error; anything else (a crash, a sanitizer
// report, another exception) is a bug.

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "bloomkit/file.hpp"

namespace {

// The readers of one filter type: load and map must end in a usable filter or an error.
template <class Filter>
void exercise_kind(const std::string& path) {
  try {
    auto f = bloomkit::load<Filter>(path);
    f.insert("fuzz");
    if (!f.contains("fuzz")) std::abort();
    (void)f.estimated_count();
    (void)f.estimated_fpp();
  } catch (const bloomkit::error&) {
  }
  for (auto check : {bloomkit::verify::full, bloomkit::verify::header}) {
    try {
      const auto m = bloomkit::map<Filter>(path, check);
      (void)m.contains("fuzz");
      (void)m.fill_ratio();
    } catch (const bloomkit::error&) {
    }
  }
}

void exercise(const std::string& path) {
  exercise_kind<bloomkit::blocked_bloom_filter>(path);
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
