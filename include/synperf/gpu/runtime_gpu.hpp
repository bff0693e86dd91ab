// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file A GPU known at run time: a catalogue entry, a spec file, or either with overrides.
#include <string>

#include "synperf/gpu/concept.hpp"
#include "synperf/gpu/numbers.hpp"

namespace synperf::gpu {

/// A named set of GPU numbers, the run-time counterpart of a GpuSpec policy.
struct runtime_gpu {
    std::string name;          ///< canonical id
    std::string display_name;  ///< CUDA device string or a user label
    gpu_numbers numbers;       ///< validated numbers
};

/// The run-time view of a compile-time policy.
template <GpuSpec G>
[[nodiscard]] runtime_gpu to_runtime() {
    return runtime_gpu{std::string(G::name), std::string(G::display_name), G::numbers};
}

}  // namespace synperf::gpu
