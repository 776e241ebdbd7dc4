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

// The readers of one filter type: load must end in a usable filter (`use` exercises it) or an
// error, and so must map.
template <class Filter, class Use>
void exercise_kind(const std::string& path, Use use) {
  try {
    auto f = bloomkit::load<Filter>(path);
    use(f);
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

void insert_and_find(auto& f) {
  f.insert("fuzz");
  if (!f.contains("fuzz")) std::abort();
}

void exercise(const std::string& path) {
  try {
    bloomkit::read_header(path);
  } catch (const bloomkit::error&) {
  }
  exercise_kind<bloomkit::bloom_filter>(path, [](auto& f) { insert_and_find(f); });
  exercise_kind<bloomkit::blocked_bloom_filter>(path, [](auto& f) { insert_and_find(f); });
  exercise_kind<bloomkit::counting_bloom_filter>(path, [](auto& f) {
    insert_and_find(f);
    if (!f.remove("fuzz")) std::abort();
    (void)f.to_bloom_filter();
  });
  // A static filter takes no insert: its lookups, batched and single, must agree.
  exercise_kind<bloomkit::static_filter>(path, [](auto& f) {
    const std::string_view keys[] = {"fuzz", "seed-0", "seed-1", ""};
    bool present[4];
    f.contains_many(keys, present);
    for (int i = 0; i < 4; ++i) {
      if (present[i] != f.contains(keys[i])) std::abort();
    }
  });
  // A cuckoo filter: a key it stored is present and removable; a full one refuses it unchanged.
  exercise_kind<bloomkit::cuckoo_filter>(path, [](auto& f) {
    const std::uint64_t items = f.items();
    if (f.insert("fuzz")) {
      if (!f.contains("fuzz") || f.count("fuzz") == 0 || !f.remove("fuzz")) std::abort();
    }
    if (f.items() != items) std::abort();
  });
  exercise_kind<bloomkit::scalable_bloom_filter>(path, [](auto& f) {
    try {
      insert_and_find(f);
    } catch (const bloomkit::error& e) {
      // A loaded chain may be at its memory ceiling or at the end of what it can grow to.
      if (e.code() != bloomkit::errc::too_large) std::abort();
    }
  });
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
