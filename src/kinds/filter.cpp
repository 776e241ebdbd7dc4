// The native filters, instantiated once (filter.hpp).

#include "filter_impl.hpp"

namespace bloomkit {

template class basic_filter<xxh3_probe_policy, bit_storage>;
template class basic_filter<xxh3_split_block_policy, split_block_storage>;
template class basic_filter<xxh3_probe_policy, counter_storage>;

}  // namespace bloomkit
