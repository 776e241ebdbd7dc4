#include "bloomkit/error.hpp"
#include "bloomkit/redis/client.hpp"

namespace bloomkit::redis {

reply reply::make_integer(long long value) {
  reply r;
  r.kind_ = kind::integer;
  r.integer_ = value;
  return r;
}

reply reply::make_string(std::string bytes) {
  reply r;
  r.kind_ = kind::string;
  r.str_ = std::move(bytes);
  return r;
}

reply reply::make_status(std::string text) {
  reply r = make_string(std::move(text));
  r.kind_ = kind::status;
  return r;
}

reply reply::make_error(std::string text) {
  reply r = make_string(std::move(text));
  r.kind_ = kind::error;
  return r;
}

reply reply::make_array(std::vector<reply> elements) {
  reply r;
  r.kind_ = kind::array;
  r.elements_ = std::move(elements);
  return r;
}

long long reply::integer() const {
  if (kind_ != kind::integer) {
    throw error(errc::server_error, "expected an integer reply from Redis, got " + to_string());
  }
  return integer_;
}

const std::string& reply::str() const {
  if (kind_ != kind::string && kind_ != kind::status && kind_ != kind::error) {
    throw error(errc::server_error, "expected a string reply from Redis, got " + to_string());
  }
  return str_;
}

const std::vector<reply>& reply::elements() const {
  if (kind_ != kind::array) {
    throw error(errc::server_error, "expected an array reply from Redis, got " + to_string());
  }
  return elements_;
}

std::string reply::to_string() const {
  switch (kind_) {
    case kind::nil:
      return "(nil)";
    case kind::integer:
      return std::to_string(integer_);
    case kind::string: {
      // Quote, escape non-printable bytes and cut long strings: this is for messages.
      constexpr std::size_t limit = 64;
      std::string out = "\"";
      for (std::size_t i = 0; i < str_.size() && i < limit; ++i) {
        const auto c = static_cast<unsigned char>(str_[i]);
        if (c == '"' || c == '\\') {
          out += '\\';
          out += static_cast<char>(c);
        } else if (c < 0x20 || c >= 0x7f) {
          static constexpr char hex[] = "0123456789abcdef";
          out += "\\x";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
      }
      if (str_.size() > limit) out += "...";
      return out + "\"";
    }
    case kind::status:
      return str_;
    case kind::error:
      return "(error) " + str_;
    case kind::array: {
      std::string out = "[";
      for (std::size_t i = 0; i < elements_.size(); ++i) {
        if (i > 0) out += ", ";
        out += elements_[i].to_string();
      }
      return out + "]";
    }
  }
  return "?";
}

}  // namespace bloomkit::redis
