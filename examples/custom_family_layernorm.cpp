// SPDX-License-Identifier: Apache-2.0
// A kernel family of your own (layernorm/layernorm_family.hpp: PyTorch's LayerNorm forward and its training source),
// trained, evaluated leave-one-GPU-out and used through the library's training contract.
//
// Usage: example_custom_family_layernorm [measurements.csv | DATA_DIR]
//   measurements.csv: columns gpu,rows,cols,latency_us (fp16). DATA_DIR (default $SYNPERF_DATA, else ../shared/data
//   beside the project): Vidur's LayerNorm, vidur/compute/<gpu>/microsoft__phi-2__mlp.csv. None: exits 77 (skipped).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <synperf/cost/mlp_cost.hpp>
#include <synperf/predictor/predictor.hpp>
#include <synperf/train/efficiency_model.hpp>  // target synperf::train
#include <synperf/train/evaluation.hpp>
#include <synperf/train/metrics.hpp>

#include "layernorm/layernorm_family.hpp"

#ifndef SYNPERF_SOURCE_DIR
#define SYNPERF_SOURCE_DIR "."
#endif

int main(int argc, char** argv) {
    using namespace synperf;
    const char* env = std::getenv("SYNPERF_DATA");
    const std::filesystem::path data = argc > 1 ? argv[1] : env && *env ? env : SYNPERF_SOURCE_DIR "/../shared/data";
    try {
        const train::family_source layernorm = train::source_of<my::layernorm>();
        std::vector<std::string> notes;
        const std::vector<train::sample> samples = layernorm.load(data, layernorm.protocol(), work::every_kernel_kind(), notes);
        if (samples.empty()) return std::printf("SKIPPED: no LayerNorm measurements in %s\n", data.c_str()), 77;
        train::train_options options = train::options_for(layernorm);
        options.hidden = {64, 32};  // a few hundred rows: a small network, small batches, trained in a second
        options.batch = 256;
        options.max_epochs = 300;
        options.early_stop = 60;
        options.lr_patience = 25;
        options.verbose = false;
        train::evaluation held_out;  // by (GPU, framework)
        for (const train::protocol_fold& fold : train::protocol_folds(layernorm)) {
            const auto rows = train::training_rows_of(samples, [&fold](const train::sample& s) { return fold.fits_on(s); });
            if (rows.train.empty() || rows.validation.empty()) continue;
            const mlp::network net = train::train_efficiency_model(layernorm, rows.train, rows.validation, options);
            train::evaluate_fold(layernorm, fold, net, "layernorm without " + fold.held_out_gpu, samples, held_out);
        }
        for (const auto& [gpu_framework, r] : held_out)
            std::printf("%-9s %4zu rows, trained without it: MAPE %5.1f %% (roofline %5.1f %%, linear %5.1f %%)\n",
                        gpu_framework.first.c_str(), r.measured.size(), train::summarize(r.predicted, r.measured).mape,
                        train::summarize(r.roofline, r.measured).mape, train::summarize(r.linear, r.measured).mape);
        // The model to use, trained on every GPU's measurements, on a GPU nobody measured.
        const auto all = train::training_rows_of(samples, [](const train::sample&) { return true; });
        const cost::mlp_cost model(train::train_efficiency_model(layernorm, all.train, all.validation, options));
        const prediction p = runtime_predictor<my::layernorm>(gpu::find_gpu("h200_sxm").numbers, model).predict({3000, 2560}, "torch");
        std::printf("h200_sxm, 3000 x 2560: %.2f us (bound %.2f us, efficiency %.2f)\n", p.latency_us, p.theoretical_us, p.efficiency);
        return std::isfinite(p.latency_us) && p.latency_us >= p.theoretical_us ? 0 : 1;
    } catch (const synperf::error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
