// bench_keygen: writes the peer benchmarks' key files (bench/bench_keys.hpp's URL-like keys,
// one per '\n'-terminated line) into DIR:
//
//   bench_keygen DIR --keys N --misses Q
//
//   DIR/keys.txt    ids 0..N-1 (the inserted set; a harness uses the first n lines)
//   DIR/misses.txt  ids miss_base + 0..Q-1 (never inserted; disjoint by construction)
//
// Each file is written to a temporary name and renamed when complete, so a file under its
// final name is always whole. Prints one line of JSON: counts, bytes, mean key length.

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "bench_keys.hpp"

namespace {

struct file_stats {
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;  // key bytes plus one '\n' per key
};

std::string errno_text() {
  return std::strerror(errno);
}

// Writes keys id_of(0..count-1) to `path` through a large buffer, via path + ".tmp".
template <class IdFn>
file_stats write_keys(const std::string& path, std::uint64_t count, IdFn id_of) {
  const std::string tmp = path + ".tmp";
  std::FILE* out = std::fopen(tmp.c_str(), "wb");
  if (out == nullptr) throw std::runtime_error("cannot create '" + tmp + "': " + errno_text());
  constexpr std::size_t buffer_size = std::size_t{8} << 20;
  std::unique_ptr<char[]> buffer(new char[buffer_size]);
  std::size_t used = 0;
  file_stats stats;
  auto flush = [&] {
    if (std::fwrite(buffer.get(), 1, used, out) != used) {
      const std::string why = errno_text();
      std::fclose(out);
      std::remove(tmp.c_str());
      throw std::runtime_error("cannot write '" + tmp + "': " + why);
    }
    used = 0;
  };
  for (std::uint64_t i = 0; i < count; ++i) {
    if (buffer_size - used < bloomkit::bench::max_key_length + 1) flush();
    const std::size_t length = bloomkit::bench::make_url_key(id_of(i), buffer.get() + used);
    buffer[used + length] = '\n';
    used += length + 1;
    stats.bytes += length + 1;
  }
  flush();
  if (std::fclose(out) != 0) {
    const std::string why = errno_text();
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot write '" + tmp + "': " + why);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    throw std::runtime_error("cannot rename '" + tmp + "' to '" + path + "': " + errno_text());
  }
  stats.count = count;
  return stats;
}

std::uint64_t parse_count(const char* flag, const char* text) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(v >= 1) || v > 1e10 ||
      v != static_cast<double>(static_cast<std::uint64_t>(v))) {
    throw std::invalid_argument(std::string(flag) + " wants a positive integer (e.g. 1e7), got '" +
                                text + "'");
  }
  return static_cast<std::uint64_t>(v);
}

}  // namespace

int main(int argc, char** argv) {
  const char* usage = "usage: bench_keygen DIR --keys N --misses Q\n";
  std::string dir;
  std::uint64_t keys = 0, misses = 0;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if ((arg == "--keys" || arg == "--misses") && i + 1 < argc) {
        (arg == "--keys" ? keys : misses) = parse_count(argv[i], argv[i + 1]);
        ++i;
      } else if (dir.empty() && arg.rfind("--", 0) != 0) {
        dir = arg;
      } else {
        std::fprintf(stderr, "bench_keygen: error: unexpected argument '%s'\n%s", argv[i], usage);
        return 2;
      }
    }
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "bench_keygen: error: %s\n%s", e.what(), usage);
    return 2;
  }
  if (dir.empty() || keys == 0 || misses == 0) {
    std::fprintf(stderr, "%s", usage);
    return 2;
  }
  try {
    const auto k = write_keys(dir + "/keys.txt", keys, [](std::uint64_t i) { return i; });
    const auto m = write_keys(dir + "/misses.txt", misses,
                              [](std::uint64_t i) { return bloomkit::bench::miss_base + i; });
    std::printf(
        "{\"keys\": %llu, \"keys_bytes\": %llu, \"misses\": %llu, \"misses_bytes\": %llu, "
        "\"mean_key_length\": %.3f}\n",
        static_cast<unsigned long long>(k.count), static_cast<unsigned long long>(k.bytes),
        static_cast<unsigned long long>(m.count), static_cast<unsigned long long>(m.bytes),
        static_cast<double>(k.bytes - k.count) / static_cast<double>(k.count));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_keygen: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
