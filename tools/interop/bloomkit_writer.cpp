// The bloomkit -> peer direction of tools/interop/generate: builds filters with bloomkit's interop
// schemes from scratch (sized as the peer sizes, keys of its own), writes them in the peers'
// formats, and records bloomkit's answers for probe keys in the vector text format
// (tests/support/interop_vectors.hpp). The peers' checkers (GuavaCheck.java, check/ in Go) then
// read those files with the real libraries and must answer the same.
//
// Usage: bloomkit_interop_writer OUTDIR

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "bloomkit/compat/bits_and_blooms.hpp"
#include "bloomkit/compat/go_zero.hpp"
#include "bloomkit/compat/guava.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bloomkit;

struct key {
  std::string bytes;  // what the filter hashes
  std::string text;   // how the vector file writes it
};

std::string hex(const std::string& s) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::vector<key> string_keys(const std::string& prefix, std::size_t count) {
  const char* stems[] = {"bk-", "ключ-", "鍵-", "\xF0\x9F\x94\x91-", "b"};
  std::vector<key> keys;
  for (std::size_t i = 0; keys.size() < count; ++i) {
    const std::string k = prefix + stems[i % 5] + std::to_string(i * 7919);
    keys.push_back({k, hex(k)});
  }
  return keys;
}

std::vector<key> long_keys(std::uint64_t salt, std::size_t count) {
  std::vector<key> keys;
  std::uint64_t x = 0x2545F4914F6CDD1DULL ^ salt;
  for (std::size_t i = 0; i < count; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const auto v = static_cast<std::int64_t>(i % 2 ? x : ~x);
    std::string bytes(8, '\0');
    auto u = static_cast<std::uint64_t>(v);
    for (char& c : bytes) {
      c = static_cast<char>(u & 0xff);
      u >>= 8;
    }
    keys.push_back({bytes, std::to_string(v)});
  }
  return keys;
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string as_string(const std::vector<unsigned char>& b) {
  return {b.begin(), b.end()};
}

// The vector text: parameters, the peer files, bloomkit's answers for the inserted and other keys.
template <class Filter>
void write_vector(const fs::path& path, const std::string& scheme, const std::string& key_type,
                  const Filter& f, const std::vector<std::string>& files,
                  const std::vector<key>& inserted, const std::vector<key>& absent) {
  std::ofstream out(path);
  out << "# bloomkit " << scheme << ", tools/interop/bloomkit_writer.cpp\n";
  out << "scheme " << scheme << "\nkey_type " << key_type << "\nbits " << f.bits() << "\nhashes "
      << f.hashes() << "\n";
  out << "file " << files.at(0) << "\n";
  if (files.size() > 1) out << "json " << files.at(1) << "\n";
  for (const auto* set : {&inserted, &absent}) {
    for (const key& k : *set) out << "probe " << k.text << " " << f.contains(k.bytes) << "\n";
  }
}

template <class Filter>
Filter filled(Filter f, const std::vector<key>& keys) {
  for (const key& k : keys) f.insert(k.bytes);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bloomkit_interop_writer OUTDIR\n");
    return 2;
  }
  const fs::path dir = argv[1];
  fs::create_directories(dir);
  const struct {
    std::uint64_t n;
    double p;
  } cases[] = {{200, 0.02}, {2000, 0.005}};
  int files = 0;
  for (const auto& c : cases) {
    const std::string tag = "n" + std::to_string(c.n);
    for (const std::string key_type : {"string", "long"}) {
      const auto inserted = key_type == "string" ? string_keys("", c.n) : long_keys(c.n, c.n);
      const auto absent = key_type == "string" ? string_keys("absent-", 500) : long_keys(7, 500);
      const std::string base32 = "guava_mitz32_" + key_type + "_" + tag;
      const auto f32 = filled(guava::mitz_32_filter::for_capacity(c.n, c.p), inserted);
      write_bytes(dir / (base32 + ".bin"), as_string(guava::write(f32)));
      write_vector(dir / (base32 + ".txt"), "guava_murmur128_mitz_32", key_type, f32,
                   {base32 + ".bin"}, inserted, absent);
      const std::string base64 = "guava_mitz64_" + key_type + "_" + tag;
      const auto f64 = filled(guava::mitz_64_filter::for_capacity(c.n, c.p), inserted);
      write_bytes(dir / (base64 + ".bin"), as_string(guava::write(f64)));
      write_vector(dir / (base64 + ".txt"), "guava_murmur128_mitz_64", key_type, f64,
                   {base64 + ".bin"}, inserted, absent);
      files += 2;
    }
    const auto inserted = string_keys("", c.n);
    const auto absent = string_keys("absent-", 500);
    const std::string bnb = "bnb_" + tag;
    const auto fb = filled(bits_and_blooms::filter::for_capacity(c.n, c.p), inserted);
    write_bytes(dir / (bnb + ".bin"), as_string(bits_and_blooms::write(fb)));
    write_bytes(dir / (bnb + ".json"), bits_and_blooms::write_json(fb));
    write_vector(dir / (bnb + ".txt"), "bits_and_blooms_v3", "string", fb,
                 {bnb + ".bin", bnb + ".json"}, inserted, absent);
    const std::string gz = "go_zero_" + tag;
    const auto fz = filled(go_zero::filter::for_capacity(c.n, c.p), inserted);
    write_bytes(dir / (gz + ".redis"), as_string(go_zero::to_redis(fz)));
    write_vector(dir / (gz + ".txt"), "go_zero", "string", fz, {gz + ".redis"}, inserted, absent);
    files += 2;
  }
  std::printf("bloomkit: wrote %d filters to %s\n", files, dir.c_str());
  return 0;
}
