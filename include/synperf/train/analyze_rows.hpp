// SPDX-License-Identifier: Apache-2.0
#pragma once
/// \file Measured rows to samples: each row analyzed on its GPU's numbers, rows in parallel, order kept.
///
/// What every training source's `load` does between reading its rows and returning their samples.
#include <cstddef>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "synperf/gpu/numbers.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/train/sample.hpp"

namespace synperf::train {

/// The numbers of every GPU the measured `rows` name (each row's `gpu`), looked up once per GPU before the rows
/// are analyzed in parallel.
template <class Rows>
[[nodiscard]] std::map<std::string, gpu::gpu_numbers> gpu_numbers_of(const Rows& rows) {
    std::map<std::string, gpu::gpu_numbers> numbers;
    for (const auto& r : rows)
        if (!numbers.contains(r.gpu)) numbers.emplace(r.gpu, gpu::find_gpu(r.gpu).numbers);
    return numbers;
}

/// Calls `analyze_one(i)` for every i below `count`, on two threads when there are enough rows to pay for them;
/// the first exception is rethrown once both are done.
inline void parallel_for(std::size_t count, const std::function<void(std::size_t)>& analyze_one) {
    constexpr std::size_t workers = 2;  // the reference machine has two cores
    if (count < 1000) {
        for (std::size_t i = 0; i < count; ++i) analyze_one(i);
        return;
    }
    std::exception_ptr failure;
    std::mutex failure_lock;
    std::vector<std::thread> threads;
    for (std::size_t w = 0; w < workers; ++w)
        threads.emplace_back([&, w] {
            try {
                for (std::size_t i = w; i < count; i += workers) analyze_one(i);
            } catch (...) {
                const std::lock_guard<std::mutex> hold(failure_lock);
                if (!failure) failure = std::current_exception();
            }
        });
    for (auto& t : threads) t.join();
    if (failure) std::rethrow_exception(failure);
}

/// One sample per row, in row order: `fill(row, numbers, sample)` analyzes a row on its GPU's numbers.
template <class Row, class Fill>
[[nodiscard]] std::vector<sample> analyze_rows(const std::vector<Row>& rows, Fill&& fill) {
    const std::map<std::string, gpu::gpu_numbers> numbers = gpu_numbers_of(rows);
    std::vector<sample> out(rows.size());
    parallel_for(rows.size(), [&](std::size_t i) { fill(rows[i], numbers.at(rows[i].gpu), out[i]); });
    return out;
}

/// Removes the samples a loader left without a GPU name (rows its decomposer could not plan) and notes how many,
/// followed by `why` ("whose config needs ...").
inline void drop_unplanned(std::vector<sample>& out, std::vector<std::string>& notes, std::string_view why) {
    const std::size_t before = out.size();
    std::erase_if(out, [](const sample& s) { return s.gpu.empty(); });
    if (out.size() != before) notes.push_back("excluded " + std::to_string(before - out.size()) + " rows " + std::string(why));
}

}  // namespace synperf::train
