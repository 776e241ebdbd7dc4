#include "word_payload.hpp"

#include "bloomkit/sizing.hpp"

namespace bloomkit::detail {

file_header header_of_config(filter_kind kind, hash_scheme scheme, const filter_config& config,
                             std::uint64_t inserted) {
  file_header h;
  h.kind = kind;
  h.scheme = scheme;
  h.bits = config.cells;
  h.hashes = config.hashes;
  h.capacity = config.capacity;
  h.target_fpp = config.target_fpp;
  h.inserted = inserted;
  if (config.keys == key_type::int64) h.flags |= file_flag_int64_keys;
  h.payload_offset = file_header_size;
  return h;
}

filter_config config_of(const file_header& h) {
  return {h.bits, h.hashes, h.capacity, h.target_fpp,
          is_integer_scheme(h.scheme) ? key_type::int64 : key_type::string};
}

file_check check_params_in_range(const file_header& h) {
  return header_problem_of([&] { validate_params(h.bits, h.hashes); });
}

file_check check_flags(const file_header& h, std::uint32_t allowed) {
  if ((h.flags & ~allowed) != 0) {
    return file_problem{errc::unsupported,
                        "header flags " + std::to_string(h.flags) + " are not supported"};
  }
  return {};
}

file_check check_integer_key_flag(const file_header& h) {
  if (!is_integer_scheme(h.scheme)) return {};
  if ((h.flags & file_flag_int64_keys) == 0) {
    return inconsistent_header("hash scheme " + std::string(to_string(h.scheme)) +
                               " is of integer keys but the integer-key flag is not set");
  }
  return check_flags(h, file_flag_int64_keys);
}

file_check check_only_integer_key_flag(const file_header& h) {
  return is_integer_scheme(h.scheme) ? check_integer_key_flag(h) : check_flags(h, 0);
}

file_check check_payload_length(const file_header& h, std::uint64_t expected,
                                const std::string& what) {
  if (h.payload_length != expected) {
    return inconsistent_header("payload length " + std::to_string(h.payload_length) + " for " +
                               what + " (expected " + std::to_string(expected) + ")");
  }
  return {};
}

file_check check_reserved_but_shards(const file_header& h) {
  // Scheme 20 keeps its shard count there, a Spark V2 filter its seed (compat/spark_kind.hpp).
  const std::size_t first_unused =
      h.scheme == hash_scheme::redis_sharded_xxh3 || h.scheme == hash_scheme::spark_v2 ? 1 : 0;
  for (std::size_t i = first_unused; i < h.kind_params.size(); ++i) {
    if (h.kind_params[i] != 0) return inconsistent_header("reserved fields are set");
  }
  if (h.scheme == hash_scheme::spark_v2 && h.kind_params[0] > 0xffffffffu) {
    return inconsistent_header("the Spark V2 seed " + std::to_string(h.kind_params[0]) +
                               " in kind_params[0] is not a 32-bit value");
  }
  return {};
}

file_payload words_payload(const bit_array& storage) {
  const auto words = storage.words();
  return {{{reinterpret_cast<const unsigned char*>(words.data()), words.size_bytes()}}, {}};
}

bit_array read_words(const filter_file& file, std::uint64_t bits) {
  if (std::optional<bit_array> taken = file.take_payload(bits)) {
    throw_if(check_tail_bits(bits, reinterpret_cast<const unsigned char*>(taken->data()),
                             taken->byte_size()),
             file.source());
    return std::move(*taken);
  }
  bit_array storage(bits);
  auto words = storage.mutable_words();
  const std::span<unsigned char> bytes(reinterpret_cast<unsigned char*>(words.data()),
                                       words.size_bytes());
  file.read_payload(bytes);
  throw_if(check_tail_bits(bits, bytes.data(), bytes.size()), file.source());
  return storage;
}

bit_array map_words(const filter_file& file, verify check, std::uint64_t bits) {
  mapped_payload payload = file.map_payload(check);
  if (check == verify::full) {
    throw_if(check_tail_bits(bits, payload.data, file.header().payload_length), file.source());
  }
  return bit_array::view(reinterpret_cast<const std::uint64_t*>(payload.data), bits,
                         std::move(payload.owner));
}

}  // namespace bloomkit::detail
