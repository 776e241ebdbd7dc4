#pragma once
// Checks the tool's JSON with a real, strict parser: python3's json module (BLOOMKIT_PYTHON3,
// found by CMake). The bytes must decode as UTF-8 (RFC 8259: JSON text is UTF-8) and parse as one
// JSON text with no NaN/Infinity literals and no duplicate names. A string field is given back
// as bytes with Python's surrogateescape, the inverse of how docs/CLI.md ("Names in output")
// writes a name that is not UTF-8, so a test can compare it with the name it used.

#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace bloomkit::cli_test {

// For each JSON document (an object), the value of its string field `field` as bytes; nullopt,
// and a test failure saying why, for a document that python3 rejects. One python3 run for all.
inline std::vector<std::optional<std::string>> python_json_strings(
    const std::vector<std::string>& documents, const std::string& field) {
  std::vector<std::optional<std::string>> values(documents.size());
#ifndef BLOOMKIT_PYTHON3
  ADD_FAILURE() << "python3 was not found when the tests were configured";
  return values;
#else
  namespace fs = std::filesystem;
  std::string dir = (fs::temp_directory_path() / "bloomkit-json-XXXXXX").string();
  if (::mkdtemp(dir.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp failed";
    return values;
  }
  const fs::path base = dir;
  // For each i: reads i.json, writes i.value (the field's bytes) or i.error (why it is rejected).
  std::ofstream(base / "check.py") << R"(import json, os, sys
def no_constant(name):
    raise ValueError('not JSON: ' + name)
def no_duplicates(pairs):
    names = [k for k, _ in pairs]
    if len(names) != len(set(names)):
        raise ValueError('duplicate name')
    return dict(pairs)
base, field, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(count):
    path = os.path.join(base, str(i))
    try:
        text = open(path + '.json', 'rb').read().decode('utf-8')  # strict: JSON text is UTF-8
        value = json.loads(text, parse_constant=no_constant, object_pairs_hook=no_duplicates)
        out = value[field].encode('utf-8', 'surrogateescape')
        open(path + '.value', 'wb').write(out)
    except Exception as e:
        open(path + '.error', 'w').write(repr(e))
)";
  for (std::size_t i = 0; i < documents.size(); ++i) {
    std::ofstream(base / (std::to_string(i) + ".json"), std::ios::binary) << documents[i];
  }
  const std::string command = std::string(BLOOMKIT_PYTHON3) + " " + (base / "check.py").string() +
                              " " + base.string() + " " + field + " " +
                              std::to_string(documents.size());
  const int status = std::system(command.c_str());
  EXPECT_EQ(status, 0) << command;
  const auto slurp = [](const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  for (std::size_t i = 0; i < documents.size(); ++i) {
    const fs::path value = base / (std::to_string(i) + ".value");
    if (fs::exists(value)) {
      values[i] = slurp(value);
    } else {
      ADD_FAILURE() << "python3 rejects the JSON: " << slurp(base / (std::to_string(i) + ".error"))
                    << "\n"
                    << documents[i];
    }
  }
  std::error_code ec;
  fs::remove_all(base, ec);
  return values;
#endif
}

}  // namespace bloomkit::cli_test
