// The Spark vectors' item lists (spark_items.hpp).

#include "support/spark_items.hpp"

#include <charconv>
#include <cstring>
#include <stdexcept>

#include "support/sha256.hpp"

namespace bloomkit::test {
namespace {

char* put_le(char* out, std::uint64_t v, int size) {
  for (int i = 0; i < size; ++i, v >>= 8) out[i] = static_cast<char>(v & 0xff);
  return out + size;
}

char* put_be(char* out, std::uint64_t v, int size) {
  for (int i = size - 1; i >= 0; --i) *out++ = static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

char* put_bytes(char* out, std::string_view bytes) {
  if (!bytes.empty()) std::memcpy(out, bytes.data(), bytes.size());
  return out + bytes.size();
}

// An item rule, its fields read once: generate(i) appends item i.
class item_rule {
 public:
  item_rule(const json& g, const std::string& type) {
    const std::string& rule = g["rule"].str();
    if (rule == "prefix_decimal_suffix") {
      form_ = form::decimal;
      prefix_ = g["prefix"].str();
      suffix_ = g["suffix"].str();
    } else if (rule == "mul_add_wrapping") {
      form_ = form::wrapping;
      mul_ = static_cast<std::uint64_t>(std::stoll(g["mul"].number()));
      add_ = static_cast<std::uint64_t>(std::stoll(g["add"].number()));
    } else if (rule == "lead_int32_tail") {
      form_ = form::int32_tail;
      prefix_ = unhex(g["lead_hex"].str());
      big_endian_ = g["int32_byte_order"].str() == "big";
      tail_mod_ = g["tail_mod"].u64();
      mul_ = g["tail_mul"].u64();
    } else {
      throw std::runtime_error("unknown item rule " + rule + " for " + type);
    }
  }

  void generate(std::uint64_t i, spark_items& out) const {
    if (form_ == form::wrapping) {
      const std::uint64_t v = i * mul_ + add_;
      out.longs.push_back(static_cast<std::int64_t>(v));
      put_le(out.append(8), v, 8);
    } else if (form_ == form::decimal) {
      char digits[20];
      const char* end = std::to_chars(digits, digits + sizeof digits, i).ptr;
      const std::string_view decimal(digits, static_cast<std::size_t>(end - digits));
      char* p = out.append(prefix_.size() + decimal.size() + suffix_.size());
      put_bytes(put_bytes(put_bytes(p, prefix_), decimal), suffix_);
    } else {
      const std::uint64_t tail = i % tail_mod_;
      char* p = put_bytes(out.append(prefix_.size() + 4 + tail), prefix_);
      const auto x = static_cast<std::uint32_t>(i);
      p = big_endian_ ? put_be(p, x, 4) : put_le(p, x, 4);
      for (std::uint64_t t = 0; t < tail; ++t) {
        *p++ = static_cast<char>(0x80 | ((i * mul_ + t) & 0x7f));
      }
    }
  }

 private:
  enum class form { decimal, wrapping, int32_tail } form_ = form::decimal;
  std::string prefix_, suffix_;
  std::uint64_t mul_ = 0, add_ = 0, tail_mod_ = 1;
  bool big_endian_ = true;
};

}  // namespace

char* spark_items::append(std::size_t size) {
  ends_.push_back(storage_.size() + size);
  storage_.resize(ends_.back());
  return storage_.data() + ends_.back() - size;
}

void spark_items::seal() {
  bytes.resize(ends_.size());
  std::size_t start = 0;
  for (std::size_t i = 0; i < ends_.size(); ++i) {
    bytes[i] = std::string_view(storage_.data() + start, ends_[i] - start);
    start = ends_[i];
  }
}

spark_items spark_item_list(const json& list) {
  const std::uint64_t limit = list["count"].u64();
  spark_items out;
  out.type = list["type"].str();
  const bool longs = out.type == "long";
  const json& specials = list["specials"];
  if (longs) {
    for (const json& v : specials["values"].items) {
      out.longs.push_back(std::stoll(v.number()));
      put_le(out.append(8), static_cast<std::uint64_t>(out.longs.back()), 8);
    }
  } else {
    for (const json& v : specials["hex"].items) {
      const std::string bytes = unhex(v.str());
      put_bytes(out.append(bytes.size()), bytes);
    }
  }
  const json& g = list["generated"];
  const std::uint64_t start = g["start"].u64(), count = g["count"].u64();
  const item_rule rule(g, out.type);
  for (std::uint64_t i = start; i < start + count && out.size() < limit; ++i) {
    rule.generate(i, out);
  }
  if (out.size() != limit) throw std::runtime_error("the item list is short");
  out.seal();
  // What the manifest's SHA-256 covers: each long as 8 big-endian bytes, each other item as its
  // 4-byte big-endian length and its bytes.
  std::size_t size = 0;
  for (const std::string_view b : out.bytes) size += longs ? 8 : 4 + b.size();
  std::string all(size, '\0');
  char* at = all.data();
  for (const std::string_view b : out.bytes) {
    if (longs) {
      for (std::size_t i = b.size(); i > 0; --i) *at++ = b[i - 1];
    } else {
      at = put_bytes(put_be(at, b.size(), 4), b);
    }
  }
  if (sha256_hex({reinterpret_cast<const std::uint8_t*>(all.data()), all.size()}) !=
      list["sha256"].str()) {
    throw std::runtime_error("the item list's SHA-256 is not the manifest's");
  }
  return out;
}

}  // namespace bloomkit::test
