// load_raw / save_raw (file.hpp): classic and counting files of any scheme as a header and their
// cells' bits, for layouts that are not a bloom_filter or counting_bloom_filter (bloomkit::redis's
// push and pull of sharded filters).

#include <string>

#include "../kinds/classic_kind.hpp"
#include "../kinds/word_payload.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/file.hpp"
#include "header_codec.hpp"
#include "write_filter_file.hpp"

namespace bloomkit {

namespace {

// Bits per cell of the kinds a raw filter may be, 0 for the others.
unsigned raw_cell_bits(filter_kind kind) {
  if (kind == filter_kind::classic) return 1;
  if (kind == filter_kind::counting) return counting_bloom_filter::storage_type::bits_per_cell;
  return 0;
}

}  // namespace

raw_filter load_raw(const std::filesystem::path& path) {
  const detail::filter_file file(path);
  const file_header& h = file.header();
  const unsigned cell_bits = raw_cell_bits(h.kind);
  if (cell_bits == 0) {
    detail::fail_file(
        errc::unsupported, file.source(),
        "holds a " + std::string(to_string(h.kind)) + " filter, not a classic or counting one");
  }
  return {h, detail::read_words(file, h.bits * cell_bits)};
}

void save_raw(const file_header& header, const bit_array& bits, const std::filesystem::path& path) {
  const std::string source = path.string();
  const unsigned cell_bits = raw_cell_bits(header.kind);
  if (cell_bits == 0 || bits.size() != header.bits * cell_bits) {
    throw error(errc::invalid_argument, source + ": " + std::to_string(bits.size()) +
                                            " bits for a header of a " +
                                            std::string(to_string(header.kind)) + " filter of " +
                                            std::to_string(header.bits) + " cells");
  }
  file_header h = header;
  h.payload_offset = file_header_size;
  h.payload_length = bits.byte_size();
  detail::throw_if(detail::check_common_fields(h), source);
  detail::throw_if(detail::check_kind_fields(h), source);
  detail::write_filter_file(path, h, detail::words_payload(bits).parts);
}

}  // namespace bloomkit
