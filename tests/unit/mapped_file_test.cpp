// A mapped filter whose file shrinks or is overwritten in place (cp over it, truncate, log
// rotation) must never kill the process (SIGBUS) nor answer "absent" for a key it holds: reads
// of the lost pages see all-one bits, and lookups throw errc::io_error naming the file. Each case
// runs in a forked child (support/forked_child.hpp): without the fix the child dies of SIGBUS
// and the test fails instead of the suite.

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <variant>
#include <vector>

#include "bloomkit/compat/any_filter.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/mapped_file.hpp"
#include "support/errors.hpp"
#include "support/file_checks.hpp"
#include "support/forked_child.hpp"
#include "support/keys.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

namespace fs = std::filesystem;
// Every kind a file can hold, the peers' filters included.
using compat::any_filter;
using compat::check_mapped_file;
using compat::load_any;
using compat::map_any;
using compat::save;
using test::expect_child_succeeds;
using test::make_keys;
using test::read_bytes;
using test::temp_dir;
using test::views;
using test::write_bytes;

constexpr std::size_t key_count = 20000;

// A filter of each kind (and an interop scheme), sized for `n` keys, holding `keys`.
struct kind_case {
  const char* name;
  std::function<any_filter(std::uint64_t n)> make;
};

const std::vector<kind_case>& kinds() {
  static const std::vector<kind_case> all = {
      {"classic", [](std::uint64_t n) { return any_filter(bloom_filter::for_capacity(n, 0.01)); }},
      {"blocked",
       [](std::uint64_t n) { return any_filter(blocked_bloom_filter::for_capacity(n, 0.01)); }},
      {"counting",
       [](std::uint64_t n) { return any_filter(counting_bloom_filter::for_capacity(n, 0.01)); }},
      {"scalable",
       [](std::uint64_t n) { return any_filter(scalable_bloom_filter(n / 8 + 1, 0.01)); }},
      {"guava",
       [](std::uint64_t n) { return any_filter(guava::mitz_64_filter::for_capacity(n, 0.01)); }},
  };
  return all;
}

// Saves a filter of `kind` holding keys[0..count) to `path`.
void save_filter(const kind_case& kind, const std::vector<std::string>& keys,
                 const fs::path& path) {
  any_filter f = kind.make(key_count);
  std::visit([&](auto& filter) { filter.insert_many(views(keys)); }, f);
  save(f, path);
}

// contains_many over every key: the answers, and the error it threw (if any).
struct lookup {
  std::vector<bool> answers;
  std::optional<error> failure;
};
lookup look_up(const any_filter& f, const std::vector<std::string>& keys) {
  const std::vector<std::string_view> v = views(keys);
  const auto results = std::make_unique<bool[]>(v.size());
  lookup out;
  try {
    std::visit([&](const auto& filter) { filter.contains_many(v, {results.get(), v.size()}); }, f);
  } catch (const error& e) {
    out.failure = e;
  }
  out.answers.assign(results.get(), results.get() + v.size());
  return out;
}

void expect_changed_error(const std::optional<error>& e, const fs::path& path) {
  ASSERT_TRUE(e.has_value()) << "no error for a changed mapped file";
  EXPECT_EQ(e->code(), errc::io_error) << e->what();
  const std::string message = e->what();
  EXPECT_NE(message.find(path.string()), std::string::npos) << message;
  EXPECT_NE(message.find("truncated or overwritten"), std::string::npos) << message;
}

// Overwrites `path` in place with `bytes`, as cp does: open with O_TRUNC, then write.
void overwrite_in_place(const fs::path& path, const std::vector<unsigned char>& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  ::close(fd);
}

// How the file under the mapping changes.
enum class change {
  truncate_to_zero,      // every page gone
  truncate_to_one_page,  // the header page stays
  truncate_last_bytes,   // cut inside the last page: no page is gone, its tail reads 0
  cp_smaller_filter,     // cp of a smaller filter of the same kind over it
  cp_same_size_filter,   // cp of a filter with the same parameters and other keys
};

// Maps a filter of `kind`, checks it, changes the file as `how` says, and expects every lookup
// to fail with an error naming the file; after a pure truncation, the answers computed before
// the error still say "present" for every key (the lost pages read as all-ones).
void check_change(const kind_case& kind, change how) {
  SCOPED_TRACE(kind.name);
  temp_dir dir;
  const fs::path path = dir / "f.bf";
  const auto keys = make_keys(key_count, 1);
  save_filter(kind, keys, path);
  const auto original = read_bytes(path);
  ASSERT_GT(original.size(), 3 * 4096u) << "the test needs a file of several pages";

  expect_child_succeeds([&] {
    const any_filter mapped = map_any(path);
    const lookup before = look_up(mapped, keys);
    ASSERT_FALSE(before.failure) << before.failure->what();
    for (bool a : before.answers) ASSERT_TRUE(a);

    switch (how) {
      case change::truncate_to_zero:
        ASSERT_EQ(::truncate(path.c_str(), 0), 0);
        break;
      case change::truncate_to_one_page:
        ASSERT_EQ(::truncate(path.c_str(), 4096), 0);
        break;
      case change::truncate_last_bytes: {
        const std::size_t cut = 64;
        bool lost_bits = false;
        for (std::size_t i = original.size() - cut; i < original.size(); ++i) {
          lost_bits |= original[i] != 0;
        }
        ASSERT_TRUE(lost_bits) << "the cut must drop set bits";
        ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(original.size() - cut)), 0);
        break;
      }
      case change::cp_smaller_filter: {
        any_filter small = kind.make(key_count / 4);
        std::visit([&](auto& f) { f.insert_many(views(make_keys(100, 2))); }, small);
        save(small, dir / "small.bf");
        overwrite_in_place(path, read_bytes(dir / "small.bf"));
        break;
      }
      case change::cp_same_size_filter:
        save_filter(kind, make_keys(key_count, 3), dir / "other.bf");
        ASSERT_EQ(read_bytes(dir / "other.bf").size(), original.size());
        overwrite_in_place(path, read_bytes(dir / "other.bf"));
        break;
    }

    const lookup after = look_up(mapped, keys);
    expect_changed_error(after.failure, path);
    if (how == change::truncate_to_zero) {
      // Every lost page reads as all-ones (fill_ratio reads every word, unchecked).
      std::visit([](const auto& f) { EXPECT_GE(f.fill_ratio(), 1.0); }, mapped);
    }
    // What a failed lookup wrote is unspecified, but the classic, blocked and counting filters
    // write their answers before the check: for a pure truncation, every key still says present.
    // (The scalable filter fills in answers after each sub-filter's lookup returns.)
    const bool answers_written = !std::holds_alternative<scalable_bloom_filter>(mapped);
    if (answers_written &&
        (how == change::truncate_to_zero || how == change::truncate_to_one_page)) {
      for (std::size_t i = 0; i < keys.size(); ++i) {
        ASSERT_TRUE(after.answers[i]) << "false negative for key " << i;
      }
    }
    // One key at a time too, and for good: the mapping stays broken.
    for (std::size_t i = 0; i < 3; ++i) {
      expect_changed_error(
          test::thrown_by([&] { std::visit([&](const auto& f) { f.contains(keys[i]); }, mapped); }),
          path);
    }
    expect_changed_error(look_up(mapped, keys).failure, path);
  });
}

TEST(MappedFile, TruncatedToZero) {
  for (const kind_case& kind : kinds()) check_change(kind, change::truncate_to_zero);
}

TEST(MappedFile, TruncatedToItsFirstPage) {
  for (const kind_case& kind : kinds()) check_change(kind, change::truncate_to_one_page);
}

TEST(MappedFile, TruncatedInsideItsLastPage) {
  for (const kind_case& kind : kinds()) check_change(kind, change::truncate_last_bytes);
}

TEST(MappedFile, SmallerFilterCopiedOverIt) {
  for (const kind_case& kind : kinds()) check_change(kind, change::cp_smaller_filter);
}

TEST(MappedFile, SameSizeFilterCopiedOverIt) {
  for (const kind_case& kind : kinds()) check_change(kind, change::cp_same_size_filter);
}

// The typed readers (map<F>) fail the same way, one key at a time too.
template <class Filter>
void check_typed(const kind_case& kind) {
  SCOPED_TRACE(kind.name);
  temp_dir dir;
  const fs::path path = dir / "f.bf";
  const auto keys = make_keys(key_count, 1);
  save_filter(kind, keys, path);
  expect_child_succeeds([&] {
    const Filter f = map<Filter>(path);
    ASSERT_TRUE(f.contains(keys[0]));
    ASSERT_EQ(::truncate(path.c_str(), 0), 0);
    for (std::size_t i = 0; i < 100; ++i) {
      bool answer = false;
      const auto e = test::thrown_by([&] { answer = f.contains(keys[i]); });
      expect_changed_error(e, path);
    }
  });
}

TEST(MappedFile, TypedReadersThrowPerKey) {
  check_typed<bloom_filter>(kinds()[0]);
  check_typed<blocked_bloom_filter>(kinds()[1]);
  check_typed<counting_bloom_filter>(kinds()[2]);
  check_typed<scalable_bloom_filter>(kinds()[3]);
}

// What else reads a mapped filter's bits checks the file too: merge and intersect reading it,
// counting_bloom_filter::to_bloom_filter, and check_mapped_file (after figures such as
// fill_ratio, which do not check by themselves).
TEST(MappedFile, MergeAndFiguresOfAChangedFileFail) {
  for (const kind_case& kind : kinds()) {
    SCOPED_TRACE(kind.name);
    temp_dir dir;
    const fs::path path = dir / "f.bf";
    save_filter(kind, make_keys(key_count, 1), path);
    expect_child_succeeds([&] {
      any_filter loaded = load_any(path);
      const any_filter mapped = map_any(path);
      EXPECT_NO_THROW(check_mapped_file(mapped));
      EXPECT_NO_THROW(check_mapped_file(loaded));
      ASSERT_EQ(::truncate(path.c_str(), 0), 0);
      std::visit([](const auto& f) { (void)f.fill_ratio(); }, mapped);
      expect_changed_error(test::thrown_by([&] { check_mapped_file(mapped); }), path);
      std::visit(
          [&](auto& into) {
            using F = std::decay_t<decltype(into)>;
            const F& from = std::get<F>(mapped);
            if constexpr (!std::is_same_v<F, scalable_bloom_filter>) {
              expect_changed_error(test::thrown_by([&] { into.merge(from); }), path);
            }
            if constexpr (requires { into.intersect(from); }) {
              expect_changed_error(test::thrown_by([&] { into.intersect(from); }), path);
            }
            if constexpr (std::is_same_v<F, counting_bloom_filter>) {
              expect_changed_error(test::thrown_by([&] { (void)from.to_bloom_filter(); }), path);
            }
          },
          loaded);
    });
  }
}

// Readers on several threads while the file is truncated: no crash, no "absent" for a held key
// before the error, and every thread gets the error.
TEST(MappedFile, ConcurrentReadersSeeTheErrorAndNoFalseNegative) {
  for (const kind_case& kind : kinds()) {
    SCOPED_TRACE(kind.name);
    temp_dir dir;
    const fs::path path = dir / "f.bf";
    const auto keys = make_keys(key_count, 1);
    save_filter(kind, keys, path);
    expect_child_succeeds([&] {
      const any_filter mapped = map_any(path);
      constexpr int threads = 3;
      std::atomic<int> rounds{0};
      std::atomic<int> false_negatives{0};
      std::atomic<int> errors{0};
      std::vector<std::thread> readers;
      for (int t = 0; t < threads; ++t) {
        readers.emplace_back([&] {
          for (int round = 0; round < 10000; ++round) {
            const lookup l = look_up(mapped, keys);
            if (l.failure) {
              if (l.failure->code() == errc::io_error) ++errors;
              return;
            }
            for (bool a : l.answers) false_negatives += !a;
            ++rounds;
          }
        });
      }
      while (rounds.load() < threads) std::this_thread::yield();
      EXPECT_EQ(::truncate(path.c_str(), 0), 0);
      for (std::thread& r : readers) r.join();
      EXPECT_EQ(false_negatives.load(), 0);
      EXPECT_EQ(errors.load(), threads);
    });
  }
}

// A file replaced by rename (mv, or bloomkit's own writers) leaves the mapping on the old file:
// the mapped filter keeps answering from it, without error.
TEST(MappedFile, ReplacedByRenameKeepsAnswering) {
  temp_dir dir;
  const fs::path path = dir / "f.bf";
  const auto keys = make_keys(key_count, 1);
  for (const kind_case& kind : kinds()) {
    SCOPED_TRACE(kind.name);
    save_filter(kind, keys, path);
    const any_filter mapped = map_any(path);
    save_filter(kind, make_keys(key_count, 2), dir / "new.bf");
    fs::rename(dir / "new.bf", path);
    const lookup l = look_up(mapped, keys);
    EXPECT_FALSE(l.failure) << l.failure->what();
    for (bool a : l.answers) ASSERT_TRUE(a);
  }
}

// The fault handler only takes faults in live bloomkit mappings: a SIGBUS in any other mapping
// (here one at the address a destroyed bloomkit mapping just left) still ends the process.
TEST(MappedFile, FaultsElsewhereStillKill) {
  temp_dir dir;
  save_filter(kinds()[0], make_keys(key_count, 1), dir / "f.bf");
  const auto size = fs::file_size(dir / "f.bf");
  const int status = test::status_of_child([&] {
    {
      const bloom_filter f = map(dir / "f.bf");  // installs the handler
      EXPECT_FALSE(f.contains("absent key"));
    }
    const int fd = ::open((dir / "f.bf").c_str(), O_RDONLY);
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    ASSERT_NE(p, MAP_FAILED);
    ASSERT_EQ(::truncate((dir / "f.bf").c_str(), 0), 0);
    // Quiet: a sanitizer's handler (chained to) reports the fault before the process ends.
    const int saved_stderr = ::dup(2);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 2);
    const volatile unsigned char* bytes = static_cast<const unsigned char*>(p);
    (void)bytes[size - 1];  // SIGBUS: nobody may turn it into a read
    ::dup2(saved_stderr, 2);
    std::fprintf(stderr, "child: survived a SIGBUS outside bloomkit's mappings\n");
    ::_exit(3);
  });
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 3) << test::describe_status(status);
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << test::describe_status(status);
}

// A SIGBUS handler installed before bloomkit's still gets the faults that are not bloomkit's.
// (A death test in its own process: bloomkit's handler must not be installed yet.)
extern "C" void exit_42(int) {
  ::_exit(42);
}

TEST(MappedFileDeathTest, ChainsToTheHandlerBeforeIt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  temp_dir dir;
  save_filter(kinds()[0], make_keys(key_count, 1), dir / "f.bf");
  write_bytes(dir / "other", std::vector<unsigned char>(3 * 4096, 'x'));
  EXPECT_EXIT(
      {
        std::signal(SIGBUS, exit_42);
        const bloom_filter f = map(dir / "f.bf");
        (void)f.contains("key");
        const int fd = ::open((dir / "other").c_str(), O_RDONLY);
        void* p = ::mmap(nullptr, 3 * 4096, PROT_READ, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED || ::truncate((dir / "other").c_str(), 0) != 0) ::_exit(1);
        (void)static_cast<const volatile unsigned char*>(p)[2 * 4096];
        ::_exit(0);
      },
      ::testing::ExitedWithCode(42), "");
}

// mapped_file itself, on any file: lost pages read 0xFF, intact() turns false and check() names
// the file; a file cut inside its last page (no fault) and a watched word that changes are noticed
// too; a file that only grows is not a change.
TEST(MappedFile, AnyFileThatShrinksIsNoticed) {
  temp_dir dir;
  const fs::path path = dir / "keys.txt";
  constexpr std::size_t size = (5u << 20) + 1000;  // more than two 2 MiB blocks
  std::vector<unsigned char> text(size, 'k');
  for (std::size_t i = 99; i < size; i += 100) text[i] = '\n';
  write_bytes(path, text);
  expect_child_succeeds([&] {
    const mapped_file m(path, mapped_file::access::sequential);
    ASSERT_EQ(m.size(), size);
    EXPECT_EQ(m.name(), path.string());
    EXPECT_TRUE(m.intact());
    ASSERT_EQ(::truncate(path.c_str(), 3 << 20), 0);
    EXPECT_EQ(m.data()[(3u << 20) - 1], 'k');  // still in the file
    const volatile unsigned char* bytes = m.data();
    EXPECT_EQ(bytes[size - 1], 0xff);  // lost: all-ones instead of SIGBUS
    EXPECT_FALSE(m.intact());
    const std::string message = test::error_of([&] { m.check(); }, errc::io_error);
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
    // Every byte reads as the file's or as 0xFF.
    for (std::size_t i = 0; i < size; i += 4096) {
      ASSERT_TRUE(bytes[i] == text[i] || bytes[i] == 0xff) << i;
    }
  });

  write_bytes(path, text);
  const mapped_file cut(path);
  ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(size - 10)), 0);  // inside the last page
  EXPECT_FALSE(cut.intact());

  write_bytes(path, text);
  const mapped_file grown(path);
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND);
  ASSERT_EQ(::write(fd, "more\n", 5), 5);
  ::close(fd);
  EXPECT_TRUE(grown.intact());
  EXPECT_NO_THROW(grown.check());
}

TEST(MappedFile, WatchedWord) {
  temp_dir dir;
  const fs::path path = dir / "f";
  write_bytes(path, std::vector<unsigned char>(64, 1));
  mapped_file m(path);
  m.watch(8, 0x0101010101010101);
  EXPECT_TRUE(m.intact());
  const int fd = ::open(path.c_str(), O_WRONLY);
  ASSERT_EQ(::pwrite(fd, "x", 1, 9), 1);  // the same size, other contents
  ::close(fd);
  EXPECT_FALSE(m.intact());

  mapped_file other(path);
  other.watch(0, 42);  // not what it holds: already changed
  EXPECT_FALSE(other.intact());
  EXPECT_EQ(test::code_of([&] { other.watch(64, 0); }), errc::invalid_argument);  // past the end
  EXPECT_EQ(test::code_of([&] { other.watch(3, 0); }), errc::invalid_argument);   // unaligned
}

TEST(MappedFile, EmptyAndMissingFiles) {
  temp_dir dir;
  write_bytes(dir / "empty", {});
  const mapped_file empty(dir / "empty");
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_TRUE(empty.intact());
  test::expect_error_naming(dir / "missing", [&] { mapped_file m(dir / "missing"); });
  test::expect_error_naming(dir.path(), "not a regular file", [&] { mapped_file m(dir.path()); });
}

}  // namespace
}  // namespace bloomkit
