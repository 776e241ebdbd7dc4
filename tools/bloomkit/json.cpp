#include "json.hpp"

#include <cmath>

#include <fmt/core.h>

#include "names.hpp"

namespace bloomkit::cli {

namespace {

// The length of the well-formed UTF-8 sequence that starts `text` (the Unicode standard's table
// 3-7: no overlong forms, no surrogates, nothing above U+10FFFF), or 0 when there is none.
std::size_t utf8_sequence_length(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char second_min = 0x80;
  unsigned char second_max = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) second_min = 0xa0;  // overlong below U+0800
    if (lead == 0xed) second_max = 0x9f;  // surrogates U+D800..U+DFFF
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) second_min = 0x90;  // overlong below U+10000
    if (lead == 0xf4) second_max = 0x8f;  // above U+10FFFF
  } else {
    return 0;  // a continuation byte, an overlong 2-byte lead (C0, C1), or F5..FF
  }
  if (text.size() < length || byte(1) < second_min || byte(1) > second_max) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xbf) return 0;
  }
  return length;
}

}  // namespace

std::string json_quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out.push_back('"');
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const std::size_t length = utf8_sequence_length(text.substr(i));
    if (length == 0) {
      // Not UTF-8: the byte as a lone low surrogate, U+DC80..U+DCFF (see json.hpp).
      out += fmt::format("\\u{:04x}", 0xdc00u + static_cast<unsigned char>(c));
      ++i;
      continue;
    }
    if (length > 1) {
      out.append(text.substr(i, length));
      i += length;
      continue;
    }
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (const char* escape = short_escape(c)) {
      out += escape;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    } else {
      out.push_back(c);
    }
    ++i;
  }
  out.push_back('"');
  return out;
}

std::string format_number(double value, bool as_json) {
  if (!std::isfinite(value)) {
    if (as_json) return "null";
    return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  }
  return fmt::format("{}", value);
}

report& report::add(std::string_view name, std::string_view text) {
  fields_.push_back({std::string(name), printable(text), json_quote(text)});
  return *this;
}

report& report::add(std::string_view name, std::uint64_t value) {
  const std::string text = fmt::format("{}", value);
  fields_.push_back({std::string(name), text, text});
  return *this;
}

report& report::add(std::string_view name, double value) {
  fields_.push_back({std::string(name), format_number(value), format_number(value, true)});
  return *this;
}

std::string report::text() const {
  std::string out;
  for (const field& f : fields_) out += fmt::format("{}: {}\n", f.name, f.text);
  return out;
}

std::string report::json() const {
  std::string out = "{";
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    out += fmt::format("{}\n  {}: {}", i == 0 ? "" : ",", json_quote(fields_[i].name),
                       fields_[i].json);
  }
  out += "\n}\n";
  return out;
}

}  // namespace bloomkit::cli
