// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file An efficiency MLP rearranged once for fast evaluation of one input vector at a time.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>  // the AVX2 path: its functions are compiled for AVX2 and run only where the CPU has it
#endif

#include "synperf/mlp/evaluate.hpp"
#include "synperf/mlp/network.hpp"
#include "synperf/mlp/validate.hpp"

namespace synperf::mlp {

namespace detail {

/// Outputs of a layer stored together: a block holds, for each input, the weights into its 16 outputs.
inline constexpr std::size_t output_block = 16;
/// Blocks computed together by the main loop: 32 running sums hide the latency of the additions
/// (measured on x86-64 with the baseline instruction set: 1 block is latency-bound, 3 gain nothing more).
inline constexpr std::size_t block_group = 2;

/// Where one layer lives in `compiled_network`'s value store.
struct compiled_layer {
    std::size_t in = 0;
    std::size_t out = 0;
    std::size_t blocks = 0;   ///< ceil(out / output_block)
    std::size_t weights = 0;  ///< offset of the layer's blocks (layout: see `compiled_network`)
    std::size_t bias = 0;     ///< offset of blocks * output_block biases, zero-padded
    activation act = activation::relu;
};

/// y[0..W) = bias + sum over t of x[nonzero[t]] * w[nonzero[t] * W + 0..W), in plain C++.
///
/// One running sum per output, updated in input order; the sums are named by a pack rather than a loop, so
/// they stay in registers at -O2 as well as -O3 and the compiler only has to pack independent lanes.
template <std::size_t W, std::size_t... K>
inline void accumulate_portable(const float* w, const float* x, const std::uint16_t* nonzero, std::size_t n,
                                const float* bias, float* y, std::index_sequence<K...>) noexcept {
    float acc[W] = {bias[K]...};
    for (std::size_t t = 0; t < n; ++t) {
        const std::size_t j = nonzero[t];
        const float xj = x[j];
        const float* wj = w + j * W;
        ((acc[K] += xj * wj[K]), ...);
    }
    ((y[K] = acc[K]), ...);
}

#if defined(__GNUC__)
/// Four floats as one value (GCC and clang vector extension; the compiler lowers it to the target's registers).
typedef float float4 __attribute__((vector_size(16)));

/// `accumulate_portable` on groups of four outputs: the same operations in the same order, so the same
/// bits, but register use no longer depends on the auto-vectoriser (which varies with compiler, -O level
/// and inlining context by up to 3x here).
template <std::size_t W, std::size_t... C>
inline void accumulate_vector(const float* w, const float* x, const std::uint16_t* nonzero, std::size_t n,
                              const float* bias, float* y, std::index_sequence<C...>) noexcept {
    float4 acc[W / 4];
    (std::memcpy(&acc[C], bias + 4 * C, sizeof(float4)), ...);  // memcpy: unaligned and alias-safe
    for (std::size_t t = 0; t < n; ++t) {
        const std::size_t j = nonzero[t];
        const float xj = x[j];
        const float* wj = w + j * W;
        float4 wv[W / 4];
        (std::memcpy(&wv[C], wj + 4 * C, sizeof(float4)), ...);
        ((acc[C] += xj * wv[C]), ...);
    }
    (std::memcpy(y + 4 * C, &acc[C], sizeof(float4)), ...);
}
#endif

/// The sums of W consecutive outputs (W a multiple of 4): bias plus the products with the non-zero inputs.
template <std::size_t W>
inline void accumulate(const float* w, const float* x, const std::uint16_t* nonzero, std::size_t n, const float* bias,
                       float* y) noexcept {
    static_assert(W % 4 == 0);
#if defined(__GNUC__)
    accumulate_vector<W>(w, x, nonzero, n, bias, y, std::make_index_sequence<W / 4>{});
#else
    accumulate_portable<W>(w, x, nonzero, n, bias, y, std::make_index_sequence<W>{});
#endif
}

/// The layer's activation applied to y[0..out).
inline void activate_outputs(const compiled_layer& l, float* y) noexcept {
    switch (l.act) {
        case activation::identity: break;
        case activation::relu:
            for (std::size_t o = 0; o < l.out; ++o) y[o] = y[o] > 0.0f ? y[o] : 0.0f;
            break;
        case activation::sigmoid:
            for (std::size_t o = 0; o < l.out; ++o) y[o] = 1.0f / (1.0f + std::exp(-y[o]));
            break;
    }
}

/// y[0..out) = act(W x + b) over the inputs `x[nonzero[0..n)]`; every other input is 0 and adds nothing.
///
/// Each output sums its products in input order, one running sum per output: the order does not depend on
/// the block size or the vector width, and skipping a zero input changes at most the sign of a zero sum.
/// Writes whole blocks: y must hold `blocks * output_block` floats.
inline void dense_blocked(const float* values, const compiled_layer& l, const float* x, const std::uint16_t* nonzero,
                          std::size_t n, float* y) noexcept {
    constexpr std::size_t B = output_block;
    constexpr std::size_t G = block_group;
    std::size_t blk = 0;
    for (; blk + G <= l.blocks; blk += G)
        accumulate<G * B>(values + l.weights + blk * l.in * B, x, nonzero, n, values + l.bias + blk * B, y + blk * B);
    for (; blk < l.blocks; ++blk)
        accumulate<B>(values + l.weights + blk * l.in * B, x, nonzero, n, values + l.bias + blk * B, y + blk * B);
    activate_outputs(l, y);
}

#if defined(__GNUC__) && defined(__x86_64__)
#define SYNPERF_MLP_HAS_AVX2_PATH 1
/// Eight floats as one value, for the AVX2 path (used only inside functions compiled for AVX2).
typedef float float8 __attribute__((vector_size(32)));

/// `accumulate_vector` on groups of eight outputs, compiled for AVX2: the same multiplications and additions in
/// the same order (AVX2 alone has no fused multiply-add to contract them into), so the same bits in half the
/// instructions. The vectors C may span several consecutive groups of W outputs, whose weights lie `group_stride`
/// floats apart: one pass over the inputs then feeds all their running sums, which shares the per-input work of
/// loading the index and the input among them; each output still sums its products in input order.
template <std::size_t W, std::size_t... C>
__attribute__((target("avx2"))) inline void accumulate_vector8(const float* w, std::size_t group_stride, const float* x,
                                                               const std::uint16_t* nonzero, std::size_t n,
                                                               const float* bias, float* y,
                                                               std::index_sequence<C...>) noexcept {
    constexpr std::size_t per_group = W / 8;
    float8 acc[sizeof...(C)];
    (std::memcpy(&acc[C], bias + 8 * C, sizeof(float8)), ...);
    for (std::size_t t = 0; t < n; ++t) {
        const std::size_t j = nonzero[t];
        const float xj = x[j];
        const float* wj = w + j * W;
        float8 wv[sizeof...(C)];
        (std::memcpy(&wv[C], wj + C / per_group * group_stride + 8 * (C % per_group), sizeof(float8)), ...);
        ((acc[C] += xj * wv[C]), ...);
    }
    (std::memcpy(y + 8 * C, &acc[C], sizeof(float8)), ...);
}

/// `dense_blocked` compiled for AVX2 (call it only where the CPU has AVX2: `cpu_has_avx2`).
__attribute__((target("avx2"))) inline void dense_blocked_avx2(const float* values, const compiled_layer& l, const float* x,
                                                               const std::uint16_t* nonzero, std::size_t n, float* y) noexcept {
    constexpr std::size_t B = output_block;
    constexpr std::size_t G = block_group;
    static_assert(B % 8 == 0);
    std::size_t blk = 0;
    const std::size_t group_stride = l.in * G * B;  // floats from one group's weights to the next group's
    // Two groups per pass (64 sums in eight registers), then a last lone group, then a last lone block.
    for (; blk + 2 * G <= l.blocks; blk += 2 * G)
        accumulate_vector8<G * B>(values + l.weights + blk * l.in * B, group_stride, x, nonzero, n, values + l.bias + blk * B,
                                  y + blk * B, std::make_index_sequence<2 * G * B / 8>{});
    for (; blk + G <= l.blocks; blk += G)
        accumulate_vector8<G * B>(values + l.weights + blk * l.in * B, group_stride, x, nonzero, n, values + l.bias + blk * B,
                                  y + blk * B, std::make_index_sequence<G * B / 8>{});
    for (; blk < l.blocks; ++blk)
        accumulate_vector8<B>(values + l.weights + blk * l.in * B, 0, x, nonzero, n, values + l.bias + blk * B, y + blk * B,
                              std::make_index_sequence<B / 8>{});
    activate_outputs(l, y);
}

/// For each 8-bit mask of non-zero lanes: those lanes in order, then how many there are.
struct nonzero_lane_table {
    std::uint16_t lanes[256][8] = {};
    std::uint8_t count[256] = {};
};

[[nodiscard]] constexpr nonzero_lane_table make_nonzero_lane_table() noexcept {
    nonzero_lane_table t;
    for (unsigned mask = 0; mask < 256; ++mask)
        for (unsigned lane = 0; lane < 8; ++lane)
            if ((mask >> lane) & 1u) t.lanes[mask][t.count[mask]++] = static_cast<std::uint16_t>(lane);
    return t;
}

inline constexpr nonzero_lane_table nonzero_lanes = make_nonzero_lane_table();

/// The indices j < `count` with x[j] != 0 into `nonzero`, in order; returns how many. Eight inputs per step
/// without a branch: their non-zero lanes are looked up by mask and stored as eight indices at once, of which
/// the first `count[mask]` are kept (they are stored at n <= j, so within `nonzero`'s first `count` entries).
__attribute__((target("avx2"))) inline std::size_t nonzero_indices_avx2(const float* x, std::size_t count,
                                                                        std::uint16_t* nonzero) noexcept {
    std::size_t n = 0;
    std::size_t j = 0;
    const __m256 zero = _mm256_setzero_ps();
    for (; j + 8 <= count; j += 8) {
        // != 0 as x[j] != 0.0f reads it: NaN counts as non-zero, -0 as zero.
        const auto mask = static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(x + j), zero, _CMP_NEQ_UQ)));
        const __m128i lanes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(nonzero_lanes.lanes[mask]));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(nonzero + n), _mm_add_epi16(lanes, _mm_set1_epi16(static_cast<short>(j))));
        n += nonzero_lanes.count[mask];
    }
    for (; j < count; ++j) {
        nonzero[n] = static_cast<std::uint16_t>(j);
        n += x[j] != 0.0f;
    }
    return n;
}

/// Whether the CPU running the program has AVX2.
[[nodiscard]] inline bool cpu_has_avx2() noexcept {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
}
#else
[[nodiscard]] inline bool cpu_has_avx2() noexcept { return false; }
#endif

}  // namespace detail

/// A validated network with its weights stored for fast evaluation of a single input vector.
///
/// Each layer's `out x in` row-major matrix is cut into blocks of 16 outputs; the blocks of each full pair
/// are stored input-major and interleaved (for input j, the 32 weights into the pair's outputs lie together),
/// a last odd block alone the same way. The inner loop then multiplies one input by contiguous weights into
/// 32 running sums held in registers, and inputs that are zero (inactive ReLUs, one-hot zeros, log1p(0))
/// are skipped. Build it once (it copies the weights) and share it: `evaluate` is const, allocates nothing
/// and may run on several threads at once.
///
/// Every layer computes in float32 like `mlp::evaluate`, but each output sums its products in plain input
/// order rather than in eight interleaved partial sums, so results agree with `mlp::evaluate` to float
/// rounding (1e-7 on the shipped GEMM model, a few 1e-6 relative at worst on random 512-wide layers), not bit
/// for bit. On an x86-64 CPU with AVX2 the same sums run eight outputs per vector instead of four: the same bits in
/// about half the instructions. An ensemble's members run one after another and are combined by `combine_members`.
class compiled_network {
public:
    /// Validates `net` (throws `invalid_argument` as `validate` does) and rearranges its weights.
    explicit compiled_network(const network& net) {
        validate(net);
        constexpr std::size_t B = detail::output_block;
        constexpr std::size_t G = detail::block_group;
        info_.family = net.family;
        info_.feature_names = net.feature_names;
        info_.feature_min = net.feature_min;
        info_.feature_max = net.feature_max;
        info_.efficiency_min = net.efficiency_min;
        info_.efficiency_max = net.efficiency_max;
        info_.categoricals = net.categoricals;
        std::size_t total = 0;
        for (std::size_t m = 0; m < net.member_count(); ++m)
            for (const auto& l : net.member(m)) total += (l.out + B - 1) / B * B * (l.in + 1);
        values_.assign(total, 0.0f);
        std::size_t offset = 0;
        for (std::size_t m = 0; m < net.member_count(); ++m) {
            member_ends_.push_back(layers_.size() + net.member(m).size());
            for (const auto& l : net.member(m)) {
                detail::compiled_layer c;
                c.in = l.in;
                c.out = l.out;
                c.act = l.act;
                c.blocks = (l.out + B - 1) / B;
                c.weights = offset;
                c.bias = offset + c.blocks * B * l.in;
                const std::size_t grouped = c.blocks / G * G;  // blocks in full groups
                for (std::size_t o = 0; o < l.out; ++o) {
                    const std::size_t blk = o / B;
                    const std::size_t first = blk < grouped ? blk / G * G : blk;  // first block of o's group
                    const std::size_t width = blk < grouped ? G * B : B;
                    const std::size_t k = o - first * B;
                    for (std::size_t j = 0; j < l.in; ++j)
                        values_[c.weights + first * l.in * B + j * width + k] = l.weights[o * l.in + j];
                    values_[c.bias + o] = l.bias[o];
                }
                offset = c.bias + c.blocks * B;
                layers_.push_back(c);
            }
        }
    }

    /// Predicts the efficiency in [0, 1] from the numeric features and the level index of each categorical input.
    ///
    /// Same inputs, checks and messages as `mlp::evaluate(const network&, ...)`: log1p of each feature (finite,
    /// >= 0, clamped into its training range) in double rounded to float, one one-hot block per categorical input;
    /// the output is clamped into the training efficiency range.
    [[nodiscard]] double evaluate(std::span<const double> numeric_features,
                                  std::span<const std::size_t> categorical_level_index) const {
        using detail::report_network;
        if (numeric_features.size() != info_.feature_names.size())
            report_network(info_, "expected ", info_.feature_names.size(), " numeric features, got ", numeric_features.size());
        if (categorical_level_index.size() != info_.categoricals.size())
            report_network(info_, "expected ", info_.categoricals.size(), " categorical level indices, got ",
                           categorical_level_index.size());
        buffers buf;
        for (std::size_t i = 0; i < numeric_features.size(); ++i) {
            const double x = numeric_features[i];
            if (!(x >= 0.0) || std::isinf(x))
                report_network(info_, "feature ", i + 1, " '", info_.feature_names[i], "' must be finite and >= 0, got ", x);
            buf.a[i] = static_cast<float>(std::log1p(info_.clamp_to_training_range(i, x)));
        }
        std::size_t offset = numeric_features.size();
        for (std::size_t c = 0; c < info_.categoricals.size(); ++c) {
            const auto& cat = info_.categoricals[c];
            const std::size_t level = categorical_level_index[c];
            if (level >= cat.levels.size())
                report_network(info_, "categorical '", cat.name, "': level index ", level, " out of range (",
                               cat.levels.size(), " levels: ", detail::level_list(cat), ")");
            for (std::size_t l = 0; l < cat.levels.size(); ++l) buf.a[offset + l] = l == level ? 1.0f : 0.0f;
            offset += cat.levels.size();
        }
        return info_.clamp_efficiency(forward(buf));
    }

    /// Predicts the efficiency from the input vector itself (`input_width()` values, already log1p'd and
    /// one-hot encoded), with the checks and messages of `mlp::evaluate(const network&, transformed_input_t, ...)`;
    /// the network's own output, not clamped.
    [[nodiscard]] double evaluate(transformed_input_t, std::span<const double> input) const {
        if (input.size() != input_width())
            detail::report_network(info_, "expected an input vector of ", input_width(), " values, got ", input.size());
        buffers buf;
        for (std::size_t i = 0; i < input.size(); ++i) {
            buf.a[i] = static_cast<float>(input[i]);
            if (!std::isfinite(buf.a[i]))
                detail::report_network(info_, "input value ", i + 1, " must be finite as a float, got ", input[i]);
        }
        return forward(buf);
    }

    /// Width of the input vector (numeric features + one-hot levels).
    [[nodiscard]] std::size_t input_width() const noexcept { return info_.input_width(); }
    /// The source network's family, feature names and categorical inputs; its `layers` are left empty.
    [[nodiscard]] const network& description() const noexcept { return info_; }

private:
    /// Activations (two, swapped per layer; whole blocks are written, and max_width is a multiple of the
    /// block size) and the indices of the current layer's non-zero inputs.
    struct buffers {
        float a[max_width];
        float b[max_width];
        float input[max_width];  // an ensemble's input, kept for each member
        std::uint16_t nonzero[max_width];
    };
    static_assert(max_width % detail::output_block == 0 && max_width <= 65536);

    /// Runs every member on the input in `buf.a` and combines their outputs (see `combine_members`).
    [[nodiscard]] double forward(buffers& buf) const noexcept {
        const std::size_t width = info_.input_width();
        if (member_ends_.size() == 1) return forward_member(buf, 0, member_ends_[0], buf.a);
        std::copy(buf.a, buf.a + width, buf.input);
        double outputs[max_members];
        std::size_t first = 0;
        for (std::size_t m = 0; m < member_ends_.size(); ++m) {
            std::copy(buf.input, buf.input + width, buf.a);
            outputs[m] = forward_member(buf, first, member_ends_[m], buf.a);
            first = member_ends_[m];
        }
        return combine_members(std::span<const double>(outputs, member_ends_.size()));
    }

    /// Runs layers [first, end) on the values in `x` (one of `buf`'s activation buffers).
    [[nodiscard]] double forward_member(buffers& buf, std::size_t first, std::size_t end, float* x) const noexcept {
        float* y = x == buf.a ? buf.b : buf.a;
        for (std::size_t i = first; i < end; ++i) {
            const detail::compiled_layer& l = layers_[i];
#if defined(SYNPERF_MLP_HAS_AVX2_PATH)
            if (avx2_) {
                const std::size_t n = detail::nonzero_indices_avx2(x, l.in, buf.nonzero);
                detail::dense_blocked_avx2(values_.data(), l, x, buf.nonzero, n, y);
                std::swap(x, y);
                continue;
            }
#endif
            std::size_t n = 0;
            for (std::size_t j = 0; j < l.in; ++j) {  // branch-free: always write, advance on non-zero
                buf.nonzero[n] = static_cast<std::uint16_t>(j);
                n += x[j] != 0.0f;
            }
            detail::dense_blocked(values_.data(), l, x, buf.nonzero, n, y);
            std::swap(x, y);
        }
        return static_cast<double>(x[0]);
    }

    network info_;                                // family and input names, for messages; no layers
    std::vector<detail::compiled_layer> layers_;  // every member's, first to last, one member after another
    std::vector<std::size_t> member_ends_;        // per member: one past its last layer in layers_
    bool avx2_ = detail::cpu_has_avx2();          // the same sums in 8-wide vectors (same bits, fewer instructions)
    std::vector<float> values_;                   // per layer: its blocks of weights, then its padded biases
};

}  // namespace synperf::mlp
