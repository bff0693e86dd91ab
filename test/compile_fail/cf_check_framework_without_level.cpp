// SPDX-License-Identifier: Apache-2.0
// expect: F::check_framework takes \(problem, level, framework\)
// A family whose framework check still takes (problem, framework) would be skipped silently: the predictor passes the
// parsed level as well, so the old form must not compile.
#include <string_view>

#include <synperf/cost/roofline_cost.hpp>
#include <synperf/family/allreduce.hpp>
#include <synperf/gpu/registry.hpp>
#include <synperf/predictor/predictor.hpp>
#include <synperf/system/catalogue.hpp>

struct allreduce_with_old_check : synperf::family::allreduce {
    static void check_framework(const synperf::family::allreduce_problem&, std::string_view) {}
};

int main() {
    namespace fam = synperf::family;
    const synperf::gpu::runtime_gpu h100 = synperf::gpu::find_gpu("h100_sxm");
    const synperf::runtime_predictor<allreduce_with_old_check, synperf::cost::roofline_cost> p(h100.numbers, {});
    const fam::allreduce_problem problem{synperf::system::builtin_system("h100_sxm"), fam::collective_op::all_reduce, 1 << 20,
                                         fam::collective_dtype::bf16, 8, fam::collective_impl::nccl};
    return p.predict(problem, "nccl").latency_us > 0 ? 0 : 1;
}
