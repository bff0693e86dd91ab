// SPDX-License-Identifier: Apache-2.0
// Correct a model's predictions with a few of your own measurements: fit on 10 measured GEMMs of an H200
// (bench/measure/h200_sxm/gemm_bf16.csv, timed through PyTorch, a loop unlike the collectors' the model learned
// from), then compare the model and the calibrated model on the other rows of that file.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <synperf.hpp>
#include <synperf/data/csv.hpp>
#include <synperf/models.hpp>  // the shipped weights (synperf::models), generated at build time

int main() {
    using namespace synperf;
    const data::csv_table measured = data::csv_table::load(std::string(SYNPERF_SOURCE_DIR) + "/bench/measure/h200_sxm/gemm_bf16.csv");
    const std::size_t m = measured.column("m"), n = measured.column("n"), k = measured.column("k"),
                      us = measured.column("measured_us");
    const runtime_predictor<family::gemm> h200(gpu::find_gpu("h200_sxm").numbers);  // the shipped weights

    std::vector<double> predicted, times;
    for (std::size_t r = 0; r < measured.rows(); ++r) {
        const family::gemm_problem shape{measured.positive_integer(r, m), measured.positive_integer(r, n),
                                         measured.positive_integer(r, k)};
        predicted.push_back(h200.predict(shape, "trtllm").latency_us);
        times.push_back(measured.time_us(r, us, 1.0));
    }

    constexpr std::size_t fitted = 10;
    const calibration_fit fit = fit_latency_calibration(std::span(predicted).first(fitted), std::span(times).first(fitted));
    std::printf("fit on %zu rows: form %s, model MAPE %.1f %%, leave-one-out after %.1f %%\n", fit.rows,
                std::string(to_string(fit.calibration.form)).c_str(), fit.mape_before, fit.loo_mape_after);

    double model_error = 0, calibrated_error = 0;
    for (std::size_t r = fitted; r < predicted.size(); ++r) {
        model_error += std::abs(predicted[r] / times[r] - 1.0);
        calibrated_error += std::abs(fit.calibration.apply(predicted[r]) / times[r] - 1.0);
    }
    const double rest = double(predicted.size() - fitted);
    std::printf("the other %zu rows: model MAPE %.1f %%, calibrated %.1f %%\n", predicted.size() - fitted,
                100.0 * model_error / rest, 100.0 * calibrated_error / rest);
    return 0;
}
