#include "names.hpp"

#include <fmt/core.h>

namespace bloomkit::cli {

namespace {

bool is_control(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

bool is_ordinary(std::string_view name) {
  if (name.starts_with("$'")) return false;
  for (const char c : name) {
    if (is_control(c)) return false;
  }
  return true;
}

// Appends the C escape of a control byte.
void append_escape(std::string& out, char c) {
  if (const char* escape = short_escape(c)) {
    out += escape;
  } else {
    out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
  }
}

std::string ansi_c_quoted(std::string_view name) {
  std::string out = "$'";
  for (const char c : name) {
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += c;
    } else if (is_control(c)) {
      append_escape(out, c);
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

}  // namespace

const char* short_escape(char c) noexcept {
  switch (c) {
    case '\t':
      return "\\t";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    default:
      return nullptr;
  }
}

std::string printable(std::string_view name) {
  return is_ordinary(name) ? std::string(name) : ansi_c_quoted(name);
}

std::string quoted(std::string_view name) {
  return is_ordinary(name) ? fmt::format("'{}'", name) : ansi_c_quoted(name);
}

std::string quoted_name(std::string_view name) {
  if (name == "-") return "stdin";
  return quoted(name);
}

std::string one_line(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  for (const char c : message) {
    if (is_control(c)) {
      append_escape(out, c);
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace bloomkit::cli
