// Quickstart: size a filter, add keys, ask about keys, save it, and serve lookups from the file.
//   example_quickstart [DIR]    (writes DIR/seen.bloom; DIR defaults to the current directory)

#include <bloomkit/bloomkit.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

int main(int argc, char** argv) try {
  const std::filesystem::path dir = argc > 1 ? argv[1] : ".";

  // One million expected keys, at most 1% false positives: m and k are derived.
  auto seen = bloomkit::bloom_filter::for_capacity(1'000'000, 0.01);
  std::printf("filter: %llu bits (%zu bytes), %u hashes\n",
              static_cast<unsigned long long>(seen.bits()), seen.byte_size(), seen.hashes());

  seen.insert("https://example.com/a");                     // true: it was new
  const bool again = seen.insert("https://example.com/a");  // false: already there
  std::printf("second insert of the same key reports new: %s\n", again ? "yes" : "no");

  // Batches hash a block of keys and prefetch their lines before probing: use them for bulk.
  std::vector<std::string> urls;
  for (int i = 0; i < 1000; ++i) urls.push_back("https://example.com/item/" + std::to_string(i));
  const std::vector<std::string_view> keys(urls.begin(), urls.end());
  std::printf("batch insert: %zu new keys\n", seen.insert_many(keys));

  auto answers = std::make_unique<bool[]>(keys.size());
  const std::size_t present = seen.contains_many(keys, {answers.get(), keys.size()});
  std::printf("batch lookup: %zu of %zu present\n", present, keys.size());
  std::printf("never inserted: %s\n", seen.contains("https://example.com/zzz") ? "maybe" : "no");

  // Save atomically, then map the file: lookups read the page cache, nothing is copied.
  const auto path = dir / "seen.bloom";
  bloomkit::save(seen, path);
  const auto mapped = bloomkit::map(path);
  std::printf("mapped %s: contains item/7: %s, estimated count %.0f\n", path.c_str(),
              mapped.contains("https://example.com/item/7") ? "yes" : "no",
              mapped.estimated_count());
  return present == keys.size() && mapped == seen ? 0 : 1;
} catch (const bloomkit::error& e) {
  // Every failure names its cause: a parameter, a file and what is wrong with it.
  std::fprintf(stderr, "quickstart: %s\n", e.what());
  return 1;
}
