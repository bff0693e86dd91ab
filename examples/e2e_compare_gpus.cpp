// SPDX-License-Identifier: Apache-2.0
// One LLM serving batch on several GPUs with the end-to-end API: prefill, median decode step, total and
// memory per GPU. Runs on the embedded shipped weights, so it needs no data directory.
//
// Usage: example_e2e_compare_gpus [gpu.spec]   (a spec file adds a GPU of your own to the comparison; without
//        one, a hypothetical H100 with 8 TB/s DRAM, written in the same spec format, is used)
#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include <synperf.hpp>
#include <synperf/e2e.hpp>
#include <synperf/e2e/shipped_models.hpp>  // the embedded weights of every family (opt-in)
#include <synperf/system/catalogue.hpp>

namespace {

/// A what-if GPU in the spec-file format (docs/gpus.md §5): an H100 SXM with HBM3e-class bandwidth.
constexpr const char* hypothetical_spec = R"(name = h100_sxm_8tbs
display_name = Hypothetical H100 SXM with 8 TB/s DRAM
base = h100_sxm
dram_gbps = 8000
)";

struct gpu_entry {
    synperf::gpu::runtime_gpu gpu;
    bool from_catalogue = true;  ///< a catalogue GPU has a built-in node; a spec-file GPU gets one from its numbers
};

}  // namespace

int main(int argc, char** argv) {
    using namespace synperf;
    try {
        std::vector<gpu_entry> gpus;
        for (const char* name : {"h100_sxm", "h200_sxm", "b200_sxm"}) gpus.push_back({gpu::find_gpu(name), true});
        gpus.push_back({argc > 1 ? gpu::load_gpu_spec(argv[1]) : gpu::parse_gpu_spec(hypothetical_spec, "hypothetical_spec"), false});

        // Llama-3.1-70B on 8 GPUs (tensor parallel) under SGLang: 8 prompts of mixed length, 128 decode steps.
        e2e::run_request r;
        r.model = e2e::find_model("llama-3.1-70b");
        r.deploy.tp = 8;
        r.deploy.fw = e2e::framework::sglang;
        r.prompt_lens = {1024, 1536, 2048, 2048, 3072, 3072, 4096, 4096};
        r.decode_steps = 128;
        std::int64_t prompt_tokens = 0;
        for (auto n : r.prompt_lens) prompt_tokens += n;
        std::printf("%s, TP %d, SGLang: %zu requests, %lld prompt tokens, %lld decode steps\n\n", r.model.name.c_str(),
                    r.deploy.tp, r.prompt_lens.size(), static_cast<long long>(prompt_tokens),
                    static_cast<long long>(r.decode_steps));
        std::printf("%-16s %-9s %12s %18s %11s %20s\n", "gpu", "attention", "prefill ms", "decode median ms", "total ms",
                    "memory per GPU (GB)");

        const e2e::family_models models = e2e::shipped_models();
        for (const gpu_entry& e : gpus) {
            const gpu::gpu_numbers& g = e.gpu.numbers;
            // Collectives run on the GPU's node: the catalogue's, or an 8-GPU NVSwitch node from the spec's numbers.
            r.deploy.node = e.from_catalogue ? system::builtin_system(e.gpu.name)
                                             : system::make_system(e.gpu.name, g, 8,
                                                                   g.nvlink_gbps > 0 ? system::topology::nvswitch : system::topology::pcie);
            e2e::kernel_estimator est(g, models);
            const e2e::run_result res = e2e::run(r, est);
            std::printf("%-16s %-9s %12.2f %18.3f %11.1f %10.1f of %5.1f\n", e.gpu.name.c_str(),
                        std::string(family::attention::to_string(e2e::default_attention(r.deploy.fw, g))).c_str(),
                        res.prefill_ms, res.decode_median_ms, res.total_ms, res.memory.total / 1e9, res.memory.capacity / 1e9);
            if (!(res.prefill_ms > 0) || !(res.decode_median_ms > 0) || !(res.total_ms > res.prefill_ms)) return 1;
        }
    } catch (const std::exception& ex) {
        std::fprintf(stderr, "%s\n", ex.what());
        return 1;
    }
    return 0;
}
