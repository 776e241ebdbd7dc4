#pragma once
// A module key's value: a filter, or the image BF.LOADCHUNK is still receiving (commands other
// than BF.LOADCHUNK, BF.SCANDUMP and DEL refuse such a key until its last chunk has arrived).
// Redis-free, like its codec (value_codec.hpp), so the fuzz targets use it without a server.

#include <memory>
#include <optional>

#include "filter_image.hpp"
#include "module_filter.hpp"

namespace bloomkit::redis_module {

// The module's data type (RedisModule_CreateDataType): what TYPE replies for a module key.
inline constexpr char module_type_name[] = "bloomkit1";

struct module_value {
  std::optional<module_filter> filter;
  std::unique_ptr<image_loader> loading;
};

}  // namespace bloomkit::redis_module
