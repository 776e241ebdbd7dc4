// BF.LOADCHUNK past its first chunk (chunk_loading.hpp).

#include "chunk_loading.hpp"

namespace bloomkit::redis_module {

bool load_chunk(module_value& value, std::uint64_t iterator, std::string_view data) {
  image_loader& loader = *value.loading;
  const std::uint64_t end = iterator - 1;
  if (iterator == 0 || data.empty() || end < data.size() ||
      end - data.size() != loader.loaded_bytes()) {
    return false;
  }
  loader.append(data);
  if (loader.complete()) {
    value.filter = loader.finish();
    value.loading.reset();
  }
  return true;
}

}  // namespace bloomkit::redis_module
