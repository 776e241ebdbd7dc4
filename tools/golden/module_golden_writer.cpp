// Writes the golden images of module values (tests/data/golden/module; run tools/golden/generate)
// in the image version the module writes today, beside those of earlier versions, which stay
// (tests/support/module_golden.hpp says what they hold).
//
//   bloomkit_module_golden_writer DIR

#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>

#include "module_value/filter_image.hpp"
#include "support/golden_vectors.hpp"
#include "support/module_golden.hpp"

namespace {

using namespace bloomkit;
using redis_module::module_filter;

bool answer(const module_filter& f, const std::string& key) {
  const std::string_view keys[] = {key};
  bool present[1] = {false};
  redis_module::find_keys(f, keys, present);
  return present[0];
}

void write_case(const test::module_golden_case& c, const std::filesystem::path& dir) {
  module_filter f = test::module_golden_empty(c.name);
  std::ostringstream ops;
  for (std::uint64_t i = 0; i < c.inserts; ++i) {
    const std::string key = test::module_golden_key(i);
    const std::string_view keys[] = {key};
    bool added[1];
    if (redis_module::add_keys(f, keys, added) != 1) break;  // a full NONSCALING filter
    ops << "insert " << test::key_text(key, "string") << '\n';
  }
  for (std::uint64_t i = 0; i < c.removes; ++i) {
    const std::string key = test::module_golden_key(i);
    std::get<counting_bloom_filter>(f.filter).remove(key);
    ops << "remove " << test::key_text(key, "string") << '\n';
  }
  const std::string header = redis_module::image_header(f);
  std::string image = header;
  for (std::string_view piece : redis_module::image_payload(f)) image.append(piece);
  const std::string version = std::to_string(redis_module::image_version_written);
  const std::string file = "v" + version + "_" + c.name + ".bkimage";
  std::ofstream(dir / file, std::ios::binary) << image;

  std::ofstream out(dir / ("v" + version + "_" + c.name + ".txt"));
  out << "# bloomkit module golden image, written by tools/golden/generate: do not edit. Module\n"
         "# values live in users' RDB files: a change to this image is a format change.\n";
  const auto expansion = redis_module::expansion_of(f);
  out << "image " << file << "\nversion " << version << "\nheader_bytes " << header.size()
      << "\nnonscaling " << (f.nonscaling ? 1 : 0) << "\ncapacity " << redis_module::capacity_of(f)
      << "\nitems " << redis_module::items_of(f) << "\nfilters " << redis_module::filter_count_of(f)
      << "\nexpansion " << (expansion ? std::to_string(*expansion) : "none") << '\n'
      << ops.str();
  for (std::uint64_t i = 0; i < c.inserts; ++i) {
    const std::string key = test::module_golden_key(i);
    out << "probe " << test::key_text(key, "string") << ' ' << answer(f, key) << '\n';
  }
  for (std::uint64_t i = 0; i < 100; ++i) {
    const std::string key = test::module_golden_absent(i);
    out << "probe " << test::key_text(key, "string") << ' ' << answer(f, key) << '\n';
  }
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bloomkit_module_golden_writer DIR\n");
    return 2;
  }
  std::filesystem::create_directories(argv[1]);
  for (const auto& c : test::module_golden_cases()) write_case(c, argv[1]);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bloomkit_module_golden_writer: %s\n", e.what());
  return 1;
}
