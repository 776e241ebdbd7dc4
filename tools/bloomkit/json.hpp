#pragma once
// A flat list of named values printed either as "name: value" lines (the human form of
// `info` and `size`) or as one JSON object (--json), so both forms always carry the same
// fields in the same order. String values are names as names.hpp prints them in the lines, and
// JSON strings (json_quote) in the object.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bloomkit::cli {

// `text` (bytes) as a JSON string literal, quotes included; always valid JSON in valid UTF-8
// (docs/CLI.md, "Names in output"). Well-formed UTF-8 is kept as it is; '"', '\\' and control
// characters are escaped; each byte that is not part of well-formed UTF-8 is written as the lone
// surrogate \udcXX (XX its value, 80 to ff): the convention of Python's surrogateescape, which
// keeps distinct byte strings distinct (no valid text holds a lone surrogate) and gives the
// bytes back (in Python: value.encode('utf-8', 'surrogateescape')). A mapping to valid code
// points (Latin-1 \u00XX, or U+FFFD) would make "caf\xe9" and "caf\xc3\xa9" one name.
std::string json_quote(std::string_view text);
// The shortest text that reads back as `value` ("0.01", "1e-05", "9585059"); JSON has no
// infinities or NaN, so as_json gives "null" for them.
std::string format_number(double value, bool as_json = false);

class report {
 public:
  report& add(std::string_view name, std::string_view text);  // a string
  report& add(std::string_view name, const char* text) { return add(name, std::string_view(text)); }
  report& add(std::string_view name, std::uint64_t value);
  report& add(std::string_view name, std::uint32_t value) {
    return add(name, static_cast<std::uint64_t>(value));
  }
  report& add(std::string_view name, double value);

  // "name: value\n" per field.
  std::string text() const;
  // {"name": value, ...} over several lines, with a final newline.
  std::string json() const;

 private:
  struct field {
    std::string name;
    std::string text;  // the value as printed in the human form
    std::string json;  // the value as a JSON literal
  };
  std::vector<field> fields_;
};

}  // namespace bloomkit::cli
