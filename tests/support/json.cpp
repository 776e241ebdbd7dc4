// The vectors' JSON reader (json.hpp), compiled once at the build's optimization level: the test
// programs compile without optimization, and the vectors are megabytes of JSON that each test
// process reads (7 s per cuckoo vector set at -O0 under ASan, 1.5-2.5 s optimized).

#include "support/json.hpp"

#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace bloomkit::test {
namespace {

[[noreturn]] void fail(std::size_t at, const std::string& what) {
  throw std::runtime_error("JSON at byte " + std::to_string(at) + ": " + what);
}

void skip(std::string_view s, std::size_t& at) {
  while (at < s.size() && (s[at] == ' ' || s[at] == '\n' || s[at] == '\r' || s[at] == '\t')) {
    ++at;
  }
}

void expect(std::string_view s, std::size_t& at, std::string_view word) {
  if (s.substr(at, word.size()) != word) fail(at, "expected " + std::string(word));
  at += word.size();
}

void utf8(std::string& out, std::uint32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
  }
}

std::uint32_t hex4(std::string_view s, std::size_t& at) {
  if (at + 4 > s.size()) fail(at, "short \\u escape");
  const std::uint32_t c =
      static_cast<std::uint32_t>(std::stoul(std::string(s.substr(at, 4)), nullptr, 16));
  at += 4;
  return c;
}

std::string string_at(std::string_view s, std::size_t& at) {
  expect(s, at, "\"");
  std::string out;
  while (true) {
    // Plain runs in one append: the vectors hold megabytes of hex.
    const std::size_t quote = s.find('"', at);
    const std::size_t escape = s.substr(0, quote).find('\\', at);
    if (quote == std::string_view::npos && escape == std::string_view::npos) {
      fail(s.size(), "unterminated string");
    }
    const std::size_t run_end = escape == std::string_view::npos ? quote : escape;
    out.append(s.substr(at, run_end - at));
    at = run_end;
    const char c = s[at++];
    if (c == '"') return out;
    if (at >= s.size()) fail(at, "unterminated escape");
    const char e = s[at++];
    static constexpr std::string_view escaped = "ntrbf", meant = "\n\t\r\b\f";
    if (const std::size_t i = escaped.find(e); i != std::string_view::npos) {
      out.push_back(meant[i]);
    } else if (e == 'u') {
      std::uint32_t cp = hex4(s, at);
      if (cp >= 0xd800 && cp < 0xdc00 && s.substr(at, 2) == "\\u") {
        at += 2;
        cp = 0x10000 + ((cp - 0xd800) << 10) + (hex4(s, at) - 0xdc00);
      }
      utf8(out, cp);
    } else {
      out.push_back(e);  // \" \\ \/
    }
  }
}

// The comma-separated members of an object or array from its opening bracket at `at` to `close`;
// read_one reads one member, its leading blanks skipped.
template <class ReadOne>
void members(std::string_view s, std::size_t& at, char close, ReadOne read_one) {
  ++at;
  skip(s, at);
  if (at < s.size() && s[at] == close) {
    ++at;
    return;
  }
  while (true) {
    skip(s, at);
    read_one();
    skip(s, at);
    if (at < s.size() && s[at] == ',') {
      ++at;
      continue;
    }
    expect(s, at, std::string_view(&close, 1));
    return;
  }
}

json value(std::string_view s, std::size_t& at) {
  skip(s, at);
  if (at >= s.size()) fail(at, "unexpected end");
  json v;
  const char c = s[at];
  if (c == '{') {
    v.kind = json::type::object;
    members(s, at, '}', [&] {
      std::string name = string_at(s, at);
      skip(s, at);
      expect(s, at, ":");
      v.fields.emplace(std::move(name), value(s, at));
    });
    return v;
  }
  if (c == '[') {
    v.kind = json::type::array;
    members(s, at, ']', [&] { v.items.push_back(value(s, at)); });
    return v;
  }
  if (c == '"') {
    v.kind = json::type::string;
    v.text = string_at(s, at);
    return v;
  }
  if (c == 't') return expect(s, at, "true"), v.kind = json::type::boolean, v.flag = true, v;
  if (c == 'f') return expect(s, at, "false"), v.kind = json::type::boolean, v;
  if (c == 'n') return expect(s, at, "null"), v;
  const std::size_t start = at;
  while (at < s.size() && (std::isdigit(static_cast<unsigned char>(s[at])) || s[at] == '-' ||
                           s[at] == '+' || s[at] == '.' || s[at] == 'e' || s[at] == 'E')) {
    ++at;
  }
  if (at == start) fail(at, "unexpected character");
  v.kind = json::type::number;
  v.text = std::string(s.substr(start, at - start));
  return v;
}

}  // namespace

json json::parse(std::string_view s) {
  std::size_t at = 0;
  json v = value(s, at);
  skip(s, at);
  if (at != s.size()) fail(at, "trailing text");
  return v;
}

json read_json(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

std::string unhex(std::string_view hex) {
  if (hex.size() % 2 != 0) throw std::runtime_error("odd hex string");
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw std::runtime_error("bad hex digit");
  };
  std::string out(hex.size() / 2, '\0');
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<char>(nibble(hex[2 * i]) << 4 | nibble(hex[2 * i + 1]));
  }
  return out;
}

}  // namespace bloomkit::test
