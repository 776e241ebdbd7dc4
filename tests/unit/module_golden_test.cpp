// The golden images of module values (tests/data/golden/module, tools/golden/generate): every
// image a module has written, of every type a module key can hold, still loads, in pieces of any
// size, and answers and reports as it did; the images of the version written today are rebuilt
// byte for byte from their keys. Module values live in users' RDB files for ever.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "module_value/filter_image.hpp"
#include "support/module_golden.hpp"

#ifndef BLOOMKIT_GOLDEN_DATA
#error "BLOOMKIT_GOLDEN_DATA must name tests/data/golden"
#endif

namespace bloomkit::redis_module {
namespace {

struct module_vector {
  std::string name;  // the case (module_golden.hpp)
  std::string image;
  std::uint32_t version = 0;
  std::size_t header_bytes = 0;
  bool nonscaling = false;
  std::uint64_t capacity = 0, items = 0, filters = 0;
  std::string expansion;
  std::vector<std::pair<std::string, bool>> probes;
};

const std::filesystem::path module_dir = std::filesystem::path(BLOOMKIT_GOLDEN_DATA) / "module";

module_vector read_vector(const std::filesystem::path& path) {
  module_vector v;
  const std::string stem = path.stem().string();
  v.name = stem.substr(stem.find('_') + 1);
  test::for_each_line(path, [&](const std::vector<std::string>& f) {
    if (f[0] == "image") {
      std::ifstream in(module_dir / f[1], std::ios::binary);
      v.image.assign(std::istreambuf_iterator<char>(in), {});
    } else if (f[0] == "version") {
      v.version = static_cast<std::uint32_t>(std::stoul(f[1]));
    } else if (f[0] == "header_bytes") {
      v.header_bytes = std::stoull(f[1]);
    } else if (f[0] == "nonscaling") {
      v.nonscaling = f[1] == "1";
    } else if (f[0] == "capacity") {
      v.capacity = std::stoull(f[1]);
    } else if (f[0] == "items") {
      v.items = std::stoull(f[1]);
    } else if (f[0] == "filters") {
      v.filters = std::stoull(f[1]);
    } else if (f[0] == "expansion") {
      v.expansion = f[1];
    } else if (f[0] == "probe") {
      v.probes.emplace_back(test::key_bytes(f[1], "string"), f[2] == "1");
    }
  });
  return v;
}

std::vector<std::filesystem::path> vector_files() {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(module_dir)) {
    if (entry.path().extension() == ".txt") out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string image_of(const module_filter& f) {
  std::string out = image_header(f);
  for (std::string_view piece : image_payload(f)) out.append(piece);
  return out;
}

class module_golden : public ::testing::TestWithParam<std::filesystem::path> {};

TEST_P(module_golden, LoadsInPiecesAndAnswersAsWritten) {
  const module_vector v = read_vector(GetParam());
  ASSERT_FALSE(v.image.empty()) << GetParam();
  ASSERT_FALSE(v.probes.empty());
  const std::string_view payload = std::string_view(v.image).substr(v.header_bytes);
  for (const std::size_t step : {std::size_t{1}, std::size_t{61}, payload.size()}) {
    image_loader loader(std::string_view(v.image).substr(0, v.header_bytes));
    for (std::size_t at = 0; at < payload.size(); at += step)
      loader.append(payload.substr(at, step));
    const module_filter f = loader.finish();
    EXPECT_EQ(f.nonscaling, v.nonscaling);
    EXPECT_EQ(capacity_of(f), v.capacity);
    EXPECT_EQ(items_of(f), v.items);
    EXPECT_EQ(filter_count_of(f), v.filters);
    const auto expansion = expansion_of(f);
    EXPECT_EQ(expansion ? std::to_string(*expansion) : "none", v.expansion);
    for (const auto& [key, expected] : v.probes) {
      const std::string_view keys[] = {key};
      bool present[1] = {false};
      find_keys(f, keys, present);
      EXPECT_EQ(present[0], expected) << key;
    }
    if (v.version == image_version_written) {
      EXPECT_EQ(image_of(f), v.image);
    }
  }
}

TEST_P(module_golden, TodaysVersionIsRebuiltFromItsKeys) {
  const module_vector v = read_vector(GetParam());
  if (v.version != image_version_written) GTEST_SKIP() << "an earlier version's image";
  module_filter f = test::module_golden_empty(v.name);
  test::for_each_line(GetParam(), [&](const std::vector<std::string>& line) {
    if (line[0] != "insert" && line[0] != "remove") return;
    const std::string key = test::key_bytes(line[1], "string");
    if (line[0] == "insert") {
      const std::string_view keys[] = {key};
      bool added[1];
      ASSERT_EQ(add_keys(f, keys, added), 1u);
    } else {
      ASSERT_TRUE(std::get<counting_bloom_filter>(f.filter).remove(key));
    }
  });
  EXPECT_EQ(image_of(f), v.image);
}

// An image of an earlier version is converted on read: saved again, it is today's image of the
// same filter.
TEST_P(module_golden, AnEarlierVersionIsSavedAsTodays) {
  const module_vector v = read_vector(GetParam());
  if (v.version == image_version_written) GTEST_SKIP() << "today's version";
  image_loader loader(std::string_view(v.image).substr(0, v.header_bytes));
  loader.append(std::string_view(v.image).substr(v.header_bytes));
  const module_vector today = read_vector(
      module_dir / ("v" + std::to_string(image_version_written) + "_" + v.name + ".txt"));
  EXPECT_EQ(image_of(loader.finish()), today.image);
}

TEST(ModuleGolden, EveryCaseHasAnImageOfTodaysVersion) {
  for (const auto& c : test::module_golden_cases()) {
    EXPECT_TRUE(std::filesystem::exists(
        module_dir / ("v" + std::to_string(image_version_written) + "_" + c.name + ".txt")))
        << c.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Images, module_golden, ::testing::ValuesIn(vector_files()),
                         [](const auto& info) { return test::test_name(info.param); });

}  // namespace
}  // namespace bloomkit::redis_module
