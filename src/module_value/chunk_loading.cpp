// BF.LOADCHUNK past its first chunk (chunk_loading.hpp).

#include "chunk_loading.hpp"

#include <string>

#include "chunk_iterator.hpp"

namespace bloomkit::redis_module {

bool load_chunk(module_value& value, std::uint64_t iterator, std::string_view data) {
  image_loader& loader = *value.loading;
  if (iterator == 0 || iterator > static_cast<std::uint64_t>(INT64_MAX)) return false;
  const chunk_iterator it = decode_chunk_iterator(static_cast<long long>(iterator));
  if (it.end == 0) return false;
  const std::uint64_t end = it.end - 1;
  if (data.empty() || end < data.size() || end - data.size() != loader.loaded_bytes()) {
    return false;
  }
  if (it.tag != 0 && it.tag != loader.shape_tag()) {
    throw image_error(
        "the chunk is of a filter of another shape than the header's (the key was recreated "
        "during BF.SCANDUMP): dump it again");
  }
  loader.append(data);
  if (it.last && !loader.complete()) {
    throw image_error("the dump's last chunk ends at byte " + std::to_string(end) +
                      " of a payload of " + std::to_string(loader.payload_bytes()) +
                      " bytes (the key changed during BF.SCANDUMP): dump it again");
  }
  if (loader.complete()) {
    value.filter = loader.finish();
    value.loading.reset();
  }
  return true;
}

}  // namespace bloomkit::redis_module
