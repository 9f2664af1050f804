// The radix sort's passes, compiled once for every program that sorts: keys
// alone, and values of one to four words (radix_sort.h moves every value of
// that size as its bits).
#include <rill/algorithms/radix_sort.h>

namespace rill::detail {

template void radix_sort_bits<std::uint32_t, false>(Stream<std::uint32_t>&, const Stream<std::uint32_t>*,
                                                   const RadixSortOptions&);
template void radix_sort_bits<std::uint32_t, true>(Stream<std::uint32_t>&, const Stream<std::uint32_t>*,
                                                  const RadixSortOptions&);
template void radix_sort_bits<uint2, true>(Stream<std::uint32_t>&, const Stream<uint2>*, const RadixSortOptions&);
template void radix_sort_bits<uint3, true>(Stream<std::uint32_t>&, const Stream<uint3>*, const RadixSortOptions&);
template void radix_sort_bits<uint4, true>(Stream<std::uint32_t>&, const Stream<uint4>*, const RadixSortOptions&);

}  // namespace rill::detail
