// SPDX-License-Identifier: Apache-2.0
// A hypothetical GPU policy and a user cost model, composed into a fully compile-time predictor.
#include <array>
#include <cstdio>
#include <span>
#include <string_view>

#include <synperf.hpp>

namespace my {

// An H100 with twice the DRAM bandwidth: a what-if GPU as a compile-time policy.
struct h100_fast_hbm {
    static constexpr std::string_view name = "h100_fast_hbm";
    static constexpr std::string_view display_name = "H100 with 6.7 TB/s HBM (hypothetical)";
    static constexpr std::array<std::string_view, 1> aliases{"h100-fast-hbm"};
    static constexpr synperf::gpu::gpu_numbers numbers = [] {
        auto n = synperf::hw::h100_sxm::numbers;
        n.dram_gbps *= 2;
        return n;
    }();
    static constexpr synperf::gpu::datasheet published = synperf::hw::h100_sxm::published;
};
static_assert(synperf::gpu::GpuSpec<h100_fast_hbm>);

// A cost model that assumes a fixed fraction of the theoretical bound is reached.
struct fixed_efficiency {
    double value = 0.8;
    [[nodiscard]] double efficiency(std::span<const double>, std::size_t) const noexcept { return value; }
};
static_assert(synperf::cost::CostModel<fixed_efficiency>);

}  // namespace my

int main() {
    using namespace synperf;
    const family::gemm_problem decode_shape{16, 8192, 8192};  // memory-bound: 16 tokens through an 8k x 8k layer
    const predictor<hw::h100_sxm, family::gemm, scheduler::min_heap_persistent, my::fixed_efficiency> base{};
    const predictor<my::h100_fast_hbm, family::gemm, scheduler::min_heap_persistent, my::fixed_efficiency> fast{};
    const double t0 = base.predict(decode_shape).latency_us;
    const double t1 = fast.predict(decode_shape).latency_us;
    std::printf("16x8192x8192 at 80%% efficiency: h100_sxm %.1f us, with 2x HBM %.1f us (%.2fx)\n", t0, t1, t0 / t1);
    return t1 < t0 ? 0 : 1;
}
