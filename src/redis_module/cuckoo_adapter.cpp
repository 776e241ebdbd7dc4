// The CF.* commands' questions bound to the compat library's filter (cuckoo_adapter.hpp).

#include "cuckoo_adapter.hpp"

#include <bit>
#include <new>

#include "bloomkit/error.hpp"

namespace bloomkit::redis_module {

namespace cf = redisbloom::cuckoo;

namespace {

// Moves a filter into an object of Redis's allocator.
cuckoo_ptr adopt(cf::filter&& f) {
  void* room = RedisModule_Alloc(sizeof(cuckoo_value));
  return cuckoo_ptr(new (room) cuckoo_value(std::move(f)));
}

}  // namespace

cuckoo_ptr make_cuckoo(std::uint64_t capacity, std::uint32_t bucket_size,
                       std::uint32_t max_iterations, std::uint32_t expansion) {
  return adopt(cf::filter::make(capacity, static_cast<std::uint16_t>(bucket_size),
                                static_cast<std::uint16_t>(max_iterations),
                                static_cast<std::uint16_t>(expansion)));
}

std::uint64_t cuckoo_slot_bytes(std::uint64_t capacity, std::uint32_t bucket_size) noexcept {
  const std::uint64_t buckets = bucket_size == 0 ? 1 : capacity / bucket_size;
  return std::bit_ceil(buckets == 0 ? 1 : buckets) * bucket_size;
}

void free_cuckoo(cuckoo_value* value) noexcept {
  if (value == nullptr) return;
  value->~cuckoo_value();
  RedisModule_Free(value);
}

cuckoo_insert insert_item(cuckoo_value& f, std::string_view item, bool unique) {
  switch (unique ? f.insert_unique(item) : f.insert(item)) {
    case cf::insert_status::inserted:
      return cuckoo_insert::inserted;
    case cf::insert_status::exists:
      return cuckoo_insert::exists;
    case cf::insert_status::no_space:
      return cuckoo_insert::no_space;
    case cf::insert_status::no_memory:
      break;
  }
  throw error(errc::too_large, std::string(cf::no_memory_text));
}

bool contains_item(const cuckoo_value& f, std::string_view item) {
  return f.contains(item);
}

std::uint64_t count_item(const cuckoo_value& f, std::string_view item) {
  return f.count(item);
}

bool delete_item(cuckoo_value& f, std::string_view item) {
  return f.remove(item);
}

void compact(cuckoo_value& f) {
  f.compact(true);
}

cuckoo_figures figures_of(const cuckoo_value& f) {
  const cf::filter& x = f;
  return {x.info_size(),   x.num_buckets(), x.num_filters(), x.num_items(),
          x.num_deletes(), x.bucket_size(), x.expansion(),   x.max_iterations()};
}

void save_cuckoo(const cuckoo_value& f, RedisModuleIO* io) {
  rdb_writer<redisbloom::field_sink> out(io);
  cf::save_fields(f, out);
}

cuckoo_ptr load_cuckoo(RedisModuleIO* io, int encver) {
  rdb_reader<redisbloom::field_source> in(io);
  return adopt(cf::load_fields(in, encver));
}

std::vector<unsigned char> header_of(const cuckoo_value& f) {
  const auto header = cf::header_chunk(f);
  return {header.begin(), header.end()};
}

cuckoo_chunk chunk_at(const cuckoo_value& f, long long iterator) {
  const cf::data_chunk chunk = cf::next_chunk(f, iterator);
  return {chunk.next, chunk.data};
}

cuckoo_ptr from_header(std::string_view header, std::string& refusal) {
  try {
    return adopt(cf::filter_from_header(
        {reinterpret_cast<const unsigned char*>(header.data()), header.size()}));
  } catch (const cf::chunk_error& e) {
    refusal = std::string(cf::redisbloom_text(e.problem()));
    return nullptr;
  }
}

bool load_chunk(cuckoo_value& f, long long iterator, std::string_view data) {
  try {
    cf::apply_chunk(f, iterator,
                    {reinterpret_cast<const unsigned char*>(data.data()), data.size()});
  } catch (const cf::chunk_error&) {
    return false;
  }
  return true;
}

}  // namespace bloomkit::redis_module
