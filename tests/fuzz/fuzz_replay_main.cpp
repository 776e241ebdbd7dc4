// Runs the loader fuzz target without libFuzzer (replay_driver.hpp): on real filter files of every
// kind, deterministic mutations of them, and the files given as arguments. `--write-seeds DIR`
// writes the real files, as a seed corpus for libFuzzer.

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bloomkit/file.hpp"
#include "replay_driver.hpp"

namespace {

// Fills `f` with n keys, saves it as dir/name and returns the file's bytes.
template <class Filter>
std::vector<std::uint8_t> real_file(Filter f, std::uint64_t n, const std::filesystem::path& dir,
                                    const std::string& name) {
  for (std::uint64_t i = 0; i < n; ++i) f.insert("seed-" + std::to_string(i));
  const auto path = dir / name;
  bloomkit::save(f, path);
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A static filter of n keys, saved as dir/name; the file's bytes.
std::vector<std::uint8_t> static_file(std::uint64_t n, double fpp, const std::filesystem::path& dir,
                                      const std::string& name) {
  std::vector<std::string> keys;
  for (std::uint64_t i = 0; i < n; ++i) keys.push_back("seed-" + std::to_string(i));
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  const auto path = dir / name;
  bloomkit::save(bloomkit::static_filter::build(views, fpp), path);
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  using bloomkit::blocked_bloom_filter;
  using bloomkit::bloom_filter;
  using bloomkit::counting_bloom_filter;
  using bloomkit::scalable_bloom_filter;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("bloomkit-fuzz-seeds-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::vector<std::vector<std::uint8_t>> seeds = {
      real_file(bloom_filter::for_capacity(1, 0.5), 1, dir, "tiny"),
      real_file(bloom_filter::for_capacity(300, 0.01), 300, dir, "small"),
      real_file(counting_bloom_filter::for_capacity(200, 0.05), 200, dir, "counting"),
      real_file(scalable_bloom_filter(10, 0.05, 2, 0.5, 1 << 16), 60, dir, "scalable"),
      real_file(blocked_bloom_filter::for_capacity(300, 0.01), 300, dir, "blocked"),
      static_file(300, 0.01, dir, "static"),
      real_file(bloomkit::cuckoo_filter({.capacity = 50, .target_fpp = 0.01, .expansion = 2}), 120,
                dir, "cuckoo"),
  };
  std::filesystem::remove_all(dir);
  return bloomkit::test::run_replay(argc, argv, seeds, {"fuzz replay", 20261122, 3000, 160});
}
