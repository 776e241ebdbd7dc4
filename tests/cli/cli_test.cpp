// End-to-end tests of the bloomkit tool (docs/CLI.md): every subcommand runs as the real binary
// on files in a fresh temp dir, and stdout, stderr and the exit code are checked exactly.
// The library is linked only to compute expected values (sizes, its validation messages) and to
// compare the filters the tool writes.

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bloomkit/bloomkit.hpp"

#ifndef BLOOMKIT_EXE
#error "BLOOMKIT_EXE must be the path of the bloomkit binary"
#endif

extern char** environ;

namespace {

namespace fs = std::filesystem;

struct result {
  int status = -1;  // exit code, or 128 + signal
  std::string out;
  std::string err;
};

std::ostream& operator<<(std::ostream& os, const result& r) {
  return os << "status " << r.status << "\n--- stdout ---\n"
            << r.out << "\n--- stderr ---\n"
            << r.err;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  ASSERT_TRUE(out.good()) << path;
}

// The message of the bloomkit::error that `f` throws.
template <class F>
std::string library_message(F&& f) {
  try {
    f();
  } catch (const bloomkit::error& e) {
    return e.what();
  }
  return "<no error thrown>";
}

// n distinct URL-like keys, one per line, with a '\n' after each.
std::string make_keys(const std::string& prefix, std::size_t n) {
  std::string out;
  std::uint64_t x = 0x9e3779b97f4a7c15ull ^ std::hash<std::string>{}(prefix);
  for (std::size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out += "https://" + prefix + ".example.com/item/" + std::to_string(i) +
           "?q=" + std::to_string(x % 1000000007) + "\n";
  }
  return out;
}

std::size_t count_char(const std::string& s, char c) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), c));
}

// Matches `text` against `pattern`, in which "{N}" stands for a run of digits (appended to
// `numbers`) and "{S}" for seconds with three decimals ("0.123"); everything else is literal.
bool matches(const std::string& text, const std::string& pattern,
             std::vector<std::uint64_t>* numbers = nullptr) {
  std::size_t t = 0;
  std::size_t p = 0;
  const auto digits = [&] {
    const std::size_t start = t;
    while (t < text.size() && text[t] >= '0' && text[t] <= '9') ++t;
    return t - start;
  };
  while (p < pattern.size()) {
    if (pattern.compare(p, 3, "{N}") == 0) {
      const std::size_t start = t;
      if (digits() == 0) return false;
      if (numbers) numbers->push_back(std::stoull(text.substr(start, t - start)));
      p += 3;
    } else if (pattern.compare(p, 3, "{S}") == 0) {
      if (digits() == 0 || t >= text.size() || text[t++] != '.' || digits() != 3) return false;
      p += 3;
    } else {
      if (t >= text.size() || text[t] != pattern[p]) return false;
      ++t;
      ++p;
    }
  }
  return t == text.size();
}

// A JSON number literal.
bool is_json_number(const std::string& s) {
  if (s.empty() || !(s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && s.find_first_of("xXiInN") == std::string::npos;
}

// A flat JSON object: name -> value; strings are unquoted (escapes decoded), other values kept
// as their literal text. Fails the test on anything malformed.
struct json_value {
  bool is_string = false;
  std::string text;
};
std::map<std::string, json_value> parse_flat_json(const std::string& s) {
  std::map<std::string, json_value> out;
  std::size_t i = 0;
  const auto ws = [&] {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) ++i;
  };
  const auto fail = [&](const char* what) {
    ADD_FAILURE() << "bad JSON (" << what << ") at offset " << i << ": " << s;
    return std::map<std::string, json_value>{};
  };
  const auto string = [&](std::string& into) {
    if (i >= s.size() || s[i] != '"') return false;
    ++i;
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\') {
        if (++i >= s.size()) return false;
        switch (s[i]) {
          case 'n':
            into += '\n';
            break;
          case 't':
            into += '\t';
            break;
          case 'r':
            into += '\r';
            break;
          case 'u':
            into += static_cast<char>(std::stoi(s.substr(i + 1, 4), nullptr, 16));
            i += 4;
            break;
          default:
            into += s[i];
        }
      } else {
        into += s[i];
      }
      ++i;
    }
    if (i >= s.size()) return false;
    ++i;
    return true;
  };
  ws();
  if (i >= s.size() || s[i++] != '{') return fail("no {");
  ws();
  if (i < s.size() && s[i] == '}') return out;
  while (true) {
    ws();
    std::string name;
    if (!string(name)) return fail("name");
    ws();
    if (i >= s.size() || s[i++] != ':') return fail("no :");
    ws();
    json_value v;
    if (i < s.size() && s[i] == '"') {
      v.is_string = true;
      if (!string(v.text)) return fail("string value");
    } else {
      while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != '\n' && s[i] != ' ') {
        v.text += s[i++];
      }
      const bool literal = v.text == "null" || v.text == "true" || v.text == "false";
      if (!literal && !is_json_number(v.text)) {
        return fail("value");
      }
    }
    if (out.count(name)) return fail("duplicate name");
    out[name] = v;
    ws();
    if (i < s.size() && s[i] == ',') {
      ++i;
      continue;
    }
    if (i < s.size() && s[i] == '}') {
      ++i;
      break;
    }
    return fail("no , or }");
  }
  ws();
  if (i != s.size()) return fail("trailing bytes");
  return out;
}

// "name: value" lines -> map.
std::map<std::string, std::string> parse_lines(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(": ");
    EXPECT_NE(colon, std::string::npos) << line;
    if (colon == std::string::npos) continue;
    out[line.substr(0, colon)] = line.substr(colon + 2);
  }
  return out;
}

enum class stdin_kind {
  file,  // a regular file
  pipe,  // a pipe the test writes into
};

class Cli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { std::signal(SIGPIPE, SIG_IGN); }

  void SetUp() override {
    std::string dir = (fs::temp_directory_path() / "bloomkit-cli-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // A path in the test's temp dir.
  std::string at(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& contents) {
    write_file(dir_ / name, contents);
  }
  std::string read(const std::string& name) const { return read_file(dir_ / name); }
  bool exists(const std::string& name) const { return fs::exists(dir_ / name); }

  // Runs bloomkit with `args` (file arguments should come from at()), stdin from `input`.
  // stdout and stderr go to files (or to `stdout_path` / `stderr_path` when given).
  result run(const std::vector<std::string>& args, const std::string& input = "",
             stdin_kind kind = stdin_kind::file, const std::string& stdout_path = "",
             const std::string& stderr_path = "") {
    const std::string in_path = at(".stdin");
    const std::string out_path = stdout_path.empty() ? at(".stdout") : stdout_path;
    const std::string err_path = stderr_path.empty() ? at(".stderr") : stderr_path;

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    int pipe_fds[2] = {-1, -1};
    if (kind == stdin_kind::file) {
      write_file(in_path, input);
      posix_spawn_file_actions_addopen(&actions, 0, in_path.c_str(), O_RDONLY, 0);
    } else {
      EXPECT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
      posix_spawn_file_actions_adddup2(&actions, pipe_fds[0], 0);
    }
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY, 0644);
    // The test ignores SIGPIPE; the tool gets the default disposition.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);

    std::vector<std::string> storage{BLOOMKIT_EXE};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& s : storage) argv.push_back(s.data());
    argv.push_back(nullptr);

    pid_t pid = -1;
    const int spawn_error =
        ::posix_spawn(&pid, BLOOMKIT_EXE, &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    result r;
    if (spawn_error != 0) {
      ADD_FAILURE() << "posix_spawn " << BLOOMKIT_EXE << ": " << std::strerror(spawn_error);
      return r;
    }
    if (kind == stdin_kind::pipe) {
      ::close(pipe_fds[0]);
      std::size_t done = 0;
      while (done < input.size()) {
        const ssize_t n = ::write(pipe_fds[1], input.data() + done, input.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;  // EPIPE: the tool stopped reading (an error it reports)
        done += static_cast<std::size_t>(n);
      }
      ::close(pipe_fds[1]);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (stdout_path.empty()) r.out = read_file(out_path);
    if (stderr_path.empty()) r.err = read_file(err_path);
    return r;
  }

  // Runs a command that must succeed silently on stderr; returns its stdout.
  std::string ok(const std::vector<std::string>& args, const std::string& input = "",
                 stdin_kind kind = stdin_kind::file) {
    const result r = run(args, input, kind);
    EXPECT_EQ(r.status, 0) << r;
    EXPECT_EQ(r.err, "") << r;
    return r.out;
  }

  // Expects exit 2 with exactly "bloomkit: error: <message>" and the --help hint for `command`.
  void expect_usage_error(const result& r, const std::string& message, const std::string& command) {
    EXPECT_EQ(r.status, 2) << r;
    EXPECT_EQ(r.out, "") << r;
    const std::string hint = command.empty() ? "Run 'bloomkit --help' for usage.\n"
                                             : "Run 'bloomkit " + command + " --help' for usage.\n";
    EXPECT_EQ(r.err, "bloomkit: error: " + message + "\n" + hint) << r;
  }

  // Expects exit 1, nothing on stdout, and one line "bloomkit: error: ..." naming `file`.
  void expect_error_naming(const result& r, const std::string& file) {
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_EQ(r.out, "") << r;
    EXPECT_EQ(r.err.rfind("bloomkit: error: ", 0), 0u) << r;
    EXPECT_EQ(count_char(r.err, '\n'), 1u) << r;
    EXPECT_NE(r.err.find(file), std::string::npos) << "message should name " << file << "\n" << r;
  }

  fs::path dir_;
};

// ---------------------------------------------------------------------------------------------
// version, help, usage

TEST_F(Cli, VersionAndHelp) {
  EXPECT_EQ(ok({"--version"}), std::string("bloomkit ") + bloomkit::version_string + "\n");
  const std::string help = ok({"--help"});
  for (const char* command : {"create", "add", "build", "query", "info", "merge", "size"}) {
    EXPECT_NE(help.find(command), std::string::npos) << command << "\n" << help;
  }
  const std::string query_help = ok({"query", "--help"});
  EXPECT_NE(query_help.find("--present"), std::string::npos) << query_help;
  EXPECT_NE(query_help.find("--count"), std::string::npos) << query_help;
}

TEST_F(Cli, UsageErrorsExitTwo) {
  expect_usage_error(run({}), "A subcommand is required", "");
  expect_usage_error(run({"frobnicate"}), "unknown command 'frobnicate'", "");
  expect_usage_error(run({"create", at("f.bf"), "--capacity", "10", "--fpp", "0.1", "--bogus"}),
                     "The following argument was not expected: --bogus", "create");
  expect_usage_error(run({"create", at("f.bf"), "--fpp", "0.1"}), "--capacity is required",
                     "create");
  expect_usage_error(run({"create", "--capacity", "10", "--fpp", "0.1"}), "FILE is required",
                     "create");
  expect_usage_error(run({"create", at("f.bf"), "--capacity", "10", "--fpp", "abc"}),
                     "Could not convert: --fpp = abc", "create");
  expect_usage_error(run({"size", "--capacity", "ten", "--fpp", "0.1"}),
                     "--capacity: expected a whole number such as 1000000 or 1e6, got 'ten'",
                     "size");
  expect_usage_error(run({"size", "--capacity", "1.5", "--fpp", "0.1"}),
                     "--capacity: expected a whole number such as 1000000 or 1e6, got '1.5'",
                     "size");
  expect_usage_error(run({"size", "--capacity", "99999999999999999999", "--fpp", "0.1"}),
                     "--capacity: 99999999999999999999 is too large", "size");
  expect_usage_error(run({"merge", at("out.bf")}), "IN is required", "merge");
  expect_usage_error(run({"query", at("f.bf"), "--present", "--count"}),
                     "--present excludes --count", "query");
  expect_usage_error(run({"build", at("f.bf"), "--fpp", "0.1", "--threads", "0", at("x")}),
                     "--threads: Value 0 not in range 1 to 1024", "build");
  EXPECT_FALSE(exists("f.bf"));
}

// --capacity 0, --fpp 0, --fpp 1.5: the library's validators reject them; exit 2 with their
// message, and nothing is written.
TEST_F(Cli, OutOfRangeSizingIsAUsageError) {
  const std::string capacity_zero = library_message([] { bloomkit::validate_capacity(0); });
  const std::string fpp_zero = library_message([] { bloomkit::validate_fpp(0); });
  const std::string fpp_big = library_message([] { bloomkit::validate_fpp(1.5); });
  ASSERT_NE(capacity_zero, "<no error thrown>");
  ASSERT_NE(fpp_zero, "<no error thrown>");
  ASSERT_NE(fpp_big, "<no error thrown>");
  const std::string f = at("f.bf");
  expect_usage_error(run({"create", f, "--capacity", "0", "--fpp", "0.01"}), capacity_zero,
                     "create");
  expect_usage_error(run({"create", f, "--capacity", "100", "--fpp", "0"}), fpp_zero, "create");
  expect_usage_error(run({"create", f, "--capacity", "100", "--fpp", "1.5"}), fpp_big, "create");
  expect_usage_error(run({"size", "--capacity", "0", "--fpp", "0.01"}), capacity_zero, "size");
  expect_usage_error(run({"size", "--capacity", "100", "--fpp", "0"}), fpp_zero, "size");
  expect_usage_error(run({"size", "--capacity", "100", "--fpp", "1.5"}), fpp_big, "size");
  write("keys.txt", "a\nb\n");
  expect_usage_error(run({"build", f, "--capacity", "0", "--fpp", "0.01", at("keys.txt")}),
                     capacity_zero, "build");
  expect_usage_error(run({"build", f, "--fpp", "1.5", at("keys.txt")}), fpp_big, "build");
  expect_usage_error(run({"build", f, "--capacity", "10", "--fpp", "0", at("keys.txt")}), fpp_zero,
                     "build");
  // Too large to exist: the library's too_large message, also a usage error.
  const std::string too_large =
      library_message([] { (void)bloomkit::optimal_params(1'000'000'000'000'000, 1e-300); });
  expect_usage_error(run({"size", "--capacity", "1e15", "--fpp", "1e-300"}), too_large, "size");
  EXPECT_FALSE(exists("f.bf"));
}

// ---------------------------------------------------------------------------------------------
// create, add, query

TEST_F(Cli, CreateAddQueryRoundTrip) {
  const std::string f = at("f.bf");
  // m = ceil(-1000 ln 0.01 / ln^2 2) = 9586, k = round(9586 / 1000 ln 2) = 7, 150 words.
  EXPECT_EQ(ok({"create", f, "--capacity", "1000", "--fpp", "0.01"}),
            "created " + f + ": 9586 bits, 1200 bytes, 7 hashes\n");
  EXPECT_EQ(ok({"add", f, "apple", "banana", "cherry"}), "added 3 new of 3 keys\n");
  EXPECT_EQ(ok({"add", f, "apple", "banana"}), "added 0 new of 2 keys\n");
  // From stdin; a key repeated within one run is new only once.
  EXPECT_EQ(ok({"add", f}, "date\nelder\ndate\n"), "added 2 new of 3 keys\n");
  EXPECT_EQ(ok({"add", f}, ""), "added 0 new of 0 keys\n");

  const std::string all = "1\tapple\n1\tbanana\n0\tkiwi\n1\tcherry\n1\tdate\n0\tmango\n1\telder\n";
  EXPECT_EQ(ok({"query", f, "apple", "banana", "kiwi", "cherry", "date", "mango", "elder"}), all);
  EXPECT_EQ(ok({"query", f}, "apple\nbanana\nkiwi\ncherry\ndate\nmango\nelder\n"), all);
  EXPECT_EQ(ok({"query", f, "--present"}, "apple\nbanana\nkiwi\ncherry\ndate\nmango\nelder\n"),
            "apple\nbanana\ncherry\ndate\nelder\n");
  EXPECT_EQ(ok({"query", f, "--absent"}, "apple\nbanana\nkiwi\ncherry\ndate\nmango\nelder\n"),
            "kiwi\nmango\n");
  EXPECT_EQ(ok({"query", f, "--count"}, "apple\nbanana\nkiwi\ncherry\ndate\nmango\nelder\n"),
            "present=5 absent=2\n");
  EXPECT_EQ(ok({"query", f, "--count"}, ""), "present=0 absent=0\n");
  EXPECT_EQ(ok({"query", f}, ""), "");
  // Flags after the keys, and "-" splicing stdin between arguments, in order.
  EXPECT_EQ(ok({"query", f, "kiwi", "-", "apple", "--present"}, "cherry\nmango\n"),
            "cherry\napple\n");
  EXPECT_EQ(ok({"query", f, "kiwi", "-", "apple"}, "cherry\nmango\n"),
            "0\tkiwi\n1\tcherry\n0\tmango\n1\tapple\n");
  // "--" ends the options: a key may start with '-'.
  EXPECT_EQ(ok({"add", f, "--", "--dash"}), "added 1 new of 1 keys\n");
  EXPECT_EQ(ok({"query", f, "--", "--dash", "-x"}), "1\t--dash\n0\t-x\n");

  // The filter the tool wrote is the library's filter with the same keys.
  auto expected = bloomkit::bloom_filter::for_capacity(1000, 0.01);
  for (const char* key : {"apple", "banana", "cherry", "date", "elder", "--dash"}) {
    expected.insert(key);
  }
  const auto written = bloomkit::load(f);
  EXPECT_TRUE(written == expected);
  EXPECT_EQ(written.inserted(), 6u);
}

TEST_F(Cli, QueryOfManyKeysFromAPipe) {
  const std::string f = at("f.bf");
  const std::string keys = make_keys("in", 20000);
  const std::string others = make_keys("out", 20000);
  ok({"create", f, "--capacity", "20000", "--fpp", "0.001"});
  // A few keys are false positives of the keys before them (about 0.1% at the end).
  std::vector<std::uint64_t> added;
  const std::string out = ok({"add", f}, keys, stdin_kind::pipe);
  ASSERT_TRUE(matches(out, "added {N} new of 20000 keys\n", &added)) << out;
  EXPECT_GT(added[0], 19950u);
  EXPECT_LE(added[0], 20000u);
  // No false negatives; every output line is "1\t" + the key, in order.
  const std::string answers = ok({"query", f}, keys, stdin_kind::pipe);
  std::string expected;
  std::istringstream in(keys);
  for (std::string line; std::getline(in, line);) expected += "1\t" + line + "\n";
  EXPECT_EQ(answers, expected);
  EXPECT_EQ(ok({"query", f, "--count"}, keys, stdin_kind::pipe), "present=20000 absent=0\n");
  // Misses: --present and --absent partition the keys; --count agrees; the FPP is sane.
  const std::string present = ok({"query", f, "--present"}, others, stdin_kind::pipe);
  const std::string absent = ok({"query", f, "--absent"}, others, stdin_kind::pipe);
  const std::size_t hits = count_char(present, '\n');
  EXPECT_EQ(hits + count_char(absent, '\n'), 20000u);
  EXPECT_EQ(ok({"query", f, "--count"}, others),
            "present=" + std::to_string(hits) + " absent=" + std::to_string(20000 - hits) + "\n");
  EXPECT_LT(hits, 100u);  // expected about 20 at p = 0.001
}

// Keys are lines: '\n' ends a key, one '\r' before it is dropped, an empty line is the empty
// key, and the last line counts even without its '\n' (but nothing after a final '\n' does).
TEST_F(Cli, LineRules) {
  const std::string f = at("f.bf");
  ok({"create", f, "--capacity", "100", "--fpp", "0.001"});
  EXPECT_EQ(ok({"query", f}, "\n"), "0\t\n");
  // Keys: "a", "", "b", "", "c"  (the empty key twice: new once).
  EXPECT_EQ(ok({"add", f}, "a\r\n\r\nb\n\nc"), "added 4 new of 5 keys\n");
  EXPECT_EQ(ok({"query", f}, "a\nb\r\nc\n\n"), "1\ta\n1\tb\n1\tc\n1\t\n");
  EXPECT_EQ(ok({"query", f}, "c"), "1\tc\n");
  EXPECT_EQ(ok({"query", f, "--count"}, "a\nb\nc\n"), "present=3 absent=0\n");
  EXPECT_EQ(ok({"query", f, "--count"}, "a\nb\nc"), "present=3 absent=0\n");
  // Only one '\r' is removed, and only at the end of a line; arguments are taken verbatim.
  EXPECT_EQ(ok({"add", f, "p\rq", "r\r"}), "added 2 new of 2 keys\n");
  EXPECT_EQ(ok({"query", f}, "p\rq\nr\r\r\nr\npq\n"), "1\tp\rq\n1\tr\r\n0\tr\n0\tpq\n");
  // A long line (larger than one read block) is one key.
  const std::string long_key(3 << 20, 'x');
  EXPECT_EQ(ok({"add", f}, long_key + "\nshort\n", stdin_kind::pipe), "added 2 new of 2 keys\n");
  EXPECT_EQ(ok({"query", f, "--count"}, "short\n" + long_key, stdin_kind::pipe),
            "present=2 absent=0\n");
}

// ---------------------------------------------------------------------------------------------
// build

TEST_F(Cli, BuildIsTheSameFilterWhateverTheThreadsAndInput) {
  const std::size_t n = 60000;
  const std::string keys = make_keys("build", n);
  write("keys.txt", keys);
  // The same keys split over two files, the second with CRLF line ends and no final newline.
  const std::size_t half = keys.find('\n', keys.size() / 2) + 1;
  write("part1.txt", keys.substr(0, half));
  std::string crlf;
  for (char c : keys.substr(half)) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  crlf.resize(crlf.size() - 2);  // drop the final "\r\n"
  write("part2.txt", crlf);

  const auto build = [&](const std::string& name, std::vector<std::string> extra,
                         const std::string& input, stdin_kind kind) {
    std::vector<std::string> args{"build",           at(name), "--capacity",
                                  std::to_string(n), "--fpp",  "0.01"};
    args.insert(args.end(), extra.begin(), extra.end());
    const std::string out = ok(args, input, kind);
    std::vector<std::uint64_t> numbers;
    ASSERT_TRUE(
        matches(out, "built " + at(name) + ": {N} keys read, {N} new, in {S} s\n", &numbers))
        << out;
    EXPECT_EQ(numbers[0], n);
    EXPECT_GT(numbers[1], n - n / 100);  // a few keys collide at p = 0.01
    EXPECT_LE(numbers[1], n);
  };
  build("file1.bf", {"--threads", "1", at("keys.txt")}, "", stdin_kind::file);
  build("file4.bf", {"--threads", "4", at("keys.txt")}, "", stdin_kind::file);
  build("parts.bf", {"--threads", "3", at("part1.txt"), at("part2.txt")}, "", stdin_kind::file);
  build("stdin1.bf", {"--threads", "1"}, keys, stdin_kind::file);
  build("pipe4.bf", {"--threads", "4", "-"}, keys, stdin_kind::pipe);
  build("mixed.bf", {"--threads", "2", at("part1.txt"), "-"}, crlf, stdin_kind::pipe);
  build("default.bf", {at("keys.txt")}, "", stdin_kind::file);  // every core

  // All the same bits, and the same as create + add (the single-threaded path).
  ok({"create", at("added.bf"), "--capacity", std::to_string(n), "--fpp", "0.01"});
  ok({"add", at("added.bf")}, keys);
  const auto reference = bloomkit::load(at("added.bf"));
  for (const char* name :
       {"file1.bf", "file4.bf", "parts.bf", "stdin1.bf", "pipe4.bf", "mixed.bf", "default.bf"}) {
    EXPECT_TRUE(bloomkit::load(at(name)) == reference) << name;
  }
  // And they answer identically: no false negatives, the same false positives.
  const std::string others = make_keys("other", 20000);
  const std::string expected_misses = ok({"query", at("added.bf")}, others);
  for (const char* name : {"file1.bf", "file4.bf", "pipe4.bf"}) {
    EXPECT_EQ(ok({"query", at(name), "--count"}, keys),
              "present=" + std::to_string(n) + " absent=0\n")
        << name;
    EXPECT_EQ(ok({"query", at(name)}, others), expected_misses) << name;
  }
}

TEST_F(Cli, BuildWithoutCapacityCountsLines) {
  // 5 keys: "a", "", "b", "c", "d" (the last without '\n').
  write("one.txt", "a\n\nb\n");
  write("two.txt", "c\r\nd");
  write("empty.txt", "");
  const std::string f = at("f.bf");
  const std::string built =
      ok({"build", f, "--fpp", "0.01", at("one.txt"), at("two.txt"), at("empty.txt")});
  EXPECT_TRUE(matches(built, "built " + f + ": 5 keys read, 5 new, in {S} s\n")) << built;
  const auto info = parse_lines(ok({"info", f}));
  const bloomkit::filter_params params = bloomkit::optimal_params(5, 0.01);
  EXPECT_EQ(info.at("capacity"), "5");
  EXPECT_EQ(info.at("bits"), std::to_string(params.bits));
  EXPECT_EQ(info.at("hashes"), std::to_string(params.hashes));
  EXPECT_EQ(info.at("inserted"), "5");
  EXPECT_EQ(ok({"query", f}, "a\n\nb\nc\nd\n"), "1\ta\n1\t\n1\tb\n1\tc\n1\td\n");

  // An empty input makes an empty filter sized for one key.
  const std::string g = at("g.bf");
  const std::string empty = ok({"build", g, "--fpp", "0.01", at("empty.txt")});
  EXPECT_TRUE(matches(empty, "built " + g + ": 0 keys read, 0 new, in {S} s\n")) << empty;
  EXPECT_EQ(parse_lines(ok({"info", g})).at("capacity"), "1");
}

TEST_F(Cli, BuildFromStdinNeedsCapacity) {
  write("keys.txt", "a\n");
  const std::string message =
      "--capacity is required when keys come from stdin (it can be left out only when every "
      "INPUT is a regular file, whose lines are then counted)";
  expect_usage_error(run({"build", at("f.bf"), "--fpp", "0.01"}, "a\n"), message, "build");
  expect_usage_error(run({"build", at("f.bf"), "--fpp", "0.01", "-"}, "a\n"), message, "build");
  expect_usage_error(run({"build", at("f.bf"), "--fpp", "0.01", at("keys.txt"), "-"}, "a\n"),
                     message, "build");
  // A named input that is not a regular file (here a pipe, via /dev/stdin).
  expect_usage_error(
      run({"build", at("f.bf"), "--fpp", "0.01", "/dev/stdin"}, "a\n", stdin_kind::pipe),
      "--capacity is required when INPUT '/dev/stdin' is not a regular file (it "
      "can be left out only when every INPUT is a regular file, whose lines are "
      "then counted)",
      "build");
  EXPECT_FALSE(exists("f.bf"));
}

TEST_F(Cli, BuildInputErrors) {
  const std::string f = at("f.bf");
  const result missing = run({"build", f, "--capacity", "10", "--fpp", "0.01", at("nope.txt")});
  expect_error_naming(missing, at("nope.txt"));
  EXPECT_NE(missing.err.find("No such file or directory"), std::string::npos) << missing;
  expect_error_naming(run({"build", f, "--capacity", "10", "--fpp", "0.01", dir_.string()}),
                      dir_.string());
  EXPECT_FALSE(exists("f.bf"));
}

// A progress line appears on a terminal, and only there (the other build tests check that
// stderr stays empty when it is a file).
TEST_F(Cli, BuildShowsProgressOnATerminal) {
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0);
  ASSERT_EQ(::grantpt(master), 0);
  ASSERT_EQ(::unlockpt(master), 0);
  const std::string terminal = ::ptsname(master);
  // Keep the terminal open here too, so that reading the master after the tool exits gets the
  // buffered output rather than a hang-up.
  const int slave = ::open(terminal.c_str(), O_RDWR | O_NOCTTY);
  ASSERT_GE(slave, 0);
  write("keys.txt", make_keys("tty", 20000));
  const result r = run({"build", at("f.bf"), "--fpp", "0.01", at("keys.txt")}, "", stdin_kind::file,
                       "", terminal);
  EXPECT_EQ(r.status, 0) << r;
  std::string shown;
  char buffer[4096];
  pollfd p{master, POLLIN, 0};
  while (::poll(&p, 1, 100) > 0 && (p.revents & POLLIN)) {
    const ssize_t got = ::read(master, buffer, sizeof buffer);
    if (got <= 0) break;
    shown.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(slave);
  ::close(master);
  EXPECT_NE(shown.find("keys"), std::string::npos) << shown;
  EXPECT_NE(shown.find("MB/s"), std::string::npos) << shown;
  EXPECT_NE(shown.find("%"), std::string::npos) << shown;  // the size is known: a bar
  // The line is erased at the end.
  EXPECT_GE(shown.size(), 4u);
  EXPECT_EQ(shown.substr(shown.size() - 4), "\r\033[K") << shown;
}

// ---------------------------------------------------------------------------------------------
// info and size

TEST_F(Cli, InfoHumanAndJson) {
  const std::string f = at("f.bf");
  ok({"create", f, "--capacity", "1000", "--fpp", "0.01"});
  ok({"add", f, "one", "two", "three"});
  const auto filter = bloomkit::load(f);
  const auto number = [](double v) {
    // The tool prints the shortest text that reads back as the value.
    std::ostringstream os;
    os.precision(17);
    os << v;
    return std::strtod(os.str().c_str(), nullptr);
  };

  const std::string human = ok({"info", f});
  std::vector<std::string> names;
  {
    std::istringstream in(human);
    for (std::string line; std::getline(in, line);) names.push_back(line.substr(0, line.find(':')));
  }
  const std::vector<std::string> expected_names{"file",
                                                "format_version",
                                                "kind",
                                                "hash_scheme",
                                                "bits",
                                                "bytes",
                                                "hashes",
                                                "capacity",
                                                "target_fpp",
                                                "inserted",
                                                "estimated_count",
                                                "fill_ratio",
                                                "estimated_fpp"};
  EXPECT_EQ(names, expected_names) << human;
  const auto lines = parse_lines(human);
  EXPECT_EQ(lines.at("file"), f);
  EXPECT_EQ(lines.at("format_version"), "1");
  EXPECT_EQ(lines.at("kind"), "classic");
  EXPECT_EQ(lines.at("hash_scheme"),
            std::string(bloomkit::to_string(bloomkit::hash_scheme::xxh3_128)));
  EXPECT_EQ(lines.at("bits"), "9586");
  EXPECT_EQ(lines.at("bytes"), "1200");
  EXPECT_EQ(lines.at("hashes"), "7");
  EXPECT_EQ(lines.at("capacity"), "1000");
  EXPECT_EQ(lines.at("target_fpp"), "0.01");
  EXPECT_EQ(lines.at("inserted"), "3");
  EXPECT_EQ(std::strtod(lines.at("estimated_count").c_str(), nullptr),
            number(filter.estimated_count()));
  EXPECT_EQ(std::strtod(lines.at("fill_ratio").c_str(), nullptr), number(filter.fill_ratio()));
  EXPECT_EQ(std::strtod(lines.at("estimated_fpp").c_str(), nullptr),
            number(filter.estimated_fpp()));
  EXPECT_NEAR(std::strtod(lines.at("estimated_count").c_str(), nullptr), 3.0, 0.1);

  const auto json = parse_flat_json(ok({"info", f, "--json"}));
  for (const char* name :
       {"kind", "hash_scheme", "bits", "bytes", "hashes", "capacity", "target_fpp", "inserted",
        "estimated_count", "fill_ratio", "estimated_fpp"}) {
    ASSERT_TRUE(json.count(name)) << name;
    // The same values as the human form.
    EXPECT_EQ(json.at(name).text, lines.at(name)) << name;
  }
  EXPECT_TRUE(json.at("kind").is_string);
  EXPECT_TRUE(json.at("hash_scheme").is_string);
  EXPECT_FALSE(json.at("bits").is_string);
  EXPECT_EQ(json.at("file").text, f);

  // bits, bytes and hashes are what `size` computes for the same capacity and fpp.
  const auto size = parse_flat_json(ok({"size", "--capacity", "1000", "--fpp", "0.01", "--json"}));
  for (const char* name : {"bits", "bytes", "hashes"}) {
    EXPECT_EQ(json.at(name).text, size.at(name).text) << name;
  }
}

TEST_F(Cli, Size) {
  EXPECT_EQ(ok({"size", "--capacity", "1000000", "--fpp", "0.01"}),
            "capacity: 1000000\nfpp: 0.01\nbits: 9585059\nbytes: 1198136\nhashes: 7\n");
  EXPECT_EQ(ok({"size", "--capacity", "1e6", "--fpp", "0.01", "--json"}),
            "{\n  \"capacity\": 1000000,\n  \"fpp\": 0.01,\n  \"bits\": 9585059,\n"
            "  \"bytes\": 1198136,\n  \"hashes\": 7\n}\n");
  // Whatever the parameters, size agrees with the library.
  for (const auto& [n, p] : std::vector<std::pair<std::uint64_t, double>>{
           {1, 0.5}, {1, 1e-9}, {12345, 0.001}, {10'000'000'000, 0.01}}) {
    const auto params = bloomkit::optimal_params(n, p);
    std::ostringstream fpp;
    fpp << p;
    const auto json = parse_flat_json(
        ok({"size", "--capacity", std::to_string(n), "--fpp", fpp.str(), "--json"}));
    EXPECT_EQ(json.at("capacity").text, std::to_string(n));
    EXPECT_EQ(json.at("bits").text, std::to_string(params.bits)) << n << " " << p;
    EXPECT_EQ(json.at("bytes").text, std::to_string(bloomkit::bytes_for_bits(params.bits)));
    EXPECT_EQ(json.at("hashes").text, std::to_string(params.hashes));
  }
}

// ---------------------------------------------------------------------------------------------
// merge

TEST_F(Cli, MergeUnionAndIntersection) {
  const std::string a = at("a.bf"), b = at("b.bf"), c = at("c.bf");
  for (const std::string& f : {a, b, c}) ok({"create", f, "--capacity", "1000", "--fpp", "0.001"});
  ok({"add", a, "apple", "common", "avocado"});
  ok({"add", b, "banana", "common"});
  ok({"add", c, "cherry"});

  const std::string u = at("union.bf");
  EXPECT_EQ(ok({"merge", u, a, b, c}), "merged 3 filters into " + u + " (union)\n");
  EXPECT_EQ(ok({"query", u}, "apple\ncommon\navocado\nbanana\ncherry\nkiwi\n"),
            "1\tapple\n1\tcommon\n1\tavocado\n1\tbanana\n1\tcherry\n0\tkiwi\n");
  // The union is the filter of all the keys.
  ok({"create", at("all.bf"), "--capacity", "1000", "--fpp", "0.001"});
  ok({"add", at("all.bf"), "apple", "common", "avocado", "banana", "cherry"});
  EXPECT_TRUE(bloomkit::load(u) == bloomkit::load(at("all.bf")));

  const std::string i = at("intersection.bf");
  EXPECT_EQ(ok({"merge", i, a, b, "--intersect"}),
            "merged 2 filters into " + i + " (intersection)\n");
  EXPECT_EQ(ok({"query", i}, "common\napple\nbanana\n"), "1\tcommon\n0\tapple\n0\tbanana\n");
  auto expected = bloomkit::load(a);
  expected.intersect(bloomkit::load(b));
  EXPECT_TRUE(bloomkit::load(i) == expected);

  // One input: a copy. The output may be one of the inputs.
  EXPECT_EQ(ok({"merge", at("copy.bf"), c}),
            "merged 1 filters into " + at("copy.bf") + " (union)\n");
  EXPECT_TRUE(bloomkit::load(at("copy.bf")) == bloomkit::load(c));
  auto a_and_b = bloomkit::load(a);
  a_and_b.merge(bloomkit::load(b));
  EXPECT_EQ(ok({"merge", a, a, b}), "merged 2 filters into " + a + " (union)\n");
  EXPECT_TRUE(bloomkit::load(a) == a_and_b);
  EXPECT_EQ(ok({"query", a, "--count"}, "apple\nbanana\ncommon\navocado\ncherry\n"),
            "present=4 absent=1\n");
}

TEST_F(Cli, MergeOfIncompatibleFilters) {
  const std::string a = at("a.bf"), big = at("big.bf"), out = at("out.bf");
  ok({"create", a, "--capacity", "1000", "--fpp", "0.01"});
  ok({"create", big, "--capacity", "2000", "--fpp", "0.01"});
  const std::string library = library_message([&] {
    auto x = bloomkit::load(a);
    x.merge(bloomkit::load(big));
  });
  for (const bool intersect : {false, true}) {
    std::vector<std::string> args{"merge", out, a, big};
    if (intersect) args.push_back("--intersect");
    const result r = run(args);
    expect_error_naming(r, a);
    EXPECT_NE(r.err.find(big), std::string::npos) << r;
    if (!intersect) {
      EXPECT_EQ(r.err, "bloomkit: error: '" + a + "' and '" + big +
                           "' are incompatible: " + library + "\n");
    }
    EXPECT_NE(r.err.find("bits differ"), std::string::npos) << r;
    EXPECT_FALSE(exists("out.bf"));
  }
}

// ---------------------------------------------------------------------------------------------
// bad files

TEST_F(Cli, MissingFile) {
  const std::string nope = at("nope.bf");
  for (const std::vector<std::string>& args : {std::vector<std::string>{"query", nope, "a"},
                                               {"add", nope, "a"},
                                               {"info", nope},
                                               {"info", nope, "--json"},
                                               {"merge", at("out.bf"), nope}}) {
    const result r = run(args);
    expect_error_naming(r, nope);
    EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << r;
  }
  // The second input of a merge is missing.
  ok({"create", at("a.bf"), "--capacity", "10", "--fpp", "0.01"});
  expect_error_naming(run({"merge", at("out.bf"), at("a.bf"), nope}), nope);
  EXPECT_FALSE(exists("out.bf"));
  EXPECT_FALSE(exists("nope.bf"));
}

TEST_F(Cli, CorruptAndTruncatedFiles) {
  const std::string good = at("good.bf");
  ok({"create", good, "--capacity", "1000", "--fpp", "0.01"});
  ok({"add", good, "a", "b", "c"});
  const std::string bytes = read("good.bf");
  ASSERT_GT(bytes.size(), bloomkit::file_header_size + 64);

  std::vector<std::pair<std::string, std::string>> bad;  // name, contents
  for (const std::size_t offset : {std::size_t{0}, std::size_t{20}, std::size_t{100},
                                   bloomkit::file_header_size + 10, bytes.size() - 1}) {
    std::string flipped = bytes;
    flipped[offset] = static_cast<char>(flipped[offset] ^ 0x10);
    bad.emplace_back("flip" + std::to_string(offset) + ".bf", flipped);
  }
  for (const std::size_t length : {std::size_t{0}, std::size_t{10}, bloomkit::file_header_size,
                                   bytes.size() / 2, bytes.size() - 1}) {
    bad.emplace_back("cut" + std::to_string(length) + ".bf", bytes.substr(0, length));
  }
  bad.emplace_back("text.bf", "this is not a filter\n");
  bad.emplace_back("longer.bf", bytes + "trailing garbage");

  for (const auto& [name, contents] : bad) {
    SCOPED_TRACE(name);
    write(name, contents);
    const std::string f = at(name);
    expect_error_naming(run({"query", f, "a"}), f);
    expect_error_naming(run({"query", f, "--count"}, "a\n"), f);
    expect_error_naming(run({"info", f}), f);
    expect_error_naming(run({"info", f, "--json"}), f);
    expect_error_naming(run({"add", f, "zzz"}), f);
    expect_error_naming(run({"merge", at("out.bf"), good, f}), f);
    expect_error_naming(run({"merge", at("out.bf"), f, good}), f);
    EXPECT_EQ(read(name), contents) << "a failed command must not change its input";
    EXPECT_FALSE(exists("out.bf"));
  }
}

TEST_F(Cli, WriteErrorsAreReported) {
  const std::string f = at("f.bf");
  ok({"create", f, "--capacity", "100", "--fpp", "0.01"});
  ok({"add", f, "a"});
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  for (const std::vector<std::string>& args : {std::vector<std::string>{"query", f, "a", "b"},
                                               {"info", f},
                                               {"size", "--capacity", "5", "--fpp", "0.1"}}) {
    const result r = run(args, "", stdin_kind::file, "/dev/full");
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_EQ(r.err, "bloomkit: error: writing to stdout: No space left on device\n") << r;
  }
  // The filter cannot be written: exit 1, the message names the file.
  const std::string unwritable = at("no-such-dir/f.bf");
  expect_error_naming(run({"create", unwritable, "--capacity", "10", "--fpp", "0.1"}), unwritable);
}

}  // namespace
