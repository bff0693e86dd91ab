// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file The GpuSpec concept: a compile-time GPU policy.
#include <concepts>
#include <cstddef>
#include <string_view>

#include "synperf/gpu/numbers.hpp"

namespace synperf::gpu {

namespace detail {
template <class G>
concept has_identity = requires {
    { G::name } -> std::convertible_to<std::string_view>;
    { G::display_name } -> std::convertible_to<std::string_view>;
    { G::aliases.size() } -> std::convertible_to<std::size_t>;
    { G::aliases[0] } -> std::convertible_to<std::string_view>;
};
template <class G>
concept has_numbers = requires {
    { G::numbers } -> std::convertible_to<const gpu_numbers&>;
    { G::published } -> std::convertible_to<const datasheet&>;
};
}  // namespace detail

/// A GPU policy: an empty type whose static members describe one GPU.
///
/// Requires:
/// - `G::name`: canonical id (`std::string_view`, e.g. "h100_sxm").
/// - `G::display_name`: the CUDA device string.
/// - `G::aliases`: array of other accepted names (device strings, PipeWeave names).
/// - `G::numbers`: a `constexpr gpu_numbers` that passes `validate` (checked at compile time).
/// - `G::published`: the datasheet figures the derived peaks are checked against.
/// Models: every header in hw/synperf/hw/.
/// See: docs/concepts.md#gpuspec
template <class G>
concept GpuSpec = detail::has_identity<G> && detail::has_numbers<G> && (validate(G::numbers).sm_count > 0);

}  // namespace synperf::gpu
