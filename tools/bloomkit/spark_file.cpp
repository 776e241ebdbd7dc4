#include "spark_file.hpp"

#include <array>
#include <fstream>

#include <fmt/core.h>

#include "cli_error.hpp"
#include "input.hpp"
#include "json.hpp"

namespace bloomkit::cli {

bool is_spark_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::array<char, 4> first{};
  if (!in.read(first.data(), first.size())) return false;
  return first[0] == 0 && first[1] == 0 && first[2] == 0 && (first[3] == 1 || first[3] == 2);
}

opened<compat::any_filter> open_spark_file(const std::string& path, key_type keys) {
  input_file in(path);
  const std::string_view bytes = in.mappable() ? in.mapped() : std::string_view();
  spark::any_filter spark =
      spark::read({reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()}, path);
  in.check_unchanged();
  return std::visit(
      [&]<class Filter>(Filter&& f) {
        // What query and info read of a header: kind, scheme, key type.
        file_header header;
        header.kind = filter_kind::classic;
        header.scheme = f.scheme();
        if (keys == key_type::int64) header.flags |= file_flag_int64_keys;
        return opened<compat::any_filter>{compat::any_filter(std::forward<Filter>(f)), header};
      },
      std::move(spark));
}

opened<compat::any_filter> open_filter_file(const std::string& path, open_mode mode,
                                            key_type spark_keys) {
  if (is_spark_file(path)) return open_spark_file(path, spark_keys);
  return compat::open_any(path, mode);
}

void warn_if_spark_v1(const compat::any_filter& filter, std::string_view file) {
  const auto* v1 = std::get_if<spark::v1_filter>(&filter);
  if (v1 == nullptr) return;
  const std::uint64_t lost = spark::v1_bits_lost(v1->bits());
  const std::string this_one =
      lost == 0
          ? fmt::format("this one has {} bits, within 2^31", v1->bits())
          : fmt::format("this one has {} bits, {} of which no key can ever set", v1->bits(), lost);
  print_warning(fmt::format(
      "{} is a Spark V1 filter: V1's 32-bit index arithmetic loses the FPP of filters past about "
      "10^8 items (SPARK-47547); {}, and its bits give an FPP of {} (sized for {}). Rebuild it as "
      "V2 (BloomFilter.create(n, fpp), Spark 4.1's default) or from its keys as a native filter "
      "(bloomkit build)",
      quoted_name(file), this_one, format_number(v1->estimated_fpp()),
      format_number(v1->target_fpp())));
}

}  // namespace bloomkit::cli
