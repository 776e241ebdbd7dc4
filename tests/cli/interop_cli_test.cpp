// End-to-end tests of `bloomkit import` / `export` and of query / info on imported files, with
// the files the real peers wrote (tests/data/interop, tools/interop/generate): the tool must
// answer as the peer answered and write back the peer's bytes exactly.

#include "bloomkit/compat/guava.hpp"
#include "bloomkit/compat/redisbloom.hpp"
#include "cli_support.hpp"
#include "support/interop_vectors.hpp"
#include "support/redisbloom_vectors.hpp"

namespace {

using namespace bloomkit::cli_test;
using namespace bloomkit::test;

class InteropCli : public Cli {
 protected:
  // Imports a vector's peer file, checks the output line, and returns the bloomkit file.
  std::string import(const interop_vector& v, const std::string& from) {
    const std::string out = at(v.name + ".bloom");
    const std::string in = from == "bits-and-blooms-json" ? v.json.string() : v.file.string();
    std::vector<std::string> args = {"import", in, out, "--from", from};
    if (v.key_type == "long") args.insert(args.end(), {"--key-type", "long"});
    const std::string scheme = v.scheme == "guava_murmur128_mitz_32"   ? "guava-murmur128-mitz-32"
                               : v.scheme == "guava_murmur128_mitz_64" ? "guava-murmur128-mitz-64"
                                                                       : "bits-and-blooms-v3";
    EXPECT_EQ(ok(args), "imported " + in + ": " + std::to_string(v.bits) + " bits, " +
                            std::to_string(v.hashes) + " hashes, " + scheme + "\n");
    return out;
  }

  // Queries every probe key through stdin; the answers must be the peer's.
  void expect_peer_answers(const interop_vector& v, const std::string& file) {
    std::string input;
    std::string expected;
    for (std::size_t i = 0; i < v.probes.size(); ++i) {
      input += v.probe_texts[i] + "\n";
      expected += (v.probes[i].second ? "1\t" : "0\t") + v.probe_texts[i] + "\n";
    }
    EXPECT_EQ(ok({"query", file}, input), expected) << v.name;
  }

  void expect_export(const std::string& file, const std::string& to, const fs::path& peer_file,
                     const interop_vector& v) {
    const std::string out = at("exported." + to);
    EXPECT_EQ(ok({"export", file, out, "--to", to}),
              "exported " + file + ": " + std::to_string(v.bits) + " bits, " +
                  std::to_string(v.hashes) + " hashes, " + to + "\n");
    EXPECT_EQ(read_file(out), read_file(peer_file)) << v.name << " to " << to;
  }
};

TEST_F(InteropCli, GuavaImportQueryExport) {
  const auto files = vector_files("guava");
  ASSERT_EQ(files.size(), 12u);
  for (const auto& path : files) {
    const interop_vector v = read_vector(path);
    const std::string file = import(v, "guava");
    expect_peer_answers(v, file);
    expect_export(file, "guava", v.file, v);
  }
}

TEST_F(InteropCli, BitsAndBloomsImportQueryExportBothFormats) {
  for (const auto& path : vector_files("bits_and_blooms")) {
    const interop_vector v = read_vector(path);
    for (const char* from : {"bits-and-blooms", "bits-and-blooms-json"}) {
      const std::string file = import(v, from);
      expect_peer_answers(v, file);
      expect_export(file, "bits-and-blooms", v.file, v);
      expect_export(file, "bits-and-blooms-json", v.json, v);
    }
  }
}

TEST_F(InteropCli, InfoOnImportedFiles) {
  const interop_vector v =
      read_vector(interop_data() / "guava" / "guava_mitz32_long_n1000_p0.01.txt");
  const auto lines = parse_lines(ok({"info", import(v, "guava")}));
  EXPECT_EQ(lines.at("kind"), "classic");
  EXPECT_EQ(lines.at("hash_scheme"), "guava-murmur128-mitz-32");
  EXPECT_EQ(lines.at("key_type"), "long");
  EXPECT_EQ(lines.at("bits"), std::to_string(v.bits));
  EXPECT_EQ(lines.at("hashes"), std::to_string(v.hashes));
  // Guava's stream does not store n and p: they are what (m, k) imply.
  EXPECT_EQ(lines.at("capacity"), std::to_string(bloomkit::natural_capacity(v.bits, v.hashes)));

  const interop_vector s = read_vector(interop_data() / "bits_and_blooms" / "bnb_n1000_p0.01.txt");
  const auto json = parse_flat_json(ok({"info", import(s, "bits-and-blooms"), "--json"}));
  EXPECT_EQ(json.at("hash_scheme").text, "bits-and-blooms-v3");
  EXPECT_EQ(json.count("key_type"), 0u);  // string keys: the fields every file has
}

TEST_F(InteropCli, LongKeysMustBeSigned64BitDecimals) {
  const interop_vector v =
      read_vector(interop_data() / "guava" / "guava_mitz64_long_n100_p0.03.txt");
  const std::string file = import(v, "guava");
  EXPECT_EQ(ok({"query", file, "-9223372036854775808", "+0", "9223372036854775807"}).size(),
            std::string("x\t-9223372036854775808\nx\t+0\nx\t9223372036854775807\n").size());
  for (const char* bad :
       {"abc", "9223372036854775808", "-9223372036854775809", "1.5", " 1", "", "+-1", "0x10"}) {
    const result r = run({"query", file, bad});
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_EQ(r.err, "bloomkit: error: key '" + std::string(bad) +
                         "' is not a signed 64-bit decimal integer ('" + file +
                         "' holds 64-bit integer keys)\n")
        << r;
  }
}

TEST_F(InteropCli, AddAndMergeKeepTheSchemeAndKeyType) {
  const interop_vector v =
      read_vector(interop_data() / "guava" / "guava_mitz64_long_n100_p0.03.txt");
  const std::string file = import(v, "guava");
  // Added keys are hashed as longFunnel() does: the exported stream is what Guava would hold
  // after put(12345L) and put(-7L), so a filter built with those keys gives the same bytes.
  EXPECT_EQ(ok({"add", file, "12345", "-7"}), "added 2 new of 2 keys\n");
  auto built = bloomkit::guava::mitz_64_filter::for_capacity(v.expected_insertions, v.fpp);
  for (const auto& key : v.inserted) built.insert(key);
  built.insert(std::int64_t{12345});
  built.insert(std::int64_t{-7});
  ok({"export", file, at("after.guava"), "--to", "guava"});
  const auto expected = bloomkit::guava::write(built);
  EXPECT_EQ(read("after.guava"), std::string(expected.begin(), expected.end()));
  EXPECT_EQ(parse_lines(ok({"info", file})).at("key_type"), "long");
  const result bad = run({"add", file, "x"});
  EXPECT_EQ(bad.status, 1) << bad;

  ok({"merge", at("merged.bloom"), file, file});
  EXPECT_EQ(parse_lines(ok({"info", at("merged.bloom")})).at("key_type"), "long");
  const interop_vector s =
      read_vector(interop_data() / "guava" / "guava_mitz64_string_n100_p0.03.txt");
  const std::string strings = import(s, "guava");
  const result mixed = run({"merge", at("mixed.bloom"), file, strings});
  EXPECT_EQ(mixed.status, 1) << mixed;
  EXPECT_EQ(mixed.err, "bloomkit: error: '" + file + "' and '" + strings +
                           "' are incompatible: one holds 64-bit integer keys, the other text "
                           "keys\n");
  ok({"create", at("native.bloom"), "--capacity", "100", "--fpp", "0.03"});
  const result schemes = run({"merge", at("mixed.bloom"), strings, at("native.bloom")});
  EXPECT_EQ(schemes.status, 1) << schemes;
  EXPECT_NE(schemes.err.find("holds a classic filter with hash scheme guava-murmur128-mitz-64"),
            std::string::npos)
      << schemes;
  EXPECT_FALSE(exists("mixed.bloom"));
}

TEST_F(InteropCli, ExportRefusesSchemesTheTargetCannotCompute) {
  ok({"create", at("native.bloom"), "--capacity", "100", "--fpp", "0.01"});
  const result to_guava = run({"export", at("native.bloom"), at("out"), "--to", "guava"});
  EXPECT_EQ(to_guava.status, 1) << to_guava;
  EXPECT_EQ(to_guava.err, "bloomkit: error: " + at("native.bloom") +
                              ": cannot export to Guava: the filter uses hash scheme xxh3-128, "
                              "which Guava does not compute (it needs guava-murmur128-mitz-32 or "
                              "guava-murmur128-mitz-64)\n");
  EXPECT_FALSE(exists("out"));
  const interop_vector v =
      read_vector(interop_data() / "guava" / "guava_mitz64_string_n100_p0.03.txt");
  const std::string guava_file = import(v, "guava");
  for (const char* to : {"bits-and-blooms", "bits-and-blooms-json"}) {
    const result r = run({"export", guava_file, at("out"), "--to", to});
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_NE(r.err.find("uses hash scheme guava-murmur128-mitz-64, which bits-and-blooms does "
                         "not compute"),
              std::string::npos)
        << r;
    EXPECT_FALSE(exists("out"));
  }
}

TEST_F(InteropCli, ImportErrors) {
  const fs::path guava_bin = interop_data() / "guava" / "guava_mitz64_string_n100_p0.03.bin";
  // Truncated and garbage input: exit 1 naming the file, nothing written.
  const std::string bytes = read_file(guava_bin);
  write("cut.bin", bytes.substr(0, bytes.size() - 1));
  expect_error_naming(run({"import", at("cut.bin"), at("out"), "--from", "guava"}), at("cut.bin"));
  expect_error_naming(run({"import", at("cut.bin"), at("out"), "--from", "bits-and-blooms"}),
                      at("cut.bin"));
  write("garbage.json", "{\"m\": 1}");
  expect_error_naming(
      run({"import", at("garbage.json"), at("out"), "--from", "bits-and-blooms-json"}),
      at("garbage.json"));
  expect_error_naming(run({"import", at("missing"), at("out"), "--from", "guava"}), at("missing"));
  EXPECT_FALSE(exists("out"));
  // Usage errors.
  expect_usage_error(run({"import", guava_bin.string(), at("out"), "--from", "java"}),
                     "--from: java not in "
                     "{guava,bits-and-blooms,bits-and-blooms-json,redisbloom,spark}",
                     "import");
  expect_usage_error(
      run({"import", guava_bin.string(), at("out"), "--from", "guava", "--key-type", "int"}),
      "--key-type: int not in {string,long,binary}", "import");
  expect_usage_error(run({"export", guava_bin.string(), at("out")}), "--to is required", "export");
  // A Guava stream from stdin.
  EXPECT_EQ(ok({"import", "-", at("stdin.bloom"), "--from", "guava"}, bytes),
            "imported -: 768 bits, 5 hashes, guava-murmur128-mitz-64\n");
}

// RedisBloom DUMP payloads the real RedisBloom wrote (tests/data/redisbloom): import, the
// answers of query, info, export back to a payload that decodes to the same chain.
TEST_F(InteropCli, RedisBloomDumpImportQueryInfoExport) {
  const auto files = redisbloom_key_files();
  ASSERT_FALSE(files.empty());
  for (std::size_t f = 0; f < files.size(); f += 5) {
    const json v = read_json(files[f]);
    SCOPED_TRACE(v["key"].str());
    const std::string dump = unhex(v["dump_hex"].str());
    write("key.dump", dump);
    const auto chain = bloomkit::redisbloom::read_dump(
        {reinterpret_cast<const unsigned char*>(dump.data()), dump.size()}, "vector");
    EXPECT_EQ(ok({"import", at("key.dump"), at("key.bloom"), "--from", "redisbloom"}),
              "imported " + at("key.dump") + ": " + std::to_string(chain.cells()) + " bits, " +
                  std::to_string(chain.filters()) + " links, redisbloom\n");
    // Line-safe keys, added and absent, through stdin: RedisBloom's answers.
    std::string input;
    std::string expected;
    const auto take = [&](const json& hexes, const std::string& answers) {
      for (std::size_t i = 0; i < hexes.size(); ++i) {
        const std::string key = unhex(hexes[i].str());
        if (key.find_first_of(std::string("\n\r\0", 3)) != std::string::npos) continue;
        input += key + "\n";
        expected.push_back(answers[i]);
      }
    };
    take(v["items_hex"], v["probes"]["added_answers"].str());
    take(v["probes"]["absent_hex"], v["probes"]["absent_answers"].str());
    std::string answers;
    const std::string out = ok({"query", at("key.bloom")}, input);
    for (std::size_t at_line = 0; at_line < out.size();) {
      answers.push_back(out[at_line]);
      at_line = out.find('\n', at_line) + 1;
      if (at_line == 0) break;
    }
    EXPECT_EQ(answers, expected);
    const auto lines = parse_lines(ok({"info", at("key.bloom")}));
    EXPECT_EQ(lines.at("kind"), "redisbloom");
    EXPECT_EQ(lines.at("inserted"), std::to_string(v["card"].u64()));
    EXPECT_EQ(lines.at("capacity"), std::to_string(v["info"]["Capacity"].u64()));
    EXPECT_EQ(lines.at("redisbloom_size"), std::to_string(v["info"]["Size"].u64()));
    ok({"export", at("key.bloom"), at("back.dump"), "--to", "redisbloom"});
    const std::string back = read("back.dump");
    EXPECT_EQ(bloomkit::redisbloom::read_dump(
                  {reinterpret_cast<const unsigned char*>(back.data()), back.size()}, "back"),
              chain);
  }
  // A damaged payload is an error naming the file; nothing is written.
  const std::string dump = unhex(read_json(files.front())["dump_hex"].str());
  write("bad.dump", dump.substr(0, dump.size() - 1));
  expect_error_naming(run({"import", at("bad.dump"), at("bad.bloom"), "--from", "redisbloom"}),
                      at("bad.dump"));
  EXPECT_FALSE(exists("bad.bloom"));
  // Only a RedisBloom filter exports to RedisBloom.
  ok({"create", at("native.bloom"), "--capacity", "100", "--fpp", "0.01"});
  const result r = run({"export", at("native.bloom"), at("out"), "--to", "redisbloom"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("RedisBloom does not compute (it needs redisbloom)"), std::string::npos)
      << r;
}

}  // namespace
