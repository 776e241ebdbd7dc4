#include "json.hpp"

#include <cmath>

#include <fmt/core.h>

namespace bloomkit::cli {

std::string json_quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out.push_back('"');
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out.push_back(c);
        }
    }
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
  fields_.push_back({std::string(name), std::string(text), json_quote(text)});
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
