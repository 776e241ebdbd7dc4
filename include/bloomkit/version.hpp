#pragma once

namespace bloomkit {
inline constexpr const char* version_string = "0.1.0";
}
