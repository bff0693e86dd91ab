// SPDX-License-Identifier: Apache-2.0
// A kernel family of your own, from the decomposer to a trained model: PyTorch's LayerNorm forward
// (torch.nn.LayerNorm -> vectorized_layer_norm_kernel), a row-wise reduction kernel like softmax: one CTA per
// row reduces the row (Welford mean and variance), then rescales it.
//
// Usage: example_custom_family_layernorm [--data DIR] [--out FILE] [measurements.csv]
//   measurements.csv: columns gpu,rows,cols,latency_us (fp16 rows, one per measured kernel).
//   Without a CSV, the measured LayerNorm of Vidur's profiling (vidur/compute/<gpu>/microsoft__phi-2__mlp.csv,
//   op input_layernorm: phi-2 is the one Vidur model with a LayerNorm) is read from the data directory:
//   --data, else $SYNPERF_DATA, else ../shared/data beside the project; when there is none it exits 77 (skipped).
// It trains the efficiency MLP leave-one-GPU-out (prints the MAPE on each held-out GPU), then on every GPU,
// and predicts shapes it never saw, on GPUs with and without measurements.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <synperf.hpp>
#include <synperf/data/csv.hpp>
#include <synperf/data/data_dir.hpp>
#include <synperf/data/protocol.hpp>
#include <synperf/family/memory_bound.hpp>
#include <synperf/mlp/format.hpp>
#include <synperf/train/metrics.hpp>
#include <synperf/train/mlp_trainer.hpp>  // target synperf::train (xtensor, xtensor-blas, BLAS)

namespace my {

namespace mb = synperf::family::memory_bound;

/// LayerNorm over the last dimension of a [rows, cols] activation, with weight and bias:
/// y = (x - mean) * rsqrt(var + eps) * gamma + beta.
struct layernorm_problem {
    std::int64_t rows = 0;   ///< tokens
    std::int64_t cols = 0;   ///< normalized size (hidden)
    int element_bytes = 2;   ///< 2 (fp16 / bf16) or 4 (fp32)
};

/// PyTorch's vectorized LayerNorm forward (aten/src/ATen/native/cuda/layer_norm_kernel.cu), the path taken when
/// cols is a multiple of 4: grid = rows, block = 32 x 4 threads, 4 elements per access, 24 B of shared memory.
/// Pass 1: each thread folds its elements into a Welford (mean, m2, count) with one reciprocal per element
/// (MUFU.RCP on the XU pipe), then 5 warp-shuffle merges (one reciprocal each) and a shared-memory merge of the
/// 4 warps. Pass 2: one rsqrt, then y = gamma * (rstd * (x - mean)) + beta re-reading x (from L1), gamma, beta.
struct layernorm {
    using problem_type = layernorm_problem;
    using plan_type = mb::plan;
    static constexpr std::string_view name = "layernorm";
    static constexpr std::array<std::string_view, 1> framework_levels{"torch"};
    /// Five of the memory-bound families' features (synperf/family/memory_bound.hpp): the bound, its DRAM share,
    /// the memory-latency bound, the waves and the SMs used. Measurements of one row length on a few GPUs cannot
    /// teach a model the others: ratios that are constant per GPU (L2 size, DRAM over L2 bandwidth) only let it
    /// tell the training GPUs apart, and it extrapolates them wildly on a GPU it never saw.
    static constexpr std::array<std::string_view, 5> feature_names{"theoretical_us", "dram_over_bound", "latency_over_bound",
                                                                   "waves", "busy_sm_fraction"};
    static constexpr int threads = 128;
    static constexpr int vec = 4;  // elements per access

    static std::size_t framework_level(std::string_view framework) {
        if (framework == "torch" || framework == "pytorch" || framework == "vidur") return 0;
        throw synperf::invalid_argument("synperf: layernorm: unknown framework '" + std::string(framework) +
                                        "'; known: torch (pytorch, vidur)");
    }
    static void validate(const layernorm_problem& p) {
        const auto fail = [](const std::string& what) { throw synperf::invalid_argument("synperf: layernorm: " + what); };
        if (p.rows <= 0 || p.rows > 0x7fffffff) fail("rows must be in 1 .. 2^31 - 1 (one CTA per row), got " + std::to_string(p.rows));
        if (p.cols <= 0 || p.cols > (std::int64_t{1} << 24)) fail("cols must be in 1 .. 2^24, got " + std::to_string(p.cols));
        if (p.cols % vec != 0)
            fail("cols must be a multiple of 4 (the vectorized kernel; PyTorch runs two other kernels otherwise), got " +
                 std::to_string(p.cols));
        if (p.element_bytes != 2 && p.element_bytes != 4) fail("element_bytes must be 2 or 4, got " + std::to_string(p.element_bytes));
    }
    static constexpr synperf::work::dispatch_kind main_dispatch(const synperf::gpu::gpu_numbers&) noexcept {
        return synperf::work::dispatch_kind::hardware;
    }

    /// The decomposer: one CTA's work, from the kernel's source, and the op's compulsory work.
    static mb::plan plan(const layernorm_problem& p, const synperf::gpu::gpu_numbers& g) {
        validate(p);
        const double n = double(p.cols), row = n * p.element_bytes;
        mb::launch_shape s;
        s.name = "vectorized_layer_norm_kernel";
        s.ctas = p.rows;
        s.threads = threads;
        s.smem = 4 * 3 / 2 * 4;  // threads.y * 3 / 2 floats for the warp merge
        s.regs = 32;
        s.vector_bytes = vec * p.element_bytes;
        const double rounds = double(mb::ceil_div(p.cols, std::int64_t{threads} * vec));
        s.accesses_per_thread = rounds * 5.0;  // pass 1 loads x; pass 2 loads x, gamma, beta and stores y
        // Through L2: x, gamma, beta, y once each (the re-read of x hits L1), and the fp32 mean and rstd.
        s.cta.l2_bytes = 4.0 * row + 8.0;
        // FMA pipe per element: Welford (sub, add, fma, sub, fma) + the affine rescale (sub, mul, fma); each thread's
        // 5 shuffle merges cost about 8 more. XU: one reciprocal per element and per merge, one rsqrt per thread.
        s.cta.fma_ops = 8.0 * n + threads * 5.0 * 8.0;
        s.cta.xu_ops = n + threads * 5.0 + threads;
        // Compulsory: read x and write y once, gamma and beta once for the op; a one-pass sum of x and x^2 and a
        // fused rescale (4 FP32 ops per element); one rsqrt per row.
        mb::compulsory_work c;
        c.footprint_bytes = 2.0 * double(p.rows) * row + 2.0 * row + 8.0 * double(p.rows);
        c.fma_ops = 4.0 * double(p.rows) * n;
        c.xu_ops = double(p.rows);
        mb::plan out;
        out.shapes.push_back(s);
        out.kernels.push_back(mb::make_launch(s, c, g));
        out.footprint_bytes = c.footprint_bytes;
        return out;
    }

    /// The chosen features, picked by name from the common ones (cycle counts as ratios to the GPU's own
    /// capacities, so that they transfer to another GPU).
    static std::array<double, feature_names.size()> features(const layernorm_problem&, const mb::plan& pl,
                                                             std::span<const synperf::features::kernel_features> kf,
                                                             const synperf::gpu::gpu_numbers& g) {
        const auto all = mb::common_features(pl, kf, g);
        std::array<double, feature_names.size()> out{};
        for (std::size_t i = 0; i < out.size(); ++i)
            out[i] = all[std::size_t(std::find(mb::common_feature_names.begin(), mb::common_feature_names.end(), feature_names[i]) -
                                     mb::common_feature_names.begin())];
        return out;
    }
};
static_assert(synperf::family::KernelFamily<layernorm>);

/// One measured kernel, decomposed.
struct sample {
    std::string gpu;
    layernorm_problem problem;
    double latency_us = 0;       ///< measured
    double theoretical_us = 0;   ///< the lower bound of the decomposition
    std::vector<double> features;
    synperf::data::seen_part part = synperf::data::seen_part::train;  ///< validation split by shape
};

/// Decomposes a measured row: the roofline cost model returns the bound itself, with the features.
sample make_sample(const std::string& gpu, const layernorm_problem& p, double latency_us) {
    const synperf::gpu::runtime_gpu g = synperf::gpu::find_gpu(gpu);
    const synperf::runtime_predictor<layernorm, synperf::cost::roofline_cost> bound(g.numbers, synperf::cost::roofline_cost{});
    const synperf::prediction r = bound.predict(p, "torch");
    return {g.name, p, latency_us, r.theoretical_us, r.features, synperf::data::part_of(synperf::data::shape_hash({p.rows, p.cols}))};
}

/// A CSV of your own measurements: gpu,rows,cols,latency_us.
std::vector<sample> read_csv(const std::string& path) {
    const synperf::data::csv_table t = synperf::data::csv_table::load(path);
    const std::size_t cg = t.column("gpu"), cr = t.column("rows"), cc = t.column("cols"), cl = t.column("latency_us");
    std::vector<sample> out;
    for (std::size_t i = 0; i < t.rows(); ++i) {
        const double us = t.time_us(i, cl, 1.0);  // 1 ns to 10^6 s, else an error at file:line
        // An unknown GPU or a shape the kernel cannot run is reported at the row's file and line.
        t.check_row(i, [&] {
            out.push_back(make_sample(std::string(t.field(i, cg)), {t.positive_integer(i, cr), t.positive_integer(i, cc)}, us));
        });
    }
    return out;
}

/// Vidur's LayerNorm rows (phi-2's input_layernorm, fp16, ms): one file per GPU folder.
std::vector<sample> read_vidur_layernorm(const std::filesystem::path& data_dir) {
    std::vector<sample> out;
    for (const char* folder : {"a100", "a40", "h100"}) {
        const std::filesystem::path f = data_dir / "vidur" / "compute" / folder / "microsoft__phi-2__mlp.csv";
        if (!std::filesystem::exists(f)) continue;
        const synperf::data::csv_table t = synperf::data::csv_table::load(f.string());
        const std::size_t ct = t.column("num_tokens"), ce = t.column("n_embd"), cm = t.column("time_stats.input_layernorm.median");
        for (std::size_t i = 0; i < t.rows(); ++i)
            out.push_back(make_sample(folder, {t.positive_integer(i, ct), t.positive_integer(i, ce)}, t.number(i, cm) * 1e3));
    }
    return out;
}

/// The trainer's rows: log1p of each feature, then the one-hot framework (a single level here).
synperf::train::dataset make_dataset(const std::vector<const sample*>& rows) {
    const std::size_t width = layernorm::feature_names.size() + 1;
    synperf::train::dataset d;
    d.x = xt::xtensor<float, 2>::from_shape({rows.size(), width});
    d.efficiency = xt::xtensor<float, 1>::from_shape({rows.size()});
    for (std::size_t r = 0; r < rows.size(); ++r) {
        for (std::size_t c = 0; c + 1 < width; ++c) d.x(r, c) = float(std::log1p(rows[r]->features[c]));
        d.x(r, width - 1) = 1.0f;
        // The target: bound / measured, clamped into (0, 1] (a measurement at the floor can beat a rounded bound).
        d.efficiency(r) = float(std::clamp(rows[r]->theoretical_us / rows[r]->latency_us, 1e-5, 1.0));
    }
    return d;
}

/// Trains an efficiency model on the samples `use` accepts (validation: their validation shapes).
template <class Use>
synperf::mlp::network train_on(const std::vector<sample>& all, Use use) {
    std::vector<const sample*> fit, val;
    for (const sample& s : all)
        if (use(s)) (s.part == synperf::data::seen_part::validation ? val : fit).push_back(&s);
    synperf::train::train_options o;
    o.hidden = {64, 32};  // a few hundred rows: a small network trains in seconds
    o.max_epochs = 300;
    o.early_stop = 60;
    o.lr_patience = 25;
    o.batch = 256;
    o.verbose = false;
    synperf::mlp::network net = synperf::train::train_mlp(make_dataset(fit), make_dataset(val), o);
    net.family = std::string(layernorm::name);
    net.feature_names.assign(layernorm::feature_names.begin(), layernorm::feature_names.end());
    net.categoricals = {synperf::mlp::categorical_input{"framework", {"torch"}}};
    net.feature_min.assign(layernorm::feature_names.size(), 1e300);
    net.feature_max.assign(layernorm::feature_names.size(), -1e300);
    for (const sample* s : fit)
        for (std::size_t i = 0; i < s->features.size(); ++i) {
            net.feature_min[i] = std::min(net.feature_min[i], s->features[i]);
            net.feature_max[i] = std::max(net.feature_max[i], s->features[i]);
        }
    return net;
}

}  // namespace my

int main(int argc, char** argv) {
    using namespace synperf;
    std::string data_flag, out_path, csv_path;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if ((a == "--data" || a == "--out") && i + 1 < argc) (a == "--data" ? data_flag : out_path) = argv[++i];
        else if (!a.empty() && a[0] != '-') csv_path = a;
        else {
            std::fprintf(stderr, "usage: %s [--data DIR] [--out FILE] [measurements.csv]\n", argv[0]);
            return 2;
        }
    }
    try {
        std::vector<my::sample> samples;
        if (!csv_path.empty()) {
            samples = my::read_csv(csv_path);
        } else {
#ifdef SYNPERF_SOURCE_DIR
            const std::filesystem::path project_root = SYNPERF_SOURCE_DIR;
#else
            const std::filesystem::path project_root = std::filesystem::current_path();
#endif
            const auto dir = data::find_data_dir(data_flag, project_root);
            if (dir) samples = my::read_vidur_layernorm(*dir);
            if (samples.empty()) {
                std::printf("SKIPPED: no measurements: give a CSV (gpu,rows,cols,latency_us), or a data directory with "
                            "vidur/compute/<gpu>/microsoft__phi-2__mlp.csv (--data DIR or SYNPERF_DATA)\n");
                return 77;
            }
        }
        std::map<std::string, std::size_t> per_gpu;
        for (const auto& s : samples) ++per_gpu[s.gpu];
        std::printf("layernorm: %zu measured kernels on %zu GPUs\n", samples.size(), per_gpu.size());

        // Leave one GPU out: train on the others, predict every measurement of the one left out.
        if (per_gpu.size() > 1) std::printf("\nleave-one-GPU-out   rows   MAPE    p90    (the bound alone: MAPE)\n");
        for (const auto& gpu_rows : per_gpu) {
            const std::string& held_out = gpu_rows.first;  // a reference the lambda below can capture
            const std::size_t count = gpu_rows.second;
            if (per_gpu.size() < 2) break;  // nothing to train on without the held-out GPU
            const mlp::network net = my::train_on(samples, [&](const my::sample& s) { return s.gpu != held_out; });
            const runtime_predictor<my::layernorm> pred(gpu::find_gpu(held_out).numbers, cost::mlp_cost(net));
            std::vector<double> predicted, bound, measured;
            for (const auto& s : samples) {
                if (s.gpu != held_out) continue;
                predicted.push_back(pred.predict(s.problem, "torch").latency_us);
                bound.push_back(s.theoretical_us);
                measured.push_back(s.latency_us);
            }
            const train::error_summary e = train::summarize(predicted, measured);
            const train::error_summary b = train::summarize(bound, measured);
            std::printf("  %-16s %5zu  %5.1f%%  %5.1f%%   (%.1f%%)\n", held_out.c_str(), count, e.mape, e.p90, b.mape);
            if (!std::isfinite(e.mape)) return 1;
        }

        // The model to use: every GPU's measurements.
        const mlp::network net = my::train_on(samples, [](const my::sample&) { return true; });
        if (!out_path.empty()) {
            mlp::save_mlp(net, out_path);  // load later with mlp::load_mlp + mlp::check_compatible
            std::printf("\nwrote %s\n", out_path.c_str());
        }
        std::printf("\npredictions (trained on every GPU above)\n");
        struct query {
            const char* gpu;
            my::layernorm_problem p;
        };
        for (const query& q : {query{"h100_sxm", {3000, 2560}}, query{"l40s", {512, 2560}}, query{"h200_sxm", {3000, 2560}},
                               query{"b200_sxm", {2048, 4096}}}) {
            const gpu::runtime_gpu g = gpu::find_gpu(q.gpu);
            const runtime_predictor<my::layernorm> pred(g.numbers, cost::mlp_cost(net));
            const prediction r = pred.predict(q.p, "torch");
            std::string outside;
            for (std::size_t i = 0; i < r.features.size(); ++i)
                if (r.features[i] < net.feature_min[i] || r.features[i] > net.feature_max[i])
                    outside += (outside.empty() ? "" : ", ") + net.feature_names[i];
            std::printf("  %-9s rows=%-6lld cols=%-5lld %8.2f us  (bound %.2f us, %s-bound, efficiency %.2f)%s%s\n", g.name.c_str(),
                        static_cast<long long>(q.p.rows), static_cast<long long>(q.p.cols), r.latency_us, r.theoretical_us,
                        std::string(r.bottleneck).c_str(), r.efficiency, outside.empty() ? "" : "\n            outside the training range: ",
                        outside.c_str());
            if (!(r.latency_us >= r.theoretical_us) || !std::isfinite(r.latency_us)) return 1;
        }
    } catch (const synperf::error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
