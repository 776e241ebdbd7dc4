// The rules every command shares for what it reads on the command line and how it writes names
// (docs/CLI.md, "Numbers" and "Names in output"):
//   - every numeric option and argument, of the file and the redis commands, follows one number
//     grammar and reports one message style, exit 2;
//   - `info --json` is valid JSON (checked by python3's json module) whatever bytes a file name
//     holds, and gives the name back exactly;
//   - a name with a control byte (a newline, a tab, ...) never breaks a one-line output or error
//     line, while ordinary names print exactly as they always did.

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_support.hpp"
#include "json_check.hpp"
#include "support/build.hpp"

namespace {

using namespace bloomkit::cli_test;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Numbers

// One numeric option (or argument) and a command line that gives it a value.
struct numeric_option {
  std::string label;    // how messages name it: "--fpp", "SECONDS"
  std::string command;  // for the "Run 'bloomkit <command> --help'" hint
  std::function<std::vector<std::string>(const std::string& value)> args;
  bool whole = false;  // a whole number; otherwise a real
  std::string range;   // whole numbers: "(1 to 1024)"
};

constexpr const char* count_range = "(0 to 18446744073709551615)";

class CliNumbers : public Cli {
 protected:
  void SetUp() override {
    Cli::SetUp();
    write("keys.txt", "a\nb\n");
  }

  std::vector<numeric_option> options() const {
    const std::string f = at("f.bf");
    const std::string keys = at("keys.txt");
    std::vector<numeric_option> all = {
        {"--capacity", "size",
         [](const std::string& v) {
           return std::vector<std::string>{"size", "--capacity", v, "--fpp", "0.01"};
         },
         true, count_range},
        {"--capacity", "create",
         [f](const std::string& v) {
           return std::vector<std::string>{"create", f, "--capacity", v, "--fpp", "0.01"};
         },
         true, count_range},
        {"--capacity", "build",
         [f, keys](const std::string& v) {
           return std::vector<std::string>{"build", f, "--capacity", v, "--fpp", "0.01", keys};
         },
         true, count_range},
        {"--fpp", "size",
         [](const std::string& v) {
           return std::vector<std::string>{"size", "--capacity", "100", "--fpp", v};
         },
         false, ""},
        {"--fpp", "create",
         [f](const std::string& v) {
           return std::vector<std::string>{"create", f, "--capacity", "100", "--fpp", v};
         },
         false, ""},
        {"--fpp", "build",
         [f, keys](const std::string& v) {
           return std::vector<std::string>{"build", f, "--fpp", v, keys};
         },
         false, ""},
        {"--threads", "build",
         [f, keys](const std::string& v) {
           return std::vector<std::string>{"build", f, "--fpp", "0.01", "--threads", v, keys};
         },
         true, "(1 to 1024)"},
        {"--growth", "create",
         [f](const std::string& v) {
           return std::vector<std::string>{"create", f,        "--capacity", "100",      "--fpp",
                                           "0.01",   "--kind", "scalable",   "--growth", v};
         },
         true, "(1 to 32768)"},
        {"--tightening", "create",
         [f](const std::string& v) {
           return std::vector<std::string>{"create",       f,      "--capacity", "100",
                                           "--fpp",        "0.01", "--kind",     "scalable",
                                           "--tightening", v};
         },
         false, ""},
        {"--max-memory", "build",
         [f, keys](const std::string& v) {
           return std::vector<std::string>{"build",        f, "--fpp", "0.01", "--kind", "scalable",
                                           "--max-memory", v, keys};
         },
         true, count_range},
    };
#ifdef BLOOMKIT_CLI_HAS_REDIS
    // Every one fails before connecting (nothing listens on the URL).
    const std::string url = "redis://127.0.0.1:1";
    const std::vector<numeric_option> redis = {
        {"--capacity", "redis create",
         [url](const std::string& v) {
           return std::vector<std::string>{"redis",      "--url", url,     "create", "n",
                                           "--capacity", v,       "--fpp", "0.01"};
         },
         true, count_range},
        {"--fpp", "redis create",
         [url](const std::string& v) {
           return std::vector<std::string>{"redis",      "--url", url,     "create", "n",
                                           "--capacity", "100",   "--fpp", v};
         },
         false, ""},
        {"--shard-bits", "redis create",
         [url](const std::string& v) {
           return std::vector<std::string>{"redis", "--url",        url,   "create",
                                           "n",     "--capacity",   "100", "--fpp",
                                           "0.01",  "--shard-bits", v};
         },
         true, "(10 to 32)"},
        {"--skew", "redis create",
         [url](const std::string& v) {
           return std::vector<std::string>{"redis",      "--url",  url,     "create", "n",
                                           "--capacity", "100",    "--fpp", "0.01",   "--window",
                                           "1h",         "--skew", v};
         },
         true, "(0 to 3600)"},
        {"SECONDS", "redis expire",
         [url](const std::string& v) {
           return std::vector<std::string>{"redis", "--url", url, "expire", "n", v};
         },
         true, "(1 to 1099511627776)"},
        {"--bits", "redis query",
         [url](const std::string& v) {
           return std::vector<std::string>{"redis",  "--url", url,     "--layout", "go-zero",
                                           "--bits", v,       "query", "n",        "k"};
         },
         true, "(1 to 4294967296)"},
    };
    all.insert(all.end(), redis.begin(), redis.end());
#endif
    return all;
  }
};

// Whether the pair (option, text) of a table runs: in the release build every pair; under a
// sanitizer every text for the first option and the first text for every other, which runs every
// branch of the one grammar and every option's use of it at a fifth of the tool's starts (each
// start of a sanitized tool costs about 50 ms).
bool pair_runs(std::size_t option, std::size_t text) {
  return !bloomkit::test::sanitized_build || option == 0 || text == 0;
}

// Text that is not a number in the grammar: the same message for every option.
TEST_F(CliNumbers, NotANumberIsOneMessageForEveryOption) {
  const auto all = options();
  for (std::size_t i = 0; i < all.size(); ++i) {
    const numeric_option& o = all[i];
    std::size_t t = 0;
    for (const std::string text : {"abc", "", " 5", "5 ", "0x10", "nan", "inf", "1_000", "1e"}) {
      if (!pair_runs(i, t++)) continue;
      SCOPED_TRACE(o.label + " in " + o.command + " with '" + text + "'");
      expect_usage_error(run(o.args(text)), o.label + ": '" + text + "' is not a number",
                         o.command);
    }
  }
  EXPECT_FALSE(exists("f.bf"));
}

// Whole-number options: a fraction is refused, a value beyond the option's range (or beyond
// 2^64 - 1, or negative) is out of range; both name the text as given.
TEST_F(CliNumbers, WholeNumberOptionsRefuseFractionsAndOutOfRangeValues) {
  const auto all = options();
  std::size_t whole = 0;
  for (const numeric_option& o : all) {
    if (!o.whole) continue;
    const std::size_t i = whole++;
    std::size_t t = 0;
    for (const std::string text : {"1.5", "1e-1", "2.25e1", "0.999999999999999999999"}) {
      if (!pair_runs(i, t++)) continue;
      SCOPED_TRACE(o.label + " in " + o.command + " with '" + text + "'");
      expect_usage_error(run(o.args(text)), o.label + ": '" + text + "' is not a whole number",
                         o.command);
    }
    t = 0;
    for (const std::string text : {"1e400", "99999999999999999999", "18446744073709551616",
                                   "1e99999999999999999999", "-1", "-1e3"}) {
      if (!pair_runs(i, t++)) continue;
      SCOPED_TRACE(o.label + " in " + o.command + " with '" + text + "'");
      expect_usage_error(run(o.args(text)), o.label + ": '" + text + "' is out of range " + o.range,
                         o.command);
    }
  }
  EXPECT_FALSE(exists("f.bf"));
}

// Real options: a value a double cannot hold is out of range (not inf, not 0); NaN and the
// infinities are not numbers (above).
TEST_F(CliNumbers, RealOptionsRefuseValuesADoubleCannotHold) {
  for (const numeric_option& o : options()) {
    if (o.whole) continue;
    for (const std::string text : {"1e400", "1e-400", "-1e400", "1e99999999999999999999"}) {
      SCOPED_TRACE(o.label + " in " + o.command + " with '" + text + "'");
      expect_usage_error(
          run(o.args(text)),
          o.label + ": '" + text + "' is out of range (not representable as a double)", o.command);
    }
  }
  EXPECT_FALSE(exists("f.bf"));
}

// What the grammar accepts: an optional sign, decimal digits with an optional point, an optional
// exponent; whole-number options take any such value that is a whole number.
TEST_F(CliNumbers, AcceptedForms) {
  const std::string expected = ok({"size", "--capacity", "1000000", "--fpp", "0.01"});
  for (const char* capacity : {"1e6", "1E6", "+1e6", "1.0e6", "0.1e7", "1000000.000", "0001000000",
                               "1e+6", "10000000e-1"}) {
    EXPECT_EQ(ok({"size", "--capacity", capacity, "--fpp", "0.01"}), expected) << capacity;
  }
  for (const char* fpp : {".01", "0.01", "1e-2", "1E-2", "+0.01", "0.010", "10e-3", "1.e-2"}) {
    EXPECT_EQ(ok({"size", "--capacity", "1000000", "--fpp", fpp}), expected) << fpp;
  }
  // Negative reals parse; the library's range check refuses them with its own message.
  const std::string negative = library_message([] { bloomkit::validate_fpp(-0.5); });
  expect_usage_error(run({"size", "--capacity", "100", "--fpp", "-0.5"}), negative, "size");
  expect_usage_error(run({"size", "--capacity", "100", "--fpp=-0.5"}), negative, "size");
  // --capacity 0 is a number; the library says why it is not a capacity.
  const std::string zero = library_message([] { bloomkit::validate_capacity(0); });
  expect_usage_error(run({"size", "--capacity", "-0", "--fpp", "0.01"}), zero, "size");

  const std::string f = at("f.bf");
  for (const char* threads : {"2", "2.0", "2e0", "+2", "0.2e1"}) {
    EXPECT_TRUE(matches(ok({"build", f, "--fpp", "0.01", "--threads", threads, at("keys.txt")}),
                        "built " + f + ": 2 keys read, 2 new, in {S} s\n"))
        << threads;
  }
  ok({"create", f, "--capacity", "1e2", "--fpp", "1e-2", "--kind", "scalable", "--growth", "4.0",
      "--tightening", ".8", "--max-memory", "1e6"});
  const auto info = parse_lines(ok({"info", f}));
  EXPECT_EQ(info.at("capacity"), "100");
  EXPECT_EQ(info.at("growth"), "4");
  EXPECT_EQ(info.at("tightening"), "0.8");
  EXPECT_EQ(info.at("memory_ceiling"), "1000000");
}

// ---------------------------------------------------------------------------------------------
// JSON of any file name

// Names that are valid UTF-8 (kept as they are), invalid UTF-8 of every kind (each invalid
// byte becomes \udcXX), and control bytes (escaped).
const std::vector<std::string> awkward_names = {
    "caf\xc3\xa9.bf",                             // é, valid
    "caf\xe9.bf",                                 // é in Latin-1: a lone invalid byte
    "\xf0\x9f\x98\x80.bf",                        // U+1F600, valid 4-byte
    "\xe0\xa0\x80-\xf0\x90\x80\x80.bf",           // the smallest 3- and 4-byte sequences, valid
    "\xef\xbf\xbf.bf",                            // U+FFFF, valid
    "\xed\xa0\x80.bf",                            // an encoded surrogate
    "\xc0\xaf-\xe0\x9f\xbf-\xf0\x8f\xbf\xbf.bf",  // overlong 2-, 3- and 4-byte forms
    "\xf4\x90\x80\x80.bf",                        // above U+10FFFF
    "\xe2\x82.bf",                                // truncated
    "\xe2\x82\xac\xe2.bf",                        // valid then truncated
    "\x80\xbf\xfe\xff.bf",                        // lone continuations and bytes never in UTF-8
    "tab\t\x01\x1f\x7f.bf",                       // control bytes
    "quote\"back\\slash.bf",
    "new\nline.bf",
    "\\udce9.bf",  // the text of an escape, not the escape
};

TEST_F(Cli, InfoJsonIsValidJsonForEveryFileName) {
  std::vector<std::string> files;
  std::vector<std::string> documents;
  for (const std::string& name : awkward_names) {
    SCOPED_TRACE(name);
    const std::string f = at(name);
    ok({"create", f, "--capacity", "10", "--fpp", "0.1"});
    files.push_back(f);
    documents.push_back(ok({"info", f, "--json"}));
    // The text form keeps one line per field (the JSON has a line more for each brace).
    const std::string text = ok({"info", f});
    EXPECT_EQ(count_char(text, '\n'), count_char(documents.back(), '\n') - 2) << text;
  }
  // Valid JSON, and each name comes back byte for byte (so distinct names stay distinct).
  const auto names = python_json_strings(documents, "file");
  ASSERT_EQ(names.size(), files.size());
  for (std::size_t i = 0; i < files.size(); ++i) EXPECT_EQ(names[i], files[i]) << documents[i];
}

// ---------------------------------------------------------------------------------------------
// Names in one-line outputs

class CliNames : public Cli {
 protected:
  static std::string hex_escape(int c) {
    char text[8];
    std::snprintf(text, sizeof text, "\\x%02x", c);
    return text;
  }
  // How a name with control bytes is shown: bash's ANSI-C quoting.
  static std::string shown(const std::string& escaped) { return "$'" + escaped + "'"; }
  std::string dir() const { return dir_.string(); }
};

TEST_F(CliNames, OrdinaryNamesPrintAsBefore) {
  // Spaces, quotes, backslashes and bytes that are not UTF-8 are not control bytes.
  for (const std::string name : {"plain.bf", "it's a file.bf", "back\\slash.bf", "caf\xe9.bf"}) {
    const std::string f = at(name);
    EXPECT_TRUE(matches(ok({"create", f, "--capacity", "100", "--fpp", "0.01"}),
                        "created " + f + ": {N} bits, {N} bytes, {N} hashes\n"));
    EXPECT_EQ(parse_lines(ok({"info", f})).at("file"), f);
    const result r = run({"remove", f, "k"});
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_EQ(r.err,
              "bloomkit: error: '" + f +
                  "' holds a classic filter; only counting and cuckoo filters can remove keys\n");
  }
}

TEST_F(CliNames, ControlBytesAreEscapedInEveryOutputLine) {
  const std::string f = at("a\nb.bf");
  const std::string f_shown = shown(dir() + "/a\\nb.bf");
  write("keys.txt", "k1\nk2\n");

  EXPECT_TRUE(matches(ok({"create", f, "--capacity", "100", "--fpp", "0.01"}),
                      "created " + f_shown + ": {N} bits, {N} bytes, {N} hashes\n"))
      << f_shown;
  EXPECT_TRUE(matches(ok({"build", f, "--capacity", "100", "--fpp", "0.01", at("keys.txt")}),
                      "built " + f_shown + ": 2 keys read, 2 new, in {S} s\n"));
  EXPECT_EQ(ok({"add", f, "k3"}), "added 1 new of 1 keys\n");
  const std::string out = at("o\tut.bf");
  EXPECT_EQ(ok({"merge", out, f, f}),
            "merged 2 filters into " + shown(dir() + "/o\\tut.bf") + " (union)\n");
  EXPECT_EQ(parse_lines(ok({"info", f})).at("file"), f_shown);

  // Every byte below 0x20 and 0x7f; a quote and a backslash inside an escaped name are escaped.
  std::string all_controls = "c";
  std::string all_shown = "c";
  for (int c = 1; c < 0x20; ++c) {
    all_controls += static_cast<char>(c);
    all_shown += c == '\t'   ? std::string("\\t")
                 : c == '\n' ? std::string("\\n")
                 : c == '\r' ? std::string("\\r")
                             : hex_escape(c);
  }
  all_controls += "\x7f'\\.bf";
  all_shown += "\\x7f\\'\\\\.bf";
  EXPECT_TRUE(matches(ok({"create", at(all_controls), "--capacity", "100", "--fpp", "0.01"}),
                      "created " + shown(dir() + "/" + all_shown) +
                          ": {N} bits, {N} bytes, {N} "
                          "hashes\n"));

  // Errors the tool words: the name as in outputs, inside the message's quotes.
  result r = run({"remove", f, "k"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_EQ(r.err,
            "bloomkit: error: " + f_shown +
                " holds a classic filter; only counting and cuckoo filters can remove keys\n");
  // Errors the library words (it names files as given): control bytes escaped, one line.
  r = run({"info", at("missing\nfile.bf")});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_EQ(count_char(r.err, '\n'), 1u) << r;
  EXPECT_NE(r.err.find("missing\\nfile.bf"), std::string::npos) << r;
  // Usage errors: the value as given, escaped; the message and the --help hint, two lines.
  expect_usage_error(run({"size", "--capacity", "1\n2", "--fpp", "0.01"}),
                     "--capacity: " + shown("1\\n2") + " is not a number", "size");
  expect_usage_error(run({"size", "--capacity", "10", "--fpp", "0.1\r"}),
                     "--fpp: " + shown("0.1\\r") + " is not a number", "size");
  expect_usage_error(run({"fro\nb"}), "unknown command " + shown("fro\\nb"), "");
  r = run({"create", f, "--capacity", "100", "--fpp", "0.01", "--b\nogus"});
  EXPECT_EQ(r.status, 2) << r;
  EXPECT_EQ(count_char(r.err, '\n'), 2u) << r;
}

#ifdef BLOOMKIT_INTEROP_DATA
TEST_F(CliNames, ImportExportAndKeysInMessages) {
  const fs::path data = BLOOMKIT_INTEROP_DATA;
  const std::string peer = at("peer\n.bin");
  fs::copy_file(data / "guava" / "guava_mitz32_long_n100_p0.03.bin", peer);
  const std::string f = at("long\n.bloom");
  EXPECT_TRUE(matches(ok({"import", peer, f, "--from", "guava", "--key-type", "long"}),
                      "imported " + shown(dir() + "/peer\\n.bin") +
                          ": {N} bits, {N} hashes, guava-murmur128-mitz-32\n"));
  EXPECT_TRUE(matches(ok({"export", f, at("out.bin"), "--to", "guava"}),
                      "exported " + shown(dir() + "/long\\n.bloom") +
                          ": {N} bits, {N} hashes, "
                          "guava\n"));
  // A key echoed in a message is a name too.
  const result r = run({"query", f, "1\n2"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_EQ(r.err, "bloomkit: error: key " + shown("1\\n2") +
                       " is not a signed 64-bit decimal integer (" +
                       shown(dir() + "/long\\n.bloom") + " holds 64-bit integer keys)\n");
}
#endif

}  // namespace
