// SPDX-License-Identifier: Apache-2.0
// The all-reduce family for `synperf train` / `synperf eval`: aiconfigurator*/<gpu>/custom_allreduce_perf.csv
// (TRT-LLM AUTO, SGLang custom all-reduce), aiconfigurator/<gpu>/nccl_perf.csv (nccl-tests), PipeWeave
// collective/ and Vidur network/ (torch.distributed).
#include <map>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <synperf/data/allreduce_rows.hpp>
#include <synperf/family/allreduce.hpp>
#include <synperf/gpu/registry.hpp>
#include <synperf/predictor/predictor.hpp>

#include "synperf/family_tool.hpp"

namespace synperf::cli {
namespace {

std::vector<sample> load_allreduce(const std::filesystem::path& dir, const data::protocol& proto,
                                   const work::kernel_kind_set& priced, std::vector<std::string>& notes) {
    data::collective_exclusions skipped;
    const std::vector<data::measured_collective> rows = data::read_allreduce_rows(dir, &skipped);
    if (skipped.alltoall > 0)
        notes.push_back(fmt::format("{} nccl-tests alltoall rows left out (all-to-all is not modelled)", skipped.alltoall));
    if (skipped.multi_node > 0)
        notes.push_back(fmt::format("{} profiled all-reduce rows spanning several nodes left out (inter-node network not modelled)",
                                    skipped.multi_node));
    const std::map<std::string, gpu::gpu_numbers> numbers = gpu_numbers_of(rows);
    std::vector<sample> out(rows.size());
    parallel_for(rows.size(), [&](std::size_t i) {
        const data::measured_collective& r = rows[i];
        const gpu::gpu_numbers& g = numbers.at(r.gpu);
        prediction p = predictor_detail::analyze<family::allreduce>(r.problem, g, predictor_detail::schedule_by_dispatch{}, priced);
        const family::allreduce_estimate e = family::estimate(r.problem);
        sample& s = out[i];
        s.gpu = r.gpu;
        s.framework = r.collector;
        s.kernel = std::string(family::to_string(e.policy));
        s.take_analysis(std::move(p));
        s.level = static_cast<std::size_t>(r.problem.implementation);
        s.latency_us = r.latency_us;
        s.roofline_us = e.policy_us;  // the pure alpha-beta model of the algorithm the implementation runs
        s.label = proto.label(r.gpu);
        s.part = data::part_of(r.shape_hash);
        s.key = {static_cast<std::int64_t>(r.problem.op), r.problem.gpus, r.problem.bytes,
                 static_cast<std::int64_t>(r.problem.implementation), static_cast<std::int64_t>(r.problem.dtype),
                 static_cast<std::int64_t>(r.latency_us * 1e3)};
        s.key_size = 6;
    });
    return out;
}

}  // namespace

family_tool allreduce_family_tool() {
    family_tool t = family_tool_of<family::allreduce>(
        "all-reduce / all-gather / reduce-scatter in one node (custom_allreduce_perf, nccl_perf, PipeWeave, Vidur)",
        "data=aiconfigurator(Apache-2.0) custom_allreduce_perf+nccl_perf, pipeweave(Apache-2.0) collective, vidur(MIT) network");
    t.protocol = data::allreduce_protocol;
    t.load = load_allreduce;
    return t;
}

}  // namespace synperf::cli
