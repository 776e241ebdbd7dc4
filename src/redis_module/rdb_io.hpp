#pragma once
// Reading and writing a module type's RDB fields through RedisModuleIO, for both kinds of value:
// bloomkit's image (filter_type.cpp, value_codec.hpp's source and sink) and RedisBloom's chain
// fields (redisbloom_type.cpp, redisbloom.hpp's field_source and field_sink). Every read is
// checked (the module sets HANDLE_IO_ERRORS): a failed or short one throws image_error, which
// the type's loader logs and refuses.

#include <cstdint>
#include <string_view>

#include "../module_value/filter_image.hpp"
#include "module_api.hpp"

namespace bloomkit::redis_module {

// Source: an interface with read_unsigned and read_string (and read_double where it has one:
// the method is there either way). Each string is freed with RedisModule_Free at the next read.
template <class Source>
class rdb_reader final : public Source {
 public:
  explicit rdb_reader(RedisModuleIO* from) : io_(from) {}
  ~rdb_reader() override { release(); }
  rdb_reader(const rdb_reader&) = delete;
  rdb_reader& operator=(const rdb_reader&) = delete;

  std::uint64_t read_unsigned() override {
    const std::uint64_t value = RedisModule_LoadUnsigned(io_);
    check();
    return value;
  }
  double read_double() {
    const double value = RedisModule_LoadDouble(io_);
    check();
    return value;
  }
  std::string_view read_string() override {
    release();
    data_ = RedisModule_LoadStringBuffer(io_, &size_);
    check();
    return {data_, data_ == nullptr ? 0 : size_};
  }

 private:
  void check() const {
    if (RedisModule_IsIOError(io_)) throw image_error("short or failed read");
  }
  void release() {
    if (data_ != nullptr) RedisModule_Free(data_);
    data_ = nullptr;
  }
  RedisModuleIO* io_;
  char* data_ = nullptr;
  std::size_t size_ = 0;
};

template <class Sink>
struct rdb_writer final : Sink {
  RedisModuleIO* io;
  explicit rdb_writer(RedisModuleIO* to) : io(to) {}
  void write_unsigned(std::uint64_t value) override { RedisModule_SaveUnsigned(io, value); }
  void write_double(double value) { RedisModule_SaveDouble(io, value); }
  void write_string(std::string_view bytes) override {
    RedisModule_SaveStringBuffer(io, bytes.data(), bytes.size());
  }
};

}  // namespace bloomkit::redis_module
