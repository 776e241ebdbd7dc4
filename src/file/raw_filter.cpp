// load_raw / save_raw (file.hpp): classic files of any scheme as a header and a bit array, for
// layouts that are not a bloom_filter (bloomkit::redis's push and pull of sharded filters).

#include <string>

#include "bloomkit/file.hpp"
#include "classic_kind.hpp"
#include "header_codec.hpp"
#include "word_payload.hpp"
#include "write_filter_file.hpp"

namespace bloomkit {

raw_filter load_raw(const std::filesystem::path& path) {
  const detail::filter_file file(path);
  const file_header& h = file.header();
  if (h.kind != filter_kind::classic) {
    detail::fail_file(errc::unsupported, file.source(),
                      "holds a " + std::string(to_string(h.kind)) + " filter, not a classic one");
  }
  return {h, detail::read_words(file, h.bits)};
}

void save_raw(const file_header& header, const bit_array& bits, const std::filesystem::path& path) {
  const std::string source = path.string();
  if (bits.size() != header.bits || header.kind != filter_kind::classic) {
    throw error(errc::invalid_argument, source + ": " + std::to_string(bits.size()) +
                                            " bits for a header of a " +
                                            std::string(to_string(header.kind)) + " filter of " +
                                            std::to_string(header.bits) + " bits");
  }
  file_header h = header;
  h.payload_offset = file_header_size;
  h.payload_length = bits.byte_size();
  detail::throw_if(detail::check_common_fields(h), source);
  detail::throw_if(detail::check_classic_fields(h), source);
  detail::write_filter_file(path, h, detail::words_payload(bits).parts);
}

}  // namespace bloomkit
