// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Trains SynPerf's efficiency MLP on the CPU (float32, BLAS sgemm) and exports it as an `mlp::network`.
///
/// Per hidden layer: Linear -> ReLU -> BatchNorm1d -> Dropout(p); then Linear -> sigmoid = efficiency.
/// Inputs are standardised with the training set's column mean and std. Loss: weighted mean of
/// |log(ê / e)|: latency is inversely proportional to efficiency, so this is the latency error we report
/// (|pred − meas| / meas) for small errors, where a loss on efficiency would not be. AdamW, global
/// grad-norm clipping, ReduceLROnPlateau and early stopping follow PyTorch's definitions and defaults.
#include <synperf/error.hpp>
#include <synperf/ext/xtensor.hpp>
#include <synperf/mlp/network.hpp>
#include <synperf/mlp/validate.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <numeric>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>
#if __has_include(<dlfcn.h>)
#include <dlfcn.h>
#endif

namespace synperf::train {

/// Hyper-parameters of `train_mlp`; the defaults are SynPerf's.
struct train_options {
    std::vector<std::size_t> hidden{256, 128, 64};  ///< hidden layer widths, first to last
    double dropout = 0.1;                           ///< dropout probability after each BatchNorm
    double lr = 1e-3;                               ///< initial AdamW learning rate
    double weight_decay = 1e-4;                     ///< AdamW decoupled weight decay (all parameters)
    std::size_t batch = 1024;                       ///< largest minibatch; the epoch is split into equal batches
    std::size_t max_epochs = 400;                   ///< hard limit on epochs
    std::size_t lr_patience = 45;                   ///< ReduceLROnPlateau patience (epochs)
    double lr_factor = 0.6;                         ///< ReduceLROnPlateau factor
    std::size_t early_stop = 85;                    ///< stop after this many epochs without improvement; 0 = never
    double grad_clip = 1.0;                         ///< global L2 gradient-norm limit; 0 = no clipping
    /// Least magnitude of the loss gradient through the sigmoid, (1 − ê), for a row whose prediction is wrong.
    /// With the exact gradient (0, SynPerf's) a row pushed to ê ≈ 1 (exactly 1 in float for a logit above ~17)
    /// gets no gradient and stays there, however low its measured efficiency: a plateau, not a minimum. Only
    /// rows with ê > 1 − floor are affected, and the step keeps the loss's sign.
    double saturation_gradient_floor = 0.0;
    std::uint64_t seed = 42;                        ///< seeds initialisation, shuffling and dropout
    bool verbose = true;                            ///< write progress lines to the progress stream
    std::size_t log_every = 10;  ///< progress line every this many epochs (and first, last, lr change)
    std::size_t threads = 2;     ///< worker threads, 0 = all cores; the result does not depend on it
};

/// Rows for training or validation: transformed inputs and the efficiency to predict.
struct dataset {
    xt::xtensor<float, 2> x;           ///< rows x inputs: log1p(numeric features), then one-hot columns
    xt::xtensor<float, 1> efficiency;  ///< target per row, > 0
    xt::xtensor<float, 1> weight;      ///< optional per-row weights >= 0; empty = all 1
};

/// What happened during training.
struct train_report {
    std::size_t epochs_run = 0;   ///< epochs actually run
    std::size_t best_epoch = 0;   ///< 1-based epoch whose weights were kept
    double best_val_loss = 0;     ///< monitored loss at `best_epoch`
    double final_train_loss = 0;  ///< training loss (train mode) of the last epoch run
};

/// A dense layer of the trainer, `out x in`, row-major.
struct linear_params {
    std::size_t in = 0;          ///< input width
    std::size_t out = 0;         ///< output width
    std::vector<float> weights;  ///< out * in values
    std::vector<float> bias;     ///< out values
};

/// A BatchNorm1d layer: affine parameters and the running statistics that eval mode uses.
struct batch_norm_params {
    std::vector<float> gamma;         ///< scale
    std::vector<float> beta;          ///< shift
    std::vector<float> running_mean;  ///< PyTorch-style running mean (momentum 0.1)
    std::vector<float> running_var;   ///< PyTorch-style running unbiased variance
};

/// The trained model before export: input standardisation, hidden layers with their BatchNorm, output layer.
struct mlp_model {
    std::vector<float> input_mean;         ///< training-set column mean
    std::vector<float> input_std;          ///< training-set column std (infinite for constant columns)
    std::vector<linear_params> linears;    ///< hidden layers, then the output layer (width 1)
    std::vector<batch_norm_params> norms;  ///< one per hidden layer
};

namespace detail {

using mlp::detail::cat;
using synperf::detail::report_error;

inline constexpr float bn_eps = 1e-5f;  // PyTorch BatchNorm1d defaults
inline constexpr float bn_momentum = 0.1f;
inline constexpr float min_efficiency = 1e-6f;  // ê is clamped here before the log
inline constexpr float adam_beta1 = 0.9f;       // PyTorch AdamW defaults
inline constexpr float adam_beta2 = 0.999f;
inline constexpr float adam_eps = 1e-8f;
inline constexpr std::size_t eval_chunk = 4096;  // rows per eval-mode block

/// xoshiro256** seeded through splitmix64: small, fast, and the same on every platform (std distributions are not).
class rng {
public:
    explicit rng(std::uint64_t seed) noexcept {
        for (auto& s : s_) {
            seed += 0x9e3779b97f4a7c15ULL;
            std::uint64_t z = seed;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            s = z ^ (z >> 31);
        }
    }
    std::uint64_t operator()() noexcept {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    /// Uniform in [0, 1) with 24 random bits.
    float uniform() noexcept { return static_cast<float>((*this)() >> 40) * 0x1.0p-24f; }
    /// Uniform in [0, n); the modulo bias is below 2^-40 for any n we use.
    std::size_t below(std::size_t n) noexcept { return static_cast<std::size_t>((*this)() % n); }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
    std::array<std::uint64_t, 4> s_{};
};

/// Row-major c (m x n) = op(a) * op(b) + beta * c through xtensor-blas (BLAS sgemm), without allocating.
inline void gemm(const float* a, std::size_t a_rows, std::size_t a_cols, bool trans_a, const float* b,
                 std::size_t b_rows, std::size_t b_cols, bool trans_b, float* c, float beta = 0.0f) {
    using shape = std::array<std::size_t, 2>;
    const std::size_t m = trans_a ? a_cols : a_rows;
    const std::size_t n = trans_b ? b_rows : b_cols;
    const std::size_t k = trans_a ? a_rows : a_cols;
    if (m == 0 || n == 0) return;
    if (k == 0) {  // an empty shard: the product is zero
        for (std::size_t i = 0; i < m * n; ++i) c[i] = beta == 0.0f ? 0.0f : c[i] * beta;
        return;
    }
    const auto ta = xt::adapt(a, a_rows * a_cols, xt::no_ownership(), shape{a_rows, a_cols});
    const auto tb = xt::adapt(b, b_rows * b_cols, xt::no_ownership(), shape{b_rows, b_cols});
    auto tc = xt::adapt(c, m * n, xt::no_ownership(), shape{m, n});
    xt::blas::gemm(ta, tb, tc, trans_a, trans_b, 1.0f, beta);
}

inline float sigmoid(float v) noexcept { return 1.0f / (1.0f + std::exp(-v)); }

/// |log(ê / e)| with ê clamped into [min_efficiency, 1]; `log_e` is log(e).
inline double log_error(float e_hat, float log_e) noexcept {
    return std::abs(std::log(static_cast<double>(std::clamp(e_hat, min_efficiency, 1.0f))) - log_e);
}

/// d|log ê − log e| / dz for ê = sigmoid(z), given d = log ê − log e (ê clamped as in `log_error`):
/// sign(d) · (1 − ê), at least `least` in magnitude (`train_options::saturation_gradient_floor`); 0 below
/// min_efficiency, where the clamp passes none.
inline float log_error_gradient(float e_hat, float d, float least) noexcept {
    if (e_hat < min_efficiency) return 0.0f;
    const float sign = d > 0 ? 1.0f : (d < 0 ? -1.0f : 0.0f);
    return sign * std::max(1.0f - e_hat, least);
}

// The hot loops of a minibatch, over n rows of width w (row-major). `__restrict` (GCC, Clang, MSVC) tells the
// compiler the buffers never overlap, which it needs before it vectorises; without it these loops ran scalar
// and took twice as long as the sgemm calls.

/// a = max(a + b, 0); per-column sum and sum of squares of the result.
inline void relu_bias_stats(float* __restrict a, const float* __restrict b, double* __restrict sum,
                            double* __restrict sq, std::size_t n, std::size_t w) {
    // Three simple loops: GCC 12 does not vectorise the select fused with the column sums.
    for (std::size_t k = 0; k < n * w; k += w)
        for (std::size_t j = 0; j < w; ++j) a[k + j] = std::max(a[k + j] + b[j], 0.0f);
    std::fill_n(sum, w, 0.0);
    std::fill_n(sq, w, 0.0);
    for (std::size_t k = 0; k < n * w; k += w)
        for (std::size_t j = 0; j < w; ++j) {
            const float v = a[k + j];
            sum[j] += v;
            sq[j] += static_cast<double>(v) * v;
        }
}

/// Inverted-dropout multipliers: 0 with probability threshold / 2^32, else `scale`.
inline void dropout_mask(rng& gen, std::uint32_t threshold, float scale, std::vector<std::uint32_t>& bits,
                         float* __restrict mask, std::size_t count) {
    bits.resize(count + 1);
    std::uint32_t* __restrict u = bits.data();
    for (std::size_t k = 0; k < count; k += 2) {  // two 32-bit draws per call; the generator is the serial part
        const std::uint64_t r = gen();
        u[k] = static_cast<std::uint32_t>(r);
        u[k + 1] = static_cast<std::uint32_t>(r >> 32);
    }
    for (std::size_t k = 0; k < count; ++k) mask[k] = u[k] >= threshold ? scale : 0.0f;
}

/// Eval-mode hidden activation: a = max(a + b, 0) · s + t (BatchNorm from running statistics as s, t).
inline void relu_affine(float* __restrict a, const float* __restrict b, const float* __restrict s,
                        const float* __restrict t, std::size_t n, std::size_t w) {
    for (std::size_t k = 0; k < n * w; k += w)
        for (std::size_t j = 0; j < w; ++j) a[k + j] = std::max(a[k + j] + b[j], 0.0f) * s[j] + t[j];
}

/// a += b.
inline void add_into(float* __restrict a, const float* __restrict b, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) a[i] += b[i];
}

/// One AdamW step on the gradient g · scale; `g` is overwritten (it holds √v between the loops, so the vectorisable
/// parts stay apart from the square root, which -fmath-errno keeps scalar).
inline void adamw_update(float* __restrict p, float* __restrict g, float* __restrict m, float* __restrict v,
                         std::size_t count, float scale, float decay, float step, float bc2) {
    for (std::size_t i = 0; i < count; ++i) {
        const float gi = g[i] * scale;  // scale < 1 clips the gradient norm
        p[i] *= decay;
        m[i] = adam_beta1 * m[i] + (1.0f - adam_beta1) * gi;
        v[i] = adam_beta2 * v[i] + (1.0f - adam_beta2) * gi * gi;
    }
    for (std::size_t i = 0; i < count; ++i) g[i] = std::sqrt(v[i]);
    for (std::size_t i = 0; i < count; ++i) p[i] -= step * m[i] / (g[i] / bc2 + adam_eps);
}

/// x̂ = (a − μ)·inv; out = (γ x̂ + β) · mask (mask may be null: no dropout).
inline void bn_dropout_forward(const float* __restrict a, const float* __restrict mean, const float* __restrict inv,
                               const float* __restrict g, const float* __restrict be, const float* __restrict mask,
                               float* __restrict xh, float* __restrict out, std::size_t n, std::size_t w) {
    for (std::size_t k = 0; k < n * w; k += w)
        for (std::size_t j = 0; j < w; ++j) {
            const float z = (a[k + j] - mean[j]) * inv[j];
            xh[k + j] = z;
            out[k + j] = g[j] * z + be[j];
        }
    if (mask != nullptr)
        for (std::size_t k = 0; k < n * w; ++k) out[k] *= mask[k];
}

/// d = d · mask (mask may be null); per-column Σ d and Σ d·x̂ (the β and γ gradients).
inline void bn_grad_sums(float* __restrict d, const float* __restrict mask, const float* __restrict xh,
                         double* __restrict dbeta, double* __restrict dgamma, std::size_t n, std::size_t w) {
    if (mask != nullptr)
        for (std::size_t k = 0; k < n * w; ++k) d[k] *= mask[k];
    std::fill_n(dbeta, w, 0.0);
    std::fill_n(dgamma, w, 0.0);
    for (std::size_t k = 0; k < n * w; k += w)
        for (std::size_t j = 0; j < w; ++j) {
            dbeta[j] += d[k + j];
            dgamma[j] += static_cast<double>(d[k + j]) * xh[k + j];
        }
}

/// Batch-statistics BatchNorm and ReLU backward: d = [a > 0] · c1 · (d − c2 − x̂ · c3); per-column Σ of the result.
inline void bn_relu_backward(float* __restrict d, const float* __restrict a, const float* __restrict xh,
                             const float* __restrict c1, const float* __restrict c2, const float* __restrict c3,
                             double* __restrict dbias, std::size_t n, std::size_t w) {
    for (std::size_t k = 0; k < n * w; k += w)
        for (std::size_t j = 0; j < w; ++j) d[k + j] = c1[j] * (d[k + j] - c2[j] - xh[k + j] * c3[j]);
    for (std::size_t k = 0; k < n * w; ++k) d[k] = a[k] > 0.0f ? d[k] : 0.0f;
    std::fill_n(dbias, w, 0.0);
    for (std::size_t k = 0; k < n * w; k += w)
        for (std::size_t j = 0; j < w; ++j) dbias[j] += d[k + j];
}

/// One layer as seen by the eval-mode forward pass; the BatchNorm pointers are null for the output layer.
struct layer_view {
    std::size_t in = 0;
    std::size_t out = 0;
    const float* w = nullptr;
    const float* b = nullptr;
    const float* gamma = nullptr;
    const float* beta = nullptr;
    const float* mean = nullptr;
    const float* var = nullptr;
};

/// Eval-mode forward pass (BatchNorm from running statistics, no dropout) over standardised rows.
class eval_pass {
public:
    /// Writes one efficiency per row of `x` (rows x layers.front().in, row-major) to `out`.
    void run(const std::vector<layer_view>& layers, const float* x, std::size_t rows, float* out) {
        std::size_t width = 1;
        for (const auto& l : layers) width = std::max(width, l.out);
        buf_[0].resize(eval_chunk * width);
        buf_[1].resize(eval_chunk * width);
        // BatchNorm in eval mode is a per-column affine map; compute it once.
        scale_.resize(layers.size());
        shift_.resize(layers.size());
        for (std::size_t l = 0; l + 1 < layers.size(); ++l) {
            const auto& L = layers[l];
            scale_[l].resize(L.out);
            shift_[l].resize(L.out);
            for (std::size_t j = 0; j < L.out; ++j) {
                scale_[l][j] = L.gamma[j] / std::sqrt(L.var[j] + bn_eps);
                shift_[l][j] = L.beta[j] - scale_[l][j] * L.mean[j];
            }
        }
        for (std::size_t first = 0; first < rows; first += eval_chunk) {
            const std::size_t n = std::min(eval_chunk, rows - first);
            const float* h = x + first * layers.front().in;
            for (std::size_t l = 0; l < layers.size(); ++l) {
                const auto& L = layers[l];
                float* a = buf_[l % 2].data();
                gemm(h, n, L.in, false, L.w, L.out, L.in, true, a);
                if (l + 1 < layers.size()) {
                    relu_affine(a, L.b, scale_[l].data(), shift_[l].data(), n, L.out);
                } else {
                    for (std::size_t r = 0; r < n; ++r) out[first + r] = sigmoid(a[r] + L.b[0]);
                }
                h = a;
            }
        }
    }

private:
    std::array<std::vector<float>, 2> buf_;
    std::vector<std::vector<float>> scale_;
    std::vector<std::vector<float>> shift_;
};

/// Standardises `x` column by column into `out` (same shape, row-major).
inline void standardise(const xt::xtensor<float, 2>& x, const std::vector<float>& mean, const std::vector<float>& sd,
                        std::vector<float>& out) {
    const std::size_t rows = x.shape(0);
    const std::size_t cols = x.shape(1);
    std::vector<float> inv(cols);
    for (std::size_t j = 0; j < cols; ++j) inv[j] = 1.0f / sd[j];
    out.resize(rows * cols);
    const float* src = x.data();
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < cols; ++j) out[r * cols + j] = (src[r * cols + j] - mean[j]) * inv[j];
}

/// Checks one dataset's shapes and values; `cols` = 0 accepts any width.
inline void check_dataset(const dataset& d, const char* name, std::size_t cols) {
    const std::size_t rows = d.x.shape(0);
    if (cols != 0 && rows != 0 && d.x.shape(1) != cols)
        report_error(cat("train_mlp: ", name, " set needs ", cols, " input columns, got ", d.x.shape(1)));
    if (d.efficiency.size() != rows)
        report_error(
            cat("train_mlp: ", name, " set needs one efficiency per row (", rows, "), got ", d.efficiency.size()));
    if (d.weight.size() != 0 && d.weight.size() != rows)
        report_error(
            cat("train_mlp: ", name, " set needs no weights or one per row (", rows, "), got ", d.weight.size()));
    for (std::size_t i = 0; i < d.x.size(); ++i)
        if (!std::isfinite(d.x.data()[i]))
            report_error(cat("train_mlp: ", name, " set inputs must be finite, got ", d.x.data()[i], " at row ",
                             i / d.x.shape(1), ", column ", i % d.x.shape(1)));
    for (std::size_t i = 0; i < rows; ++i) {
        const float e = d.efficiency.data()[i];
        if (!std::isfinite(e) || e <= 0.0f)
            report_error(cat("train_mlp: ", name, " set efficiency must be finite and > 0, got ", e, " at row ", i));
    }
    double total = 0;
    for (std::size_t i = 0; i < d.weight.size(); ++i) {
        const float w = d.weight.data()[i];
        if (!std::isfinite(w) || w < 0.0f)
            report_error(cat("train_mlp: ", name, " set weights must be finite and >= 0, got ", w, " at row ", i));
        total += w;
    }
    if (rows != 0 && d.weight.size() != 0 && total <= 0)
        report_error(cat("train_mlp: ", name, " set weights must not all be 0"));
}

inline void check_options(const train_options& o) {
    for (std::size_t w : o.hidden)
        if (w == 0 || w > mlp::max_width)  // wider layers could not be evaluated
            report_error(cat("train_mlp: hidden layer widths must be in 1..", mlp::max_width, ", got ", w));
    if (!(o.dropout >= 0.0 && o.dropout < 1.0))
        report_error(cat("train_mlp: dropout must be in [0, 1), got ", o.dropout));
    if (!(o.lr > 0.0 && std::isfinite(o.lr))) report_error(cat("train_mlp: lr must be > 0, got ", o.lr));
    if (!(o.weight_decay >= 0.0 && std::isfinite(o.weight_decay)))
        report_error(cat("train_mlp: weight_decay must be >= 0, got ", o.weight_decay));
    if (o.batch < 2) report_error(cat("train_mlp: batch must be >= 2 (BatchNorm), got ", o.batch));
    if (o.max_epochs == 0) report_error("train_mlp: max_epochs must be >= 1, got 0");
    if (!(o.lr_factor > 0.0 && o.lr_factor <= 1.0))
        report_error(cat("train_mlp: lr_factor must be in (0, 1], got ", o.lr_factor));
    if (!(o.grad_clip >= 0.0 && std::isfinite(o.grad_clip)))
        report_error(cat("train_mlp: grad_clip must be >= 0, got ", o.grad_clip));
    if (!(o.saturation_gradient_floor >= 0.0 && o.saturation_gradient_floor < 1.0))
        report_error(cat("train_mlp: saturation_gradient_floor must be in [0, 1), got ", o.saturation_gradient_floor));
}

/// Runs one function per shard on a fixed set of threads and returns when every shard is done.
///
/// Shards, not threads, split the work, so results do not depend on how many threads run them. Threads
/// claim shards from a counter: the caller starts at once and does every shard itself if the workers are
/// slow to wake (a busy machine), instead of waiting at a barrier for a descheduled thread.
class team {
public:
    team(std::size_t threads, std::size_t shards) : shards_(shards) {
        const std::size_t n = std::clamp<std::size_t>(threads, 1, shards);
        try {
            for (std::size_t t = 1; t < n; ++t) workers_.emplace_back([this] { work(); });
        } catch (...) {
            stop();
            throw;
        }
    }
    team(const team&) = delete;
    team& operator=(const team&) = delete;
    ~team() { stop(); }

    /// Calls f(s) for every shard s, each exactly once, on any of the threads; `f` must not throw.
    template <class F>
    void run(const F& f) {
        ctx_.store(&f, std::memory_order_relaxed);
        call_.store([](const void* c, std::size_t s) { (*static_cast<const F*>(c))(s); }, std::memory_order_relaxed);
        done_.store(0, std::memory_order_relaxed);
        next_.store(0, std::memory_order_release);  // a claim that reads this sees the job above
        if (!workers_.empty()) {
            generation_.fetch_add(1, std::memory_order_release);
            generation_.notify_all();
        }
        claim();
        for (std::size_t d = done_.load(std::memory_order_acquire); d != shards_;
             d = done_.load(std::memory_order_acquire))
            done_.wait(d, std::memory_order_acquire);
    }

private:
    // Runs unclaimed shards of the current job until none is left.
    void claim() {
        for (;;) {
            const std::size_t s = next_.fetch_add(1, std::memory_order_acq_rel);
            if (s >= shards_) return;
            call_.load(std::memory_order_relaxed)(ctx_.load(std::memory_order_relaxed), s);
            if (done_.fetch_add(1, std::memory_order_acq_rel) + 1 == shards_) done_.notify_all();
        }
    }

    void work() {
        std::uint64_t seen = 0;
        for (;;) {
            generation_.wait(seen, std::memory_order_acquire);
            seen = generation_.load(std::memory_order_acquire);
            if (stop_.load(std::memory_order_acquire)) return;
            claim();
        }
    }

    void stop() {
        stop_.store(true, std::memory_order_release);
        generation_.fetch_add(1, std::memory_order_release);
        generation_.notify_all();
        for (auto& w : workers_) w.join();
        workers_.clear();
    }

    std::size_t shards_;
    std::vector<std::thread> workers_;
    std::atomic<const void*> ctx_{nullptr};
    std::atomic<void (*)(const void*, std::size_t)> call_{nullptr};
    std::atomic<std::size_t> next_{0};  // next shard to claim; >= shards_ when the job is taken
    std::atomic<std::size_t> done_{0};  // shards finished
    std::atomic<std::uint64_t> generation_{0};
    std::atomic<bool> stop_{false};
};

/// Keeps OpenBLAS on one thread while alive: the shards already run in parallel, and OpenBLAS's own
/// threading splits products differently per thread count, which changes the trained weights.
/// Found with dlsym, so any other BLAS (single-threaded or not) links and runs unchanged.
class single_threaded_blas {
public:
    single_threaded_blas() {
#if __has_include(<dlfcn.h>)
        void* set = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
        void* get = dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
        if (set != nullptr && get != nullptr) {
            int (*get_fn)() = nullptr;
            std::memcpy(&set_, &set, sizeof set);  // object to function pointer, as POSIX allows
            std::memcpy(&get_fn, &get, sizeof get);
            previous_ = get_fn();
            set_(1);
        }
#endif
    }
    single_threaded_blas(const single_threaded_blas&) = delete;
    single_threaded_blas& operator=(const single_threaded_blas&) = delete;
    ~single_threaded_blas() {
        if (set_ != nullptr && previous_ > 0) set_(previous_);
    }

private:
    void (*set_)(int) = nullptr;
    int previous_ = 0;
};

/// Rows of a batch are split into this many shards; fixed, so the weights depend on the seed only.
inline constexpr std::size_t shard_count = 4;

/// Minibatch trainer over flat parameter storage, so AdamW, clipping and snapshots are single loops.
///
/// Each step runs as a few phases over the shards (row blocks of the batch); column sums that BatchNorm
/// and the weight gradients need are summed over shards in shard order, so every thread count agrees.
class trainer {
public:
    trainer(const dataset& train, const dataset& validation, const train_options& opt)
            : opt_(opt),
              rng_(opt.seed),
              rows_(train.x.shape(0)),
              cols_(train.x.shape(1)),
              val_rows_(validation.x.shape(0)) {
        check_options(opt);
        check_dataset(train, "training", 0);
        check_dataset(validation, "validation", cols_);
        if (rows_ < 2) report_error(cat("train_mlp: training set needs >= 2 rows, got ", rows_));
        if (cols_ == 0 || cols_ > mlp::max_width)
            report_error(cat("train_mlp: training set needs 1..", mlp::max_width, " input columns, got ", cols_));
        fit_standardisation(train.x);
        standardise(train.x, mean_, sd_, x_);
        if (val_rows_ != 0) standardise(validation.x, mean_, sd_, val_x_);
        targets(train, log_e_, w_);
        targets(validation, val_log_e_, val_w_);
        lay_out();
        initialise();
        allocate();
    }

    /// Trains until max_epochs or early stopping and returns the model with the best monitored loss.
    mlp_model run(train_report* report, std::ostream* progress) {
        const single_threaded_blas blas_guard;
        team crew(opt_.threads != 0 ? opt_.threads : std::max(1u, std::thread::hardware_concurrency()), shard_count);
        crew_ = &crew;
        const bool log = opt_.verbose && progress != nullptr;
        if (log) {
            std::string arch = std::to_string(cols_);
            for (std::size_t w : opt_.hidden) (arch += '-') += std::to_string(w);
            line(*progress, "synperf train: %zu rows, %zu validation rows, layers %s-1, %zu parameters, seed %llu\n",
                 rows_, val_rows_, arch.c_str(), params_.size(), static_cast<unsigned long long>(opt_.seed));
        }
        double best = std::numeric_limits<double>::infinity();
        double plateau_best = best;
        std::size_t best_epoch = 0, since_best = 0, plateau_bad = 0, epoch = 0;
        double train_loss = 0;
        lr_ = static_cast<float>(opt_.lr);
        while (epoch < opt_.max_epochs) {
            ++epoch;
            const auto t0 = std::chrono::steady_clock::now();
            train_loss = train_epoch();
            const double monitored = val_rows_ != 0 ? validation_loss() : train_loss;
            if (!std::isfinite(monitored) || !std::isfinite(train_loss))
                report_error(cat("train_mlp: loss is not finite at epoch ", epoch, "; lower lr or check the data"));
            if (monitored < best) {
                best = monitored;
                best_epoch = epoch;
                since_best = 0;
                best_params_ = params_;
                best_stats_ = stats_;
            } else {
                ++since_best;
            }
            // ReduceLROnPlateau, mode min, relative threshold 1e-4, no cooldown (PyTorch defaults).
            bool reduced = false;
            if (monitored < plateau_best * (1.0 - 1e-4)) {
                plateau_best = monitored;
                plateau_bad = 0;
            } else if (++plateau_bad > opt_.lr_patience) {
                lr_ = static_cast<float>(lr_ * opt_.lr_factor);
                plateau_bad = 0;
                reduced = true;
            }
            const bool stop = opt_.early_stop != 0 && since_best >= opt_.early_stop;
            if (log && (epoch == 1 || epoch % std::max<std::size_t>(opt_.log_every, 1) == 0 || reduced || stop ||
                        epoch == opt_.max_epochs)) {
                const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                line(*progress, "epoch %4zu  train %.5f  val %.5f  lr %.3g  %.2fs%s\n", epoch, train_loss, monitored,
                     static_cast<double>(lr_), secs, reduced ? "  (lr reduced)" : "");
            }
            if (stop) break;
        }
        crew_ = nullptr;
        if (log)
            line(*progress, "synperf train: kept epoch %zu (val %.5f) after %zu epochs\n", best_epoch, best, epoch);
        if (report != nullptr) *report = train_report{epoch, best_epoch, best, train_loss};
        return to_model(best_params_, best_stats_);
    }

private:
    struct slots {
        std::size_t in, out, w, b, gamma, beta, mean, var;  // offsets into params_ (w..beta) and stats_ (mean, var)
    };

    /// What one shard owns: its rows of the batch, its dropout stream, and its partial sums.
    struct shard {
        explicit shard(std::uint64_t seed) : gen(seed) {}
        rng gen;
        std::size_t begin = 0, end = 0;   // rows of the current batch
        std::vector<float> grad;          // partial gradients, params_ layout
        std::vector<double> moments;      // Σ a at a layer's `mean` slot, Σ a² at its `var` slot (stats_ layout)
        std::vector<double> dmoments;     // Σ dy at the `mean` slot, Σ dy·x̂ at the `var` slot
        std::vector<float> mean, inv;     // this shard's copy of the batch statistics (stats_ layout, `mean` slot)
        std::vector<double> dbias;        // scratch, widest layer
        std::vector<float> coef;          // scratch, 3 x widest layer
        std::vector<std::uint32_t> bits;  // dropout random bits
        double loss = 0;                  // Σ w·|log(ê/e)| over the epoch
        double norm2 = 0;                 // squared gradient norm over this shard's parameter slice
        eval_pass eval;
    };

    template <class... A>
    static void line(std::ostream& os, const char* fmt, A... args) {
        std::array<char, 256> buf{};
        std::snprintf(buf.data(), buf.size(), fmt, args...);
        os << buf.data() << std::flush;
    }

    void fit_standardisation(const xt::xtensor<float, 2>& x) {
        mean_.assign(cols_, 0.0f);
        sd_.assign(cols_, 1.0f);
        const float* p = x.data();
        for (std::size_t j = 0; j < cols_; ++j) {
            double sum = 0;
            float lo = p[j], hi = p[j];
            for (std::size_t r = 0; r < rows_; ++r) {
                const float v = p[r * cols_ + j];
                sum += v;
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
            const double m = sum / static_cast<double>(rows_);
            double sq = 0;
            for (std::size_t r = 0; r < rows_; ++r) sq += (p[r * cols_ + j] - m) * (p[r * cols_ + j] - m);
            mean_[j] = static_cast<float>(m);
            // A column constant in training (e.g. a one-hot level absent from it) carries no information: an
            // infinite std makes the model ignore it, rather than feed a value it never saw to first-layer
            // weights that never trained.
            const float sd = static_cast<float>(std::sqrt(sq / static_cast<double>(rows_)));
            sd_[j] = hi > lo && sd > 0.0f ? sd : std::numeric_limits<float>::infinity();
        }
    }

    static void targets(const dataset& d, std::vector<float>& log_e, std::vector<float>& w) {
        const std::size_t n = d.efficiency.size();
        log_e.resize(n);
        w.assign(n, 1.0f);
        for (std::size_t i = 0; i < n; ++i) log_e[i] = std::log(d.efficiency.data()[i]);
        if (d.weight.size() != 0) std::copy(d.weight.data(), d.weight.data() + n, w.begin());
    }

    void lay_out() {
        std::size_t p = 0, s = 0, in = cols_;
        for (std::size_t out : opt_.hidden) {
            slots sl{in, out, p, p + out * in, 0, 0, s, s + out};
            p += out * in + out;
            sl.gamma = p;
            sl.beta = p + out;
            p += 2 * out;
            s += 2 * out;
            layers_.push_back(sl);
            in = out;
        }
        layers_.push_back(slots{in, 1, p, p + in, 0, 0, 0, 0});
        p += in + 1;
        params_.assign(p, 0.0f);
        grads_.assign(p, 0.0f);
        adam_m_.assign(p, 0.0f);
        adam_v_.assign(p, 0.0f);
        stats_.assign(s, 0.0f);
    }

    // PyTorch's defaults: Linear U(-1/sqrt(in), 1/sqrt(in)) for weights and bias; BatchNorm gamma 1, beta 0,
    // running mean 0, running var 1.
    void initialise() {
        for (std::size_t l = 0; l < layers_.size(); ++l) {
            const auto& L = layers_[l];
            const float bound = 1.0f / std::sqrt(static_cast<float>(L.in));
            for (std::size_t i = 0; i < L.out * L.in; ++i) params_[L.w + i] = (2.0f * rng_.uniform() - 1.0f) * bound;
            for (std::size_t i = 0; i < L.out; ++i) params_[L.b + i] = (2.0f * rng_.uniform() - 1.0f) * bound;
            if (l + 1 == layers_.size()) break;
            std::fill_n(params_.begin() + static_cast<std::ptrdiff_t>(L.gamma), L.out, 1.0f);
            std::fill_n(stats_.begin() + static_cast<std::ptrdiff_t>(L.var), L.out, 1.0f);
        }
        best_params_ = params_;
        best_stats_ = stats_;
    }

    void allocate() {
        const std::size_t nb = batch_count();
        const std::size_t max_rows = (rows_ + nb - 1) / nb;
        const std::size_t hidden = opt_.hidden.size();
        std::size_t width = 1;
        for (std::size_t w : opt_.hidden) width = std::max(width, w);
        xb_.resize(max_rows * cols_);
        tb_.resize(max_rows);
        wb_.resize(max_rows);
        out_.resize(max_rows);
        dout_.resize(max_rows);
        act_.resize(hidden);
        xhat_.resize(hidden);
        mask_.resize(hidden);
        h_.resize(hidden);
        dh_.resize(hidden);
        for (std::size_t l = 0; l < hidden; ++l) {
            const std::size_t n = max_rows * opt_.hidden[l];
            act_[l].resize(n);
            xhat_[l].resize(n);
            h_[l].resize(n);
            dh_[l].resize(n);
            if (opt_.dropout > 0) mask_[l].resize(n);
        }
        for (std::size_t s = 0; s < shard_count; ++s) {
            // Each shard's dropout stream comes from the seed alone (splitmix64 separates the streams).
            shards_.emplace_back(opt_.seed + 0x632be59bd9b4e019ULL * (s + 1));
            shard& sh = shards_.back();
            sh.grad.assign(params_.size(), 0.0f);
            sh.moments.assign(stats_.size(), 0.0);
            sh.dmoments.assign(stats_.size(), 0.0);
            sh.mean.assign(stats_.size(), 0.0f);
            sh.inv.assign(stats_.size(), 0.0f);
            sh.dbias.assign(width, 0.0);
            sh.coef.assign(3 * width, 0.0f);
            sh.bits.reserve(max_rows * width + 1);  // no allocation inside the phases
        }
        perm_.resize(rows_);
        std::iota(perm_.begin(), perm_.end(), std::size_t{0});
        drop_threshold_ = static_cast<std::uint32_t>(std::min(std::ldexp(opt_.dropout, 32), 4294967295.0));
        drop_scale_ = static_cast<float>(1.0 / (1.0 - opt_.dropout));
        val_pred_.resize(val_rows_);
    }

    // Equal batches (sizes differ by at most one) of at most `batch` rows, so BatchNorm never sees a tiny
    // trailing batch; and at least 2 rows each (BatchNorm needs a variance), which wins on tiny data sets.
    std::size_t batch_count() const { return std::min((rows_ + opt_.batch - 1) / opt_.batch, rows_ / 2); }

    double train_epoch() {
        for (std::size_t i = rows_ - 1; i > 0; --i) std::swap(perm_[i], perm_[rng_.below(i + 1)]);
        for (shard& sh : shards_) sh.loss = 0;
        const std::size_t nb = batch_count();
        const std::size_t base = rows_ / nb, extra = rows_ % nb;
        double weight = 0;
        for (std::size_t k = 0, first = 0; k < nb; ++k) {
            const std::size_t n = base + (k < extra ? 1 : 0);
            double wsum = 0;
            for (std::size_t r = 0; r < n; ++r) wsum += w_[perm_[first + r]];
            step(first, n, wsum);
            weight += wsum;
            first += n;
        }
        double loss = 0;
        for (const shard& sh : shards_) loss += sh.loss;
        return weight > 0 ? loss / weight : 0.0;
    }

    // One minibatch: train-mode forward, backward, then clipping and AdamW on the shard-summed gradient.
    void step(std::size_t first, std::size_t n, double wsum) {
        const std::size_t hidden = opt_.hidden.size();
        first_ = first;
        inv_w_ = wsum > 0 ? static_cast<float>(1.0 / wsum) : 0.0f;
        for (std::size_t s = 0; s < shard_count; ++s) {
            shards_[s].begin = n * s / shard_count;
            shards_[s].end = n * (s + 1) / shard_count;
        }
        crew_->run([&](std::size_t s) {
            shard& sh = shards_[s];
            gather(sh);
            if (hidden > 0) {
                hidden_linear(sh, 0);
            } else {
                output_and_loss(sh);
            }
        });
        for (std::size_t l = 0; l < hidden; ++l)
            crew_->run([&](std::size_t s) {
                shard& sh = shards_[s];
                batch_norm_forward(sh, s == 0, l);
                if (l + 1 < hidden) {
                    hidden_linear(sh, l + 1);
                } else {
                    output_and_loss(sh);
                    batch_norm_grad_sums(sh, l);
                }
            });
        for (std::size_t l = hidden; l-- > 0;) crew_->run([&](std::size_t s) { hidden_backward(shards_[s], l); });
        if (!(wsum > 0)) return;
        crew_->run([&](std::size_t s) { sum_gradients(s); });
        adamw();
    }

    // Shard s's slice of the parameters: gradient sums, clipping and AdamW run slice by slice in parallel.
    std::pair<std::size_t, std::size_t> slice(std::size_t s) const {
        return {params_.size() * s / shard_count, params_.size() * (s + 1) / shard_count};
    }

    // The batch gradient over slice s (shard partials added in shard order), and its squared norm.
    void sum_gradients(std::size_t s) {
        const auto [b, e] = slice(s);
        float* g = grads_.data() + b;
        std::copy(shards_[0].grad.begin() + static_cast<std::ptrdiff_t>(b),
                  shards_[0].grad.begin() + static_cast<std::ptrdiff_t>(e), g);
        for (std::size_t t = 1; t < shard_count; ++t) add_into(g, shards_[t].grad.data() + b, e - b);
        double norm2 = 0;
        for (std::size_t i = 0; i < e - b; ++i) norm2 += static_cast<double>(g[i]) * g[i];
        shards_[s].norm2 = norm2;
    }

    void gather(shard& sh) {
        for (std::size_t r = sh.begin; r < sh.end; ++r) {
            const std::size_t i = perm_[first_ + r];
            std::copy_n(x_.data() + i * cols_, cols_, xb_.data() + r * cols_);
            tb_[r] = log_e_[i];
            wb_[r] = w_[i];
        }
    }

    const float* layer_input(std::size_t l) const { return l == 0 ? xb_.data() : h_[l - 1].data(); }

    // Linear + ReLU of hidden layer l on the shard's rows, and the shard's column sums of the result.
    void hidden_linear(shard& sh, std::size_t l) {
        const slots& L = layers_[l];
        const std::size_t m = sh.end - sh.begin;
        float* a = act_[l].data() + sh.begin * L.out;
        gemm(layer_input(l) + sh.begin * L.in, m, L.in, false, params_.data() + L.w, L.out, L.in, true, a);
        relu_bias_stats(a, params_.data() + L.b, sh.moments.data() + L.mean, sh.moments.data() + L.var, m, L.out);
    }

    // BatchNorm (batch statistics from every shard's sums, added in shard order) and dropout on the shard's rows.
    void batch_norm_forward(shard& sh, bool update_running, std::size_t l) {
        const slots& L = layers_[l];
        const std::size_t n = shards_.back().end;
        const std::size_t m = sh.end - sh.begin;
        float* mean = sh.mean.data() + L.mean;
        float* inv = sh.inv.data() + L.mean;
        for (std::size_t j = 0; j < L.out; ++j) {
            double sum = 0, sq = 0;
            for (const shard& t : shards_) {
                sum += t.moments[L.mean + j];
                sq += t.moments[L.var + j];
            }
            const double mu = sum / static_cast<double>(n);
            const double var = std::max(sq / static_cast<double>(n) - mu * mu, 0.0);
            mean[j] = static_cast<float>(mu);
            inv[j] = static_cast<float>(1.0 / std::sqrt(var + bn_eps));
            if (update_running) {
                float& rm = stats_[L.mean + j];
                float& rv = stats_[L.var + j];
                rm = (1.0f - bn_momentum) * rm + bn_momentum * static_cast<float>(mu);
                rv = (1.0f - bn_momentum) * rv +
                     bn_momentum * static_cast<float>(var * static_cast<double>(n) / static_cast<double>(n - 1));
            }
        }
        const std::size_t off = sh.begin * L.out;
        float* mk = opt_.dropout > 0 ? mask_[l].data() + off : nullptr;
        if (mk != nullptr) dropout_mask(sh.gen, drop_threshold_, drop_scale_, sh.bits, mk, m * L.out);
        bn_dropout_forward(act_[l].data() + off, mean, inv, params_.data() + L.gamma, params_.data() + L.beta, mk,
                           xhat_[l].data() + off, h_[l].data() + off, m, L.out);
    }

    // Output layer, loss, and the output layer's gradients for the shard's rows.
    // The loss gradient per output: `log_error_gradient`.
    void output_and_loss(shard& sh) {
        const std::size_t hidden = opt_.hidden.size();
        const slots& O = layers_[hidden];
        const std::size_t m = sh.end - sh.begin;
        const float* in = layer_input(hidden) + sh.begin * O.in;
        float* out = out_.data() + sh.begin;
        float* dout = dout_.data() + sh.begin;
        gemm(in, m, O.in, false, params_.data() + O.w, 1, O.in, true, out);
        const float b = params_[O.b];
        double loss = 0, db = 0;
        const float least_gradient = static_cast<float>(opt_.saturation_gradient_floor);
        for (std::size_t r = 0; r < m; ++r) {
            const float e = sigmoid(out[r] + b);
            const float d = std::log(std::clamp(e, min_efficiency, 1.0f)) - tb_[sh.begin + r];
            const float w = wb_[sh.begin + r];
            loss += static_cast<double>(w) * std::abs(static_cast<double>(d));
            dout[r] = w * inv_w_ * log_error_gradient(e, d, least_gradient);
            db += dout[r];
        }
        sh.loss += loss;
        gemm(dout, m, 1, true, in, m, O.in, false, sh.grad.data() + O.w);
        sh.grad[O.b] = static_cast<float>(db);
        if (hidden > 0)
            gemm(dout, m, 1, false, params_.data() + O.w, 1, O.in, false, dh_[hidden - 1].data() + sh.begin * O.in);
    }

    // Undo dropout on the incoming gradient of hidden layer l and take the shard's Σ dy and Σ dy·x̂.
    void batch_norm_grad_sums(shard& sh, std::size_t l) {
        const slots& L = layers_[l];
        const std::size_t off = sh.begin * L.out;
        bn_grad_sums(dh_[l].data() + off, opt_.dropout > 0 ? mask_[l].data() + off : nullptr, xhat_[l].data() + off,
                     sh.dmoments.data() + L.mean, sh.dmoments.data() + L.var, sh.end - sh.begin, L.out);
    }

    // dx = γ/σ · (dy − mean(dy) − x̂ · mean(dy · x̂)), the batch-statistics BatchNorm backward, then ReLU,
    // the shard's partial weight gradients, and the gradient for the layer below.
    void hidden_backward(shard& sh, std::size_t l) {
        const slots& L = layers_[l];
        const std::size_t m = sh.end - sh.begin;
        const float fn = static_cast<float>(shards_.back().end);
        float* c1 = sh.coef.data();
        float* c2 = c1 + L.out;
        float* c3 = c2 + L.out;
        const float* g = params_.data() + L.gamma;
        const float* inv = sh.inv.data() + L.mean;
        for (std::size_t j = 0; j < L.out; ++j) {
            double dbeta = 0, dgamma = 0;
            for (const shard& t : shards_) {
                dbeta += t.dmoments[L.mean + j];
                dgamma += t.dmoments[L.var + j];
            }
            c1[j] = g[j] * inv[j];
            c2[j] = static_cast<float>(dbeta) / fn;
            c3[j] = static_cast<float>(dgamma) / fn;
            sh.grad[L.beta + j] = static_cast<float>(sh.dmoments[L.mean + j]);
            sh.grad[L.gamma + j] = static_cast<float>(sh.dmoments[L.var + j]);
        }
        const std::size_t off = sh.begin * L.out;
        float* d = dh_[l].data() + off;
        bn_relu_backward(d, act_[l].data() + off, xhat_[l].data() + off, c1, c2, c3, sh.dbias.data(), m, L.out);
        for (std::size_t j = 0; j < L.out; ++j) sh.grad[L.b + j] = static_cast<float>(sh.dbias[j]);
        gemm(d, m, L.out, true, layer_input(l) + sh.begin * L.in, m, L.in, false, sh.grad.data() + L.w);
        if (l > 0) {
            gemm(d, m, L.out, false, params_.data() + L.w, L.out, L.in, false, dh_[l - 1].data() + sh.begin * L.in);
            batch_norm_grad_sums(sh, l - 1);
        }
    }

    void adamw() {
        double norm2 = 0;
        for (const shard& sh : shards_) norm2 += sh.norm2;
        float scale = 1.0f;
        const double norm = std::sqrt(norm2);
        if (opt_.grad_clip > 0 && norm > opt_.grad_clip)  // torch.nn.utils.clip_grad_norm_
            scale = static_cast<float>(opt_.grad_clip / (norm + 1e-6));
        ++adam_t_;
        const double t = static_cast<double>(adam_t_);
        const float step = static_cast<float>(lr_ / (1.0 - std::pow(static_cast<double>(adam_beta1), t)));
        const float bc2 = static_cast<float>(std::sqrt(1.0 - std::pow(static_cast<double>(adam_beta2), t)));
        const float decay = 1.0f - static_cast<float>(lr_ * opt_.weight_decay);
        crew_->run([&](std::size_t s) {
            const auto [b, e] = slice(s);
            adamw_update(params_.data() + b, grads_.data() + b, adam_m_.data() + b, adam_v_.data() + b, e - b, scale,
                         decay, step, bc2);
        });
    }

    std::vector<layer_view> views(const std::vector<float>& params, const std::vector<float>& stats) const {
        std::vector<layer_view> v;
        for (std::size_t l = 0; l < layers_.size(); ++l) {
            const slots& L = layers_[l];
            layer_view lv{L.in, L.out, params.data() + L.w, params.data() + L.b};
            if (l + 1 < layers_.size()) {
                lv.gamma = params.data() + L.gamma;
                lv.beta = params.data() + L.beta;
                lv.mean = stats.data() + L.mean;
                lv.var = stats.data() + L.var;
            }
            v.push_back(lv);
        }
        return v;
    }

    double validation_loss() {
        const auto v = views(params_, stats_);
        crew_->run([&](std::size_t s) {
            const std::size_t b = val_rows_ * s / shard_count, e = val_rows_ * (s + 1) / shard_count;
            if (e > b) shards_[s].eval.run(v, val_x_.data() + b * cols_, e - b, val_pred_.data() + b);
        });
        double loss = 0, weight = 0;
        for (std::size_t i = 0; i < val_rows_; ++i) {
            loss += val_w_[i] * log_error(val_pred_[i], val_log_e_[i]);
            weight += val_w_[i];
        }
        return loss / weight;
    }

    mlp_model to_model(const std::vector<float>& params, const std::vector<float>& stats) const {
        mlp_model m;
        m.input_mean = mean_;
        m.input_std = sd_;
        const auto at = [](const std::vector<float>& v, std::size_t off, std::size_t len) {
            return std::vector<float>(v.begin() + static_cast<std::ptrdiff_t>(off),
                                      v.begin() + static_cast<std::ptrdiff_t>(off + len));
        };
        for (std::size_t l = 0; l < layers_.size(); ++l) {
            const slots& L = layers_[l];
            m.linears.push_back(linear_params{L.in, L.out, at(params, L.w, L.out * L.in), at(params, L.b, L.out)});
            if (l + 1 < layers_.size())
                m.norms.push_back(batch_norm_params{at(params, L.gamma, L.out), at(params, L.beta, L.out),
                                                    at(stats, L.mean, L.out), at(stats, L.var, L.out)});
        }
        return m;
    }

    train_options opt_;
    rng rng_;  // initialisation and shuffling
    std::size_t rows_, cols_, val_rows_;
    std::vector<float> mean_, sd_;  // input standardisation
    std::vector<float> x_, val_x_;  // standardised inputs, row-major
    std::vector<float> log_e_, w_, val_log_e_, val_w_;
    std::vector<slots> layers_;
    std::vector<float> params_, grads_, adam_m_, adam_v_, stats_, best_params_, best_stats_;
    std::size_t adam_t_ = 0;
    float lr_ = 0;
    std::uint32_t drop_threshold_ = 0;
    float drop_scale_ = 1;
    team* crew_ = nullptr;
    std::vector<shard> shards_;
    // The current batch, row-major, allocated once; shards own disjoint row blocks.
    std::vector<std::size_t> perm_;
    std::size_t first_ = 0;
    float inv_w_ = 0;
    std::vector<float> xb_, tb_, wb_, out_, dout_;
    std::vector<std::vector<float>> act_, xhat_, mask_, h_, dh_;
    std::vector<float> val_pred_;
};

/// Layer views of a public model, checking that its pieces fit together.
inline std::vector<layer_view> views(const mlp_model& m) {
    if (m.linears.empty() || m.norms.size() + 1 != m.linears.size())
        report_error(cat("mlp_model: needs one BatchNorm per hidden layer plus an output layer, got ", m.linears.size(),
                         " linear and ", m.norms.size(), " BatchNorm layers"));
    std::size_t in = m.input_mean.size();
    if (m.input_std.size() != in)
        report_error(cat("mlp_model: input_std needs ", in, " values, got ", m.input_std.size()));
    std::vector<layer_view> v;
    for (std::size_t l = 0; l < m.linears.size(); ++l) {
        const auto& L = m.linears[l];
        const bool last = l + 1 == m.linears.size();
        if (L.in != in || L.weights.size() != L.in * L.out || L.bias.size() != L.out || (last && L.out != 1))
            report_error(cat("mlp_model: layer ", l, " needs ", in, " inputs", (last ? " and 1 output" : ""),
                             " with matching weights and bias, got ", L.in, "x", L.out, " with ", L.weights.size(),
                             " weights"));
        layer_view lv{L.in, L.out, L.weights.data(), L.bias.data()};
        if (!last) {
            const auto& N = m.norms[l];
            if (N.gamma.size() != L.out || N.beta.size() != L.out || N.running_mean.size() != L.out ||
                N.running_var.size() != L.out)
                report_error(cat("mlp_model: BatchNorm ", l, " needs ", L.out, " values per vector"));
            lv.gamma = N.gamma.data();
            lv.beta = N.beta.data();
            lv.mean = N.running_mean.data();
            lv.var = N.running_var.data();
        }
        v.push_back(lv);
        in = L.out;
    }
    return v;
}

}  // namespace detail

/// Trains the efficiency MLP and returns it unexported (BatchNorm and standardisation separate).
///
/// With an empty validation set the training loss is monitored instead. The same data, options and seed give
/// bit-identical weights whatever `threads` is (on one machine: another CPU may pick other BLAS kernels).
inline mlp_model fit_mlp(const dataset& train, const dataset& validation, const train_options& options,
                         train_report* report = nullptr, std::ostream* progress = &std::cerr) {
    detail::trainer t(train, validation, options);
    return t.run(report, progress);
}

/// Eval-mode forward pass of an unexported model: one efficiency per row of `x` (inputs as in `dataset::x`).
inline xt::xtensor<float, 1> predict(const mlp_model& model, const xt::xtensor<float, 2>& x) {
    const auto layers = detail::views(model);
    xt::xtensor<float, 1> out = xt::xtensor<float, 1>::from_shape({x.shape(0)});
    if (x.shape(0) == 0) return out;
    if (x.shape(1) != model.input_mean.size())
        detail::report_error(
            detail::cat("predict: needs ", model.input_mean.size(), " input columns, got ", x.shape(1)));
    std::vector<float> xs;
    detail::standardise(x, model.input_mean, model.input_std, xs);
    detail::eval_pass pass;
    pass.run(layers, xs.data(), x.shape(0), out.data());
    return out;
}

/// Folds the input standardisation and each BatchNorm into the next dense layer.
///
/// BatchNorm follows the ReLU, so BN_i(r) = s ⊙ r + t with s = γ/√(var+eps), t = β − s·μ folds into
/// Linear_{i+1}: W' = W·diag(s), b' = b + W·t. Standardisation folds into the first layer the same way.
/// The caller fills `family`, `feature_names`, `categoricals` and `meta`.
inline mlp::network export_network(const mlp_model& model) {
    const auto layers = detail::views(model);
    const std::size_t in0 = model.input_mean.size();
    // Affine map applied to the current layer's input: x_used = s ⊙ x + t.
    std::vector<double> s(in0), t(in0);
    for (std::size_t j = 0; j < in0; ++j) {
        s[j] = 1.0 / static_cast<double>(model.input_std[j]);
        t[j] = -static_cast<double>(model.input_mean[j]) * s[j];
    }
    mlp::network net;
    for (std::size_t l = 0; l < layers.size(); ++l) {
        const auto& L = layers[l];
        const bool last = l + 1 == layers.size();
        mlp::dense_layer d{L.in, L.out, last ? mlp::activation::sigmoid : mlp::activation::relu, {}, {}};
        d.weights.resize(L.out * L.in);
        d.bias.resize(L.out);
        for (std::size_t o = 0; o < L.out; ++o) {
            double b = L.b[o];
            for (std::size_t i = 0; i < L.in; ++i) {
                const double w = L.w[o * L.in + i];
                d.weights[o * L.in + i] = static_cast<float>(w * s[i]);
                b += w * t[i];
            }
            d.bias[o] = static_cast<float>(b);
        }
        net.layers.push_back(std::move(d));
        if (last) break;
        s.assign(L.out, 0.0);
        t.assign(L.out, 0.0);
        for (std::size_t j = 0; j < L.out; ++j) {
            s[j] = static_cast<double>(L.gamma[j]) / std::sqrt(static_cast<double>(L.var[j]) + detail::bn_eps);
            t[j] = static_cast<double>(L.beta[j]) - s[j] * static_cast<double>(L.mean[j]);
        }
    }
    return net;
}

/// Records the range of the training targets `efficiency` (capped at 1) in `net`: the evaluators clamp the output
/// into the efficiencies the network was taught (`mlp::network::clamp_efficiency`).
inline void record_efficiency_range(mlp::network& net, const xt::xtensor<float, 1>& efficiency) {
    if (efficiency.size() == 0) synperf::detail::report_error("record_efficiency_range: no training targets");
    const auto [lo, hi] = std::minmax_element(efficiency.begin(), efficiency.end());
    net.efficiency_min = std::min(static_cast<double>(*lo), 1.0);
    net.efficiency_max = std::min(static_cast<double>(*hi), 1.0);
}

/// Trains the efficiency MLP and exports it; `meta` records rows, seed and epochs, and the efficiency range is
/// the training targets' (capped at 1).
///
/// The caller fills `family`, `feature_names` and `categoricals` of the returned network.
inline mlp::network train_mlp(const dataset& train, const dataset& validation, const train_options& options,
                              train_report* report = nullptr, std::ostream* progress = &std::cerr) {
    train_report r;
    mlp::network net = export_network(fit_mlp(train, validation, options, &r, progress));
    std::string hidden;
    for (std::size_t w : options.hidden) (hidden += hidden.empty() ? "" : "-") += std::to_string(w);
    net.meta = detail::cat("rows=", train.x.shape(0), " validation_rows=", validation.x.shape(0), " hidden=", hidden,
                           " seed=", options.seed, " epochs=", r.epochs_run, " best_epoch=", r.best_epoch,
                           " best_val_loss=", r.best_val_loss);
    if (options.saturation_gradient_floor > 0)
        net.meta += detail::cat(" saturation_gradient_floor=", options.saturation_gradient_floor);
    record_efficiency_range(net, train.efficiency);
    if (report != nullptr) *report = r;
    return net;
}

}  // namespace synperf::train
