// `build --kind cuckoo`: the keys of every input are hashed by the parallel fill's workers (the
// same reading, chunking and progress line as the other kinds) and their distinct hashes
// inserted once each. A cuckoo filter stores a fingerprint per insert, repeats included, so a
// key file with repeats would otherwise fill it with copies (and `remove` of such a key would
// then need as many removes). Memory: 8 bytes per key read, beside the filter.
// Past its capacity (a --capacity below the distinct keys), the filter may be full: the keys it
// took are saved and the build fails naming it, as `add` does.

#include "build_cuckoo.hpp"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <random>
#include <span>
#include <string_view>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "cli_error.hpp"
#include "input.hpp"
#include "names.hpp"
#include "output_file.hpp"
#include "parallel_fill.hpp"

namespace bloomkit::cli {

void run_cuckoo_build(const cuckoo_build_request& r) {
  const auto start = std::chrono::steady_clock::now();
  if (r.capacity) {
    validate_sizing(*r.capacity, r.fpp);
  } else {
    validate_fpp_option(r.fpp);
  }
  // Held from here: a writer of FILE started meanwhile lands after the build, not under it.
  output_file out(r.file);
  std::vector<input_file> inputs = open_inputs(r.inputs);

  std::vector<std::uint64_t> hashes;
  std::mutex hashes_lock;
  const unsigned threads = r.threads > 0 ? r.threads : default_threads();
  const key_tally read =
      fill_with_progress(inputs, threads, [&](std::span<const std::string_view> keys) {
        std::vector<std::uint64_t> batch(keys.size());
        for (std::size_t i = 0; i < keys.size(); ++i) batch[i] = cuckoo_filter::digest_of(keys[i]);
        const std::lock_guard lock(hashes_lock);
        hashes.insert(hashes.end(), batch.begin(), batch.end());
        return std::size_t{0};
      });
  // Distinct, then in an order of their own: sorted hashes fill a table's buckets from one end,
  // which makes bounded kick walks fail early (at 70% of capacity, against 108% shuffled, in
  // tables of 5000). A fixed seed: the same keys give the same file, whatever the threads.
  std::sort(hashes.begin(), hashes.end());
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  std::shuffle(hashes.begin(), hashes.end(), std::mt19937_64(0x9e3779b97f4a7c15ULL));

  const std::uint64_t capacity = r.capacity.value_or(std::max<std::uint64_t>(hashes.size(), 1));
  validate_sizing(capacity, r.fpp);
  any_filter filter = make_filter(r.kind, capacity, r.fpp);
  const std::size_t stored = std::get<cuckoo_filter>(filter).insert_many(
      std::span<const std::uint64_t>(hashes.data(), hashes.size()));
  save(filter, r.file);
  if (stored < hashes.size()) {
    out.commit("");
    throw full_filter_error(filter, r.file, stored);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.commit(fmt::format("built {}: {} keys read, {} new, in {:.3f} s\n", printable(r.file),
                         read.keys, hashes.size(), seconds));
  warn_if_past_capacity(filter, r.file);
}

}  // namespace bloomkit::cli
