// SPDX-License-Identifier: Apache-2.0
// Attention families: problem checks, the backend policy, pre-processing launches, the decode bound's
// shape in KV length, prefill features on every catalogue GPU, and the predictor's run-time dispatch check.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "synperf/cost/roofline_cost.hpp"
#include "synperf/data/attention_rows.hpp"
#include "synperf/error.hpp"
#include "synperf/family.hpp"
#include "synperf/family/attention.hpp"
#include "synperf/gpu/registry.hpp"
#include "synperf/hw/catalogue.hpp"
#include "synperf/predictor/predictor.hpp"
#include "synperf/scheduler/min_heap_persistent.hpp"
#include "synperf/scheduler/run.hpp"

namespace {

namespace at = synperf::family::attention;
using synperf::family::attention_decode;
using synperf::family::attention_prefill;

at::attention_problem prefill(at::framework f, std::int64_t batch, std::int64_t isl, int heads = 32, int kv_heads = 8, int d = 128) {
    at::attention_problem p;
    p.stage = at::phase::prefill;
    p.requests = at::uniform_batch(batch, isl, isl);
    p.heads = heads;
    p.kv_heads = kv_heads;
    p.head_dim = d;
    p.backend = f;
    return p;
}

at::attention_problem decode(at::framework f, std::int64_t batch, std::int64_t kv, int heads = 32, int kv_heads = 8, int d = 128) {
    at::attention_problem p;
    p.stage = at::phase::decode;
    p.causal = false;
    p.requests = at::uniform_batch(batch, 1, kv);
    p.heads = heads;
    p.kv_heads = kv_heads;
    p.head_dim = d;
    p.backend = f;
    return p;
}

synperf::gpu::gpu_numbers gpu(std::string_view name) { return synperf::gpu::find_gpu(name).numbers; }

/// Decompose, schedule each kernel by its dispatch kind, analyze: the theoretical time and the features.
template <class F>
synperf::prediction analyze(const at::attention_problem& p, const synperf::gpu::gpu_numbers& g) {
    return synperf::predictor_detail::analyze<F>(p, g, synperf::predictor_detail::schedule_by_dispatch{});
}

/// Position of a feature in family F's inputs.
template <class F>
std::size_t feature_index(std::string_view name) {
    const auto it = std::find(F::feature_names.begin(), F::feature_names.end(), name);
    REQUIRE(it != F::feature_names.end());
    return static_cast<std::size_t>(it - F::feature_names.begin());
}

}  // namespace

TEST_CASE("attention: device_bytes is Q, O and the requests' K and V in the cache") {
    // Decode, 4 requests of 1000 cached tokens, 32 query / 8 KV heads of 128: Q and O 4 x 32 x 256 x 2 B, K and V
    // 4000 x 8 x 256 x 2 B (bf16 cache), 1 B per element in FP8.
    at::attention_problem p = decode(at::framework::sglang, 4, 1000);
    CHECK(attention_decode::device_bytes(p) == 4.0 * 32 * 256 * 2 + 4000.0 * 8 * 256 * 2);
    p.kv_type = at::kv_dtype::fp8;
    CHECK(attention_decode::device_bytes(p) == 4.0 * 32 * 256 * 2 + 4000.0 * 8 * 256);
    // Prefill, 2 prompts of 512: the cache holds the prompts' K and V.
    const at::attention_problem q = prefill(at::framework::sglang, 2, 512);
    CHECK(attention_prefill::device_bytes(q) == 1024.0 * 32 * 256 * 2 + 1024.0 * 8 * 256 * 2);
}

TEST_CASE("attention: invalid problems give clear errors") {
    const auto h100 = gpu("h100_sxm");
    SUBCASE("heads not divisible by KV heads") {
        auto p = prefill(at::framework::sglang, 1, 128, 30, 8);
        CHECK_THROWS_WITH_AS(attention_prefill::plan(p, h100), doctest::Contains("multiple of kv_heads"), synperf::invalid_argument);
    }
    SUBCASE("zero lengths") {
        auto p = prefill(at::framework::sglang, 1, 128);
        p.requests = at::uniform_batch(1, 0, 0);
        CHECK_THROWS_WITH_AS(attention_prefill::plan(p, h100), doctest::Contains("query length must be in 1..2^24, got 0"),
                             synperf::invalid_argument);
        auto d = decode(at::framework::sglang, 4, 0);
        CHECK_THROWS_WITH_AS(attention_decode::plan(d, h100), doctest::Contains("KV length"), synperf::invalid_argument);
    }
    SUBCASE("a window beyond any request's length") {
        auto p = prefill(at::framework::sglang, 1, 128);
        for (std::int64_t w : {std::int64_t{-3}, (std::int64_t{1} << 24) + 1, std::numeric_limits<std::int64_t>::max()}) {
            p.window = w;
            CHECK_THROWS_WITH_AS(attention_prefill::plan(p, h100), doctest::Contains("window must be in 0..2^24 tokens (0: none)"),
                                 synperf::invalid_argument);
        }
    }
    SUBCASE("values outside the enumerations") {
        auto p = prefill(at::framework::sglang, 1, 128);
        p.kv_type = static_cast<at::kv_dtype>(9);
        CHECK_THROWS_WITH_AS(attention_prefill::plan(p, h100), doctest::Contains("unknown KV-cache dtype 9"), synperf::invalid_argument);
        p = prefill(at::framework::sglang, 1, 128);
        p.backend = static_cast<at::framework>(9);
        CHECK_THROWS_WITH_AS(attention_prefill::plan(p, h100), doctest::Contains("unknown framework 9"), synperf::invalid_argument);
        p = prefill(at::framework::sglang, 1, 128);
        p.kernel = static_cast<at::kernel_impl>(42);
        CHECK_THROWS_WITH_AS(attention_prefill::plan(p, h100), doctest::Contains("unknown kernel 42"), synperf::invalid_argument);
    }
    SUBCASE("mismatched ragged lists") {
        CHECK_THROWS_WITH_AS((void)at::ragged_batch({10, 20}, {10}), doctest::Contains("2 query lengths but 1 KV lengths"),
                             synperf::invalid_argument);
    }
    SUBCASE("decode with more than one query token") {
        auto p = decode(at::framework::trtllm, 2, 100);
        p.requests = at::uniform_batch(2, 4, 100);
        CHECK_THROWS_WITH_AS(attention_decode::plan(p, h100), doctest::Contains("one query token per request, got 4"),
                             synperf::invalid_argument);
    }
    SUBCASE("FP8 math or FP8 inputs without an FP8 cache") {
        auto p = prefill(at::framework::trtllm, 1, 128);
        p.fp8_compute = true;
        CHECK_THROWS_WITH_AS(attention_prefill::plan(p, h100), doctest::Contains("fp8 attention math needs an fp8 KV cache"),
                             synperf::invalid_argument);
        p.fp8_compute = false;
        p.fp8_inputs = true;
        CHECK_THROWS_WITH_AS(attention_prefill::plan(p, h100), doctest::Contains("fp8 inputs (q, k, v) need an fp8 KV cache"),
                             synperf::invalid_argument);
    }
    SUBCASE("phase does not match the family") {
        CHECK_THROWS_WITH_AS(attention_decode::plan(prefill(at::framework::sglang, 1, 64), h100),
                             doctest::Contains("expected a decode problem, got prefill"), synperf::invalid_argument);
    }
    SUBCASE("forced kernel unsupported on the GPU") {
        auto p = prefill(at::framework::sglang, 1, 512);
        p.kernel = at::kernel_impl::fa3;  // FA3 has no sm_100 path
        CHECK_THROWS_WITH_AS(attention_prefill::plan(p, gpu("b200_sxm")),
                             doctest::Contains("kernel fa3 does not support prefill"), synperf::invalid_argument);
        try {
            (void)attention_prefill::plan(p, gpu("b200_sxm"));
        } catch (const synperf::invalid_argument& e) {
            const std::string what = e.what();
            CHECK(what.find("sm_100") != std::string::npos);
            CHECK(what.find("implementations that do:") != std::string::npos);
            CHECK(what.find("trtllm") != std::string::npos);
            CHECK(what.find("triton") != std::string::npos);
        }
        auto q = prefill(at::framework::trtllm, 1, 512);
        q.kv_type = at::kv_dtype::fp8;
        q.fp8_compute = true;  // FP8 math needs an FP8 tensor rate: A100 has none
        q.kernel = at::kernel_impl::triton;
        CHECK_THROWS_WITH_AS(attention_prefill::plan(q, gpu("a100_sxm")), doctest::Contains("kernel triton does not support"),
                             synperf::invalid_argument);
        q.kernel = at::kernel_impl::automatic;
        CHECK_THROWS_WITH_AS(attention_prefill::plan(q, gpu("a100_sxm")), doctest::Contains("framework trtllm has no kernel"),
                             synperf::invalid_argument);
    }
}

TEST_CASE("attention: the backend policy picks the data's kernels") {
    const auto pick = [](at::framework f, std::string_view g, at::phase ph) {
        auto p = ph == at::phase::prefill ? prefill(f, 2, 256) : decode(f, 8, 1024);
        return at::plan_attention(p, gpu(g)).implementation;
    };
    for (const at::phase ph : {at::phase::prefill, at::phase::decode}) {
        CAPTURE(at::to_string(ph));
        CHECK(pick(at::framework::sglang, "h100_sxm", ph) == at::kernel_impl::fa3);
        CHECK(pick(at::framework::sglang, "h200_sxm", ph) == at::kernel_impl::fa3);
        CHECK(pick(at::framework::sglang, "a100_sxm", ph) == at::kernel_impl::fa3);
        CHECK(pick(at::framework::sglang, "l40s", ph) == at::kernel_impl::fa3);
        CHECK(pick(at::framework::sglang, "b200_sxm", ph) == at::kernel_impl::trtllm);
        CHECK(pick(at::framework::sglang, "gb300", ph) == at::kernel_impl::trtllm);
        CHECK(pick(at::framework::sglang, "rtx_pro_6000_server", ph) == at::kernel_impl::triton);
        for (const char* g : {"a100_sxm", "l40s", "h100_sxm", "b200_sxm", "b300_sxm", "rtx_pro_6000_server"})
            CHECK(pick(at::framework::trtllm, g, ph) == at::kernel_impl::trtllm);
        CHECK(pick(at::framework::vllm, "h100_sxm", ph) == at::kernel_impl::fa3);
        CHECK(pick(at::framework::vllm, "b200_sxm", ph) == at::kernel_impl::flashinfer);
    }
    // A forced kernel wins over the policy when it supports the problem.
    auto p = prefill(at::framework::sglang, 2, 256);
    p.kernel = at::kernel_impl::triton;
    CHECK(at::plan_attention(p, gpu("h100_sxm")).implementation == at::kernel_impl::triton);
}

TEST_CASE("attention: SGLang rows whose collector casts q, k and v to FP8 with an FP8 cache read as FP8 inputs") {
    namespace fs = std::filesystem;
    const fs::path file = fs::temp_directory_path() / "synperf_sglang_attention_rows_test.csv";
    const auto read = [&](const std::string& text, const std::string& g, at::phase ph) {
        std::FILE* f = std::fopen(file.string().c_str(), "wb");
        REQUIRE(f != nullptr);
        std::fputs(text.c_str(), f);
        std::fclose(f);
        std::vector<synperf::data::measured_attention> rows;
        synperf::data::attention_exclusions skipped;
        synperf::data::read_attention_file(file, g, true, ph, rows, skipped);
        std::vector<bool> fp8_inputs;
        for (const auto& r : rows) fp8_inputs.push_back(r.problem.fp8_inputs);
        return fp8_inputs;
    };
    const std::string header = "kernel_source,batch_size,isl,num_heads,num_key_value_heads,head_dim,beam_width,attn_dtype,kv_cache_dtype,step";
    const std::string context = header + ",latency\n"
                                "trtllm_mha,2,1024,32,8,128,1,bfloat16,bfloat16,0,0.05\n"
                                "trtllm_mha,2,1024,32,8,128,1,bfloat16,fp8,0,0.05\n"
                                "trtllm_mha,2,1024,32,8,128,1,fp8,fp8,0,0.05\n";
    // The SGLang 0.5.10 collector (GB200, H100, ...) casts whenever the cache is FP8, in both phases.
    CHECK(read(context, "gb200", at::phase::prefill) == std::vector<bool>{false, true, true});
    CHECK(read(header + ",latency\ntrtllm_mha,8,1,32,8,128,1,bfloat16,fp8,1023,0.02\n", "gb200", at::phase::decode) ==
          std::vector<bool>{true});
    // RTX PRO 6000's and B200's later collections (B200's added window_size) cast for FP8 context FMHA only.
    CHECK(read(context, "rtx_pro_6000_server", at::phase::prefill) == std::vector<bool>{false, false, true});
    const std::string windowed = header + ",window_size,latency\n"
                                 "trtllm_mha,2,1024,32,8,128,1,bfloat16,fp8,0,128,0.05\n"
                                 "trtllm_mha,2,1024,32,8,128,1,fp8,fp8,0,128,0.05\n";
    CHECK(read(windowed, "b200_sxm", at::phase::prefill) == std::vector<bool>{false, true});
    fs::remove(file);
}

TEST_CASE("attention: A100's TensorRT-LLM decode rows read V from K's blocks (a K-only cache), the others do not") {
    namespace fs = std::filesystem;
    const fs::path file = fs::temp_directory_path() / "synperf_trtllm_attention_rows_test.csv";
    {
        std::FILE* f = std::fopen(file.string().c_str(), "wb");
        REQUIRE(f != nullptr);
        std::fputs("kernel_source,batch_size,num_heads,num_key_value_heads,head_dim,window_size,kv_cache_dtype,step,latency\n"
                   "torch_flow,16,32,8,128,0,bfloat16,32767,0.677\n",
                   f);
        std::fclose(f);
    }
    const auto aliased = [&](const std::string& g) {
        std::vector<synperf::data::measured_attention> rows;
        synperf::data::attention_exclusions skipped;
        synperf::data::read_attention_file(file, g, false, at::phase::decode, rows, skipped);
        REQUIRE(rows.size() == 1);
        return rows[0].problem;
    };
    const at::attention_problem a100 = aliased("a100_sxm"), h100 = aliased("h100_sxm");
    CHECK(a100.v_aliases_k);
    CHECK_FALSE(h100.v_aliases_k);
    fs::remove(file);
    // Only K's bytes are unique: the KV footprint halves, Q and O stay.
    const at::op_bytes full = at::compulsory_bytes(h100), k_only = at::compulsory_bytes(a100);
    CHECK(k_only.kv == doctest::Approx(full.kv / 2));
    CHECK(k_only.q == doctest::Approx(full.q));
    CHECK(k_only.o == doctest::Approx(full.o));
    CHECK(at::plan_attention(a100, gpu("a100_sxm")).kv_footprint_bytes == doctest::Approx(k_only.kv));
    at::attention_problem mla = a100;
    mla.v_head_dim = 64;
    CHECK_THROWS_WITH_AS(at::validate(mla), doctest::Contains("V's head dim equal to K's"), synperf::invalid_argument);
}

TEST_CASE("attention: over a K-only cache, MMHA's second pass re-reads K from DRAM unless the resident chunks fit in L2") {
    const auto a100 = gpu("a100_sxm");
    const auto kv_bytes = [&](at::attention_problem p, bool aliased) {
        p.v_aliases_k = aliased;
        const at::attention_plan plan = at::plan_attention(p, a100);
        const auto& k = plan.kernels.front();
        REQUIRE(k.compulsory.has_value());
        return std::pair{k.name, k.compulsory->dram_bytes + k.compulsory->l2_bytes};
    };
    // Plain MHA runs MMHA. 16 requests x 32 heads of 16k tokens: the resident CTAs' chunks of K far exceed
    // A100's 40 MB L2, so V's reads, though they alias K's blocks, cost what a separate V would.
    const at::attention_problem long_mha = decode(at::framework::trtllm, 16, 16384, 32, 32);
    const auto [mmha, aliased_long] = kv_bytes(long_mha, true);
    CHECK(mmha.find("masked_multihead_attention") == 0);
    CHECK(aliased_long == doctest::Approx(kv_bytes(long_mha, false).second));
    // One short request: its chunks fit, the second pass hits L2 and only K's bytes are compulsory.
    const at::attention_problem short_mha = decode(at::framework::trtllm, 1, 256, 32, 32);
    const double kv = 256.0 * 32 * 128 * 2;
    CHECK(kv_bytes(short_mha, false).second - kv_bytes(short_mha, true).second == doctest::Approx(kv));
    // 64 query heads over one KV head (beyond XQA's groups: MMHA). The grid runs the heads fastest, so the 216
    // resident CTAs (2 per SM) read about 3.4 distinct chunks of 4 MiB: they fit in L2 and V's reads hit.
    const at::attention_problem wide_group = decode(at::framework::trtllm, 16, 16384, 64, 1);
    const auto [mmha_group, aliased_group] = kv_bytes(wide_group, true);
    CHECK(mmha_group.find("masked_multihead_attention") == 0);
    CHECK(kv_bytes(wide_group, false).second - aliased_group == doctest::Approx(16.0 * 16384 * 128 * 2));
    // XQA (GQA 32 / 8) reads a tile's K and V back to back: the aliased reads hit however long the cache.
    const at::attention_problem long_gqa = decode(at::framework::trtllm, 16, 16384, 32, 8);
    const auto [xqa, aliased_gqa] = kv_bytes(long_gqa, true);
    CHECK(xqa.find("xqa") == 0);
    CHECK(kv_bytes(long_gqa, false).second - aliased_gqa == doctest::Approx(16.0 * 16384 * 8 * 128 * 2));
}

TEST_CASE("attention: pre-processing kernels are separate launches") {
    SUBCASE("TensorRT-LLM: fused QKV RoPE + KV write after the attention kernels") {
        for (const char* g : {"h100_sxm", "b200_sxm", "l40s", "rtx_pro_6000_server"}) {
            CAPTURE(g);
            auto p = prefill(at::framework::trtllm, 4, 1000);
            const at::attention_plan with = at::plan_attention(p, gpu(g));
            REQUIRE(with.kernels.size() == with.attention_kernels + 1);
            const auto& pre = with.kernels.back();
            CHECK(pre.name.find("applyBiasRopeUpdateKVCache") != std::string::npos);
            CHECK(pre.dispatch == synperf::work::dispatch_kind::hardware);
            REQUIRE(pre.compulsory.has_value());
            CHECK(pre.compulsory->fma_ops > 0);  // the rotation
            CHECK(pre.tasks.front().work.xu_ops > 0);  // sin / cos (task work: a table could replace them)
            // Bytes: read Q, K, V in bf16, write Q and the cache: 4000 tokens x (32 + 8 + 8) heads x 128 x 2 B x 2.
            CHECK(pre.compulsory->l2_bytes + pre.compulsory->dram_bytes == doctest::Approx(4000.0 * 48 * 128 * 4));
            p.preprocess = false;
            const at::attention_plan without = at::plan_attention(p, gpu(g));
            CHECK(without.kernels.size() == without.attention_kernels);
            CHECK(without.kernels.size() == with.attention_kernels);
        }
    }
    SUBCASE("SGLang: the KV store, with casts of K, V and the query for an FP8 cache") {
        const auto names = [](const at::attention_plan& plan) {
            std::vector<std::string> out;
            for (std::size_t i = plan.attention_kernels; i < plan.kernels.size(); ++i) out.push_back(plan.kernels[i].name);
            return out;
        };
        using names_t = std::vector<std::string>;
        auto p = decode(at::framework::sglang, 16, 2048);
        const at::attention_plan bf16 = at::plan_attention(p, gpu("h100_sxm"));
        CHECK(names(bf16) == names_t{"store_cache"});
        CHECK_FALSE(bf16.fp8_math);
        p.kv_type = at::kv_dtype::fp8;
        // FA3: K and V cast by torch, then stored; q cast for the FP8 kernel.
        const at::attention_plan fp8 = at::plan_attention(p, gpu("h100_sxm"));
        CHECK(names(fp8) == names_t{"torch_cast_k_to_fp8", "torch_cast_v_to_fp8", "torch_cast_q_to_fp8", "store_cache"});
        CHECK(fp8.fp8_math);
        // trtllm_mha: one fused cast-and-store kernel; its decode (XQA) keeps the bf16 query, prefill casts it.
        const at::attention_plan fused = at::plan_attention(p, gpu("b200_sxm"));
        CHECK(names(fused) == names_t{"fused_fp8_set_kv_buffer"});
        CHECK(fused.fp8_math);
        auto context = prefill(at::framework::sglang, 2, 256);
        context.kv_type = at::kv_dtype::fp8;
        CHECK(names(at::plan_attention(context, gpu("b200_sxm"))) == names_t{"torch_cast_q_to_fp8", "fused_fp8_set_kv_buffer"});
        // Inputs already in FP8: no casts; the fused kernel reads one byte per element.
        p.fp8_inputs = true;
        const at::attention_plan ready = at::plan_attention(p, gpu("b200_sxm"));
        CHECK(names(ready) == names_t{"fused_fp8_set_kv_buffer"});
        const double elements = 16.0 * 8 * 128 * 2;  // 16 new tokens, 8 KV heads, K and V
        CHECK(ready.kernels.back().compulsory->l2_bytes + ready.kernels.back().compulsory->dram_bytes ==
              doctest::Approx(elements * 2));  // read FP8, write FP8
        CHECK(fused.kernels.back().compulsory->l2_bytes + fused.kernels.back().compulsory->dram_bytes ==
              doctest::Approx(elements * 3));  // read bf16, write FP8
    }
    SUBCASE("SGLang picks the attention math from the KV cache (framework_fp8_math)") {
        auto p = prefill(at::framework::sglang, 1, 4096);
        p.kv_type = at::kv_dtype::fp8;
        // trtllm_mha and FA3 (sm_90) cast q to FP8: the MMAs run at the FP8 rate.
        for (std::string_view g : {"b200_sxm", "h100_sxm"}) {
            CAPTURE(g);
            const at::attention_problem run = at::effective_problem(p, gpu(g));
            CHECK(run.fp8_compute);
            auto bf16 = p;
            bf16.kv_type = at::kv_dtype::bf16;
            const auto fp8_plan = at::plan_attention(p, gpu(g));
            const auto bf16_plan = at::plan_attention(bf16, gpu(g));
            CHECK(fp8_plan.fp8_math);
            CHECK_FALSE(bf16_plan.fp8_math);
            for (const auto& c : fp8_plan.kernels.front().tasks)
                if (c.work.tensor_flop > 0) CHECK(c.work.tensor_type == synperf::gpu::tensor_dtype::fp8);
            for (const auto& c : bf16_plan.kernels.front().tasks)
                if (c.work.tensor_flop > 0) CHECK(c.work.tensor_type == synperf::gpu::tensor_dtype::bf16);
        }
        // Triton multiplies in the query's type: FP8 only when q arrives in FP8.
        const auto rtx = gpu("rtx_pro_6000_server");
        CHECK_FALSE(at::plan_attention(p, rtx).fp8_math);
        p.fp8_inputs = true;
        CHECK(at::plan_attention(p, rtx).fp8_math);
        // vLLM's FlashAttention backend quantizes q for FA3 on Hopper: FP8 math plus the quantize kernel.
        auto v = prefill(at::framework::vllm, 1, 4096);
        v.kv_type = at::kv_dtype::fp8;
        const at::attention_plan vllm_plan = at::plan_attention(v, gpu("h100_sxm"));
        CHECK(vllm_plan.implementation == at::kernel_impl::fa3);
        CHECK(vllm_plan.fp8_math);
        CHECK(vllm_plan.kernels.back().name == "scaled_fp8_quant_q");
        // TensorRT-LLM runs what the problem asks.
        auto t = p;
        t.backend = at::framework::trtllm;
        t.fp8_inputs = false;
        CHECK_FALSE(at::plan_attention(t, gpu("b200_sxm")).fp8_math);
        t.fp8_compute = true;
        CHECK(at::plan_attention(t, gpu("b200_sxm")).fp8_math);
        // No FP8 MMA (A100): SGLang's FP8 cache keeps 16-bit math.
        auto a = prefill(at::framework::sglang, 1, 4096);
        a.kv_type = at::kv_dtype::fp8;
        CHECK_FALSE(at::plan_attention(a, gpu("a100_sxm")).fp8_math);
    }
    SUBCASE("the pre-processing shows in the features") {
        const auto g = gpu("h100_sxm");
        auto p = prefill(at::framework::trtllm, 2, 512);
        const auto with = analyze<attention_prefill>(p, g);
        p.preprocess = false;
        const auto without = analyze<attention_prefill>(p, g);
        const auto index = [](std::string_view n) {
            for (std::size_t i = 0; i < attention_prefill::feature_count; ++i)
                if (attention_prefill::feature_names[i] == n) return i;
            return attention_prefill::feature_count;
        };
        CHECK(with.features[index("preprocess_ratio")] > 0);
        CHECK(without.features[index("preprocess_ratio")] == 0);
        CHECK(with.features[index("kernels")] == without.features[index("kernels")] + 1);
        CHECK(with.theoretical_us > without.theoretical_us);
    }
}

namespace {

/// A fixed efficiency from a model that records the auxiliary kernels it was trained with.
struct kind_recording_cost {
    double value = 0.5;
    synperf::work::kernel_kind_set kinds;
    [[nodiscard]] double efficiency(std::span<const double>, std::size_t) const { return value; }
    [[nodiscard]] const synperf::work::kernel_kind_set& trained_kernels() const noexcept { return kinds; }
};

}  // namespace

TEST_CASE("attention: a kernel of a kind the cost model was not trained with is priced apart, at its own floor") {
    // SGLang's Triton decode on RTX PRO 6000 with an FP8 cache: torch casts K and V, then the store.
    auto p = decode(at::framework::sglang, 8, 64);
    p.kv_type = at::kv_dtype::fp8;
    const auto g = gpu("rtx_pro_6000_server");
    const at::attention_plan plan = at::plan_attention(p, g);
    std::vector<std::string> kinds;
    for (const auto& k : plan.kernels) kinds.push_back(k.kind);
    REQUIRE(kinds == std::vector<std::string>{"", "", "fp8_cast", "fp8_cast", "kv_cache_store"});

    const synperf::prediction all = synperf::runtime_predictor<attention_decode, kind_recording_cost>(
                                        g, {0.5, synperf::work::kernel_kind_set{}})
                                        .predict(p, "sglang");
    const synperf::prediction without_casts = synperf::runtime_predictor<attention_decode, kind_recording_cost>(
                                                  g, {0.5, synperf::work::kernel_kind_set({"kv_cache_store"})})
                                                  .predict(p, "sglang");
    // Every kind: nothing apart, as a cost model without `trained_kernels`.
    CHECK(all.priced_apart_us == 0);
    CHECK(std::none_of(all.kernels.begin(), all.kernels.end(), [](const auto& k) { return k.priced_apart; }));
    const synperf::prediction roofline =
        synperf::runtime_predictor<attention_decode, synperf::cost::roofline_cost>(g, {}).predict(p, "sglang");
    CHECK(roofline.features == all.features);

    // The two casts are reported, marked, and priced at their own floor: a launch each (their work is far smaller).
    REQUIRE(without_casts.kernels.size() == 5);
    CHECK(without_casts.kernels[2].priced_apart);
    CHECK(without_casts.kernels[3].priced_apart);
    CHECK_FALSE(without_casts.kernels[4].priced_apart);
    CHECK_FALSE(without_casts.kernels[0].priced_apart);
    const double launch = synperf::work::back_to_back_launch_us(g);
    CHECK(without_casts.priced_apart_us == doctest::Approx(2 * launch));
    // The model sees the op without them: two kernels fewer, and a bound without theirs.
    const std::size_t n = feature_index<attention_decode>("kernels");
    CHECK(all.features[n] == 5);
    CHECK(without_casts.features[n] == 3);
    const double casts_bound = all.kernels[2].theoretical_us + all.kernels[3].theoretical_us;
    CHECK(without_casts.theoretical_us == doctest::Approx(all.theoretical_us - casts_bound));
    CHECK(without_casts.latency_us ==
          doctest::Approx(synperf::floored_latency_us(without_casts.theoretical_us, 0.5, without_casts.kernel_floor_us) +
                          without_casts.priced_apart_us));
    // An op that runs only trained kinds is priced as before.
    p.kv_type = at::kv_dtype::bf16;
    const synperf::prediction bf16 = synperf::runtime_predictor<attention_decode, kind_recording_cost>(
                                         g, {0.5, synperf::work::kernel_kind_set({"kv_cache_store"})})
                                         .predict(p, "sglang");
    CHECK(bf16.priced_apart_us == 0);
}

TEST_CASE("attention: a longest-first prefill grid is tallied by length, with the schedule of one class per block") {
    // TRT-LLM's Hopper context FMHA hands out query blocks longest first: its ragged grid becomes one class per
    // visited KV length. The schedule must equal the one of the grid listed block by block.
    const auto h100 = gpu("h100_sxm");
    at::attention_problem p = prefill(at::framework::trtllm, 1, 1, 40, 8);
    p.causal = true;
    const std::vector<std::int64_t> lens{2648, 3001, 3333, 3866, 700, 129};
    p.requests = at::ragged_batch(lens, lens);
    const at::attention_plan plan = attention_prefill::plan(p, h100);
    const synperf::work::kernel_launch& k = plan.kernels.front();
    REQUIRE(k.dispatch == synperf::work::dispatch_kind::persistent_longest_first);

    // The classes are the distinct visited lengths, longest first, each with all the blocks of that length.
    std::map<std::int64_t, std::int64_t, std::greater<>> blocks_of_length;
    for (const std::int64_t len : lens)
        for (std::int64_t m = 0; m * plan.tile_q < len; ++m)
            blocks_of_length[at::op_detail::visited_kv_tiles(p, len, len, m * plan.tile_q, plan.tile_q, plan.tile_kv)] += p.heads;
    REQUIRE(k.tasks.size() == blocks_of_length.size());
    std::map<std::int64_t, synperf::work::task_work> work_of_length;
    std::size_t i = 0;
    for (const auto& entry : blocks_of_length) {
        const std::int64_t tiles = entry.first;  // a named copy: CAPTURE's lambda cannot capture a structured binding in clang 14
        CAPTURE(tiles);
        CHECK(k.tasks[i].count == entry.second);
        work_of_length[tiles] = k.tasks[i++].work;
    }
    // The same grid listed block by block, each request from its last block, as the kernel hands them out.
    synperf::work::kernel_launch by_block = k;
    by_block.tasks.clear();
    for (const std::int64_t len : lens)
        for (std::int64_t m = (len + plan.tile_q - 1) / plan.tile_q - 1; m >= 0; --m)
            by_block.tasks.push_back(
                {work_of_length[at::op_detail::visited_kv_tiles(p, len, len, m * plan.tile_q, plan.tile_q, plan.tile_kv)], p.heads});
    const auto tallied = synperf::scheduler::schedule_launch(k, h100, true);
    const auto listed = synperf::scheduler::schedule_launch(by_block, h100, true);
    CHECK(tallied.makespan_cycles == doctest::Approx(listed.makespan_cycles).epsilon(1e-12));
    CHECK(tallied.sm_max.tensor_flop == doctest::Approx(listed.sm_max.tensor_flop).epsilon(1e-12));
    CHECK(tallied.sm_max.l2_bytes == doctest::Approx(listed.sm_max.l2_bytes).epsilon(1e-12));
    REQUIRE(tallied.per_sm.size() == listed.per_sm.size());
    for (std::size_t s = 0; s < tallied.per_sm.size(); ++s)
        CHECK(tallied.per_sm[s].tensor_flop == doctest::Approx(listed.per_sm[s].tensor_flop).epsilon(1e-12));
}

TEST_CASE("attention: the decode bound grows with KV length at DRAM speed") {
    for (const char* name : {"h100_sxm", "a100_sxm", "l40s", "b200_sxm", "rtx_pro_6000_server"}) {
        const auto g = gpu(name);
        for (const at::framework f : {at::framework::trtllm, at::framework::sglang}) {
            CAPTURE(name);
            CAPTURE(at::to_string(f));
            double last = 0;
            for (std::int64_t kv = 1; kv <= 131072; kv = kv * 3 / 2 + 1) {
                const double t = analyze<attention_decode>(decode(f, 64, kv), g).theoretical_us;
                CHECK(t >= last * (1 - 1e-12));
                last = t;
            }
            // 64 requests x 8 KV heads x 256 values x 2 B = 256 KiB per KV token: far beyond L2 at 64K tokens.
            const double t1 = analyze<attention_decode>(decode(f, 64, 65536), g).theoretical_us;
            const double t2 = analyze<attention_decode>(decode(f, 64, 131072), g).theoretical_us;
            const double bytes = 64.0 * 8 * 256 * 2 * 65536;
            const double expected = bytes / (g.dram_gbps * 1e3);
            CHECK((t2 - t1) == doctest::Approx(expected).epsilon(0.10));
        }
    }
}

TEST_CASE("attention: an op of tiny kernels is bounded by one launch floor per kernel") {
    for (const char* name : {"h100_sxm", "b200_sxm", "rtx_pro_6000_server", "a100_sxm"}) {
        const auto g = gpu(name);
        for (const at::framework f : {at::framework::trtllm, at::framework::sglang}) {
            CAPTURE(name);
            CAPTURE(at::to_string(f));
            at::attention_problem p = decode(f, 1, 2);
            const auto tiny = analyze<attention_decode>(p, g);
            CHECK(tiny.theoretical_us == doctest::Approx(synperf::work::back_to_back_launch_us(g) * double(tiny.kernels.size())));
            for (const auto& k : tiny.kernels) CHECK(k.bottleneck == "launch");
            const std::size_t launch_ratio = feature_index<attention_decode>("launch_ratio");
            CHECK(tiny.features[launch_ratio] == doctest::Approx(1.0));
            // A long KV cache leaves the floor far below the work.
            const auto big = analyze<attention_decode>(decode(f, 64, 65536), g);
            CHECK(big.features[launch_ratio] < 0.01);
        }
    }
}

TEST_CASE("attention: prefill and decode features are finite and non-negative on every catalogue GPU") {
    std::size_t planned = 0;
    for (const auto& gpu_entry : synperf::gpu::all_gpus()) {
        const auto& g = gpu_entry.numbers;
        for (const at::framework f : {at::framework::trtllm, at::framework::sglang, at::framework::vllm}) {
            std::vector<at::attention_problem> problems{prefill(f, 2, 1000), prefill(f, 1, 8192, 64, 8, 64),
                                                        prefill(f, 16, 128, 16, 16, 256), decode(f, 32, 4096),
                                                        decode(f, 1, 100, 40, 40, 128)};
            auto windowed = prefill(f, 4, 3000, 64, 8, 64);
            windowed.window = 128;
            problems.push_back(windowed);
            auto ragged = prefill(f, 1, 1);
            ragged.requests = at::ragged_batch({100, 700, 33}, {100, 900, 33});
            problems.push_back(ragged);
            auto fp8 = prefill(f, 2, 2048);
            fp8.kv_type = at::kv_dtype::fp8;
            fp8.fp8_compute = f == at::framework::trtllm;
            problems.push_back(fp8);
            for (const auto& p : problems) {
                CAPTURE(gpu_entry.name);
                CAPTURE(at::to_string(f));
                CAPTURE(at::to_string(p.stage));
                CAPTURE(p.head_dim);
                if (at::supporting_kernels(p, g).empty()) continue;
                std::vector<double> x;
                try {
                    x = p.stage == at::phase::prefill ? analyze<attention_prefill>(p, g).features
                                                      : analyze<attention_decode>(p, g).features;
                } catch (const synperf::invalid_argument& e) {
                    // Only "no kernel of this framework supports it" may be refused.
                    CHECK(std::string(e.what()).find("has no kernel") != std::string::npos);
                    continue;
                }
                ++planned;
                REQUIRE(x.size() == attention_prefill::feature_count);
                for (std::size_t i = 0; i < x.size(); ++i) {
                    CAPTURE(attention_prefill::feature_names[i]);
                    CHECK(std::isfinite(x[i]));
                    CHECK(x[i] >= 0);
                }
            }
        }
    }
    CHECK(planned > 300);
}

TEST_CASE("attention: the plan's compulsory work is the op's, whatever the kernel") {
    const auto g = gpu("h100_sxm");
    auto p = prefill(at::framework::sglang, 2, 1000);
    const double pairs = p.attended_pairs() * p.heads;
    for (const at::kernel_impl k : at::supporting_kernels(p, g)) {
        CAPTURE(at::to_string(k));
        p.kernel = k;
        const at::attention_plan plan = at::plan_attention(p, g);
        REQUIRE(plan.kernels.front().compulsory.has_value());
        CHECK(plan.kernels.front().compulsory->tensor_flop == doctest::Approx(2.0 * 256 * pairs));
        CHECK(plan.kernels.front().compulsory->xu_ops == doctest::Approx(pairs));
    }
}

TEST_CASE("attention: the window enters the model as the share of pairs it keeps") {
    // 4 causal queries over 4 tokens: 1 + 2 + 3 + 4 = 10 pairs; a 2-token window keeps 1 + 2 + 2 + 2 = 7.
    auto p = prefill(at::framework::trtllm, 1, 4);
    CHECK(p.window_fraction() == 1.0);
    p.window = 2;
    CHECK(p.attended_pairs() == 7.0);
    CHECK(p.window_fraction() == doctest::Approx(0.7));
    // A window at least as long as the prompt is no window at all.
    p.window = 4;
    CHECK(p.window_fraction() == 1.0);
    p.window = 1 << 20;
    CHECK(p.window_fraction() == 1.0);
    // Decode: one query over 100 cached tokens sees the last 10 of them.
    auto d = decode(at::framework::trtllm, 3, 100);
    d.window = 10;
    CHECK(d.window_fraction() == doctest::Approx(0.1));
    // The feature itself: no window and a window longer than the prompt read the same.
    const auto g = gpu("b200_sxm");
    auto full = prefill(at::framework::sglang, 2, 1000);
    auto long_window = full;
    long_window.window = 1024;
    const auto index = std::size_t(std::find(attention_prefill::feature_names.begin(), attention_prefill::feature_names.end(),
                                             "window_fraction") -
                                   attention_prefill::feature_names.begin());
    REQUIRE(index < attention_prefill::feature_count);
    CHECK(analyze<attention_prefill>(full, g).features[index] == 1.0);
    CHECK(analyze<attention_prefill>(long_window, g).features[index] == 1.0);
    long_window.window = 128;
    CHECK(analyze<attention_prefill>(long_window, g).features[index] < 0.25);
}

TEST_CASE("attention: CTAs that exit at once are not work, and splits count the chunks that hold keys") {
    // SGLang's Triton decode on sm_120: the grid's split axis is 8 wide, and a split covers at least 32 keys,
    // so 16 keys over 8 splits fill one chunk and 7 of every 8 CTAs exit at once.
    const auto g = gpu("rtx_pro_6000_server");
    const auto p = decode(at::framework::sglang, 64, 16, 64, 64);  // MHA: one CTA per (request, head, split)
    const at::attention_plan plan = at::plan_attention(p, g);
    REQUIRE(plan.implementation == at::kernel_impl::triton);
    CHECK(plan.splits == 1);
    std::int64_t all = 0, working = 0;
    for (const auto& c : plan.kernels.front().tasks) {
        all += c.count;
        if (c.work.has_work()) working += c.count;
    }
    CHECK(all == 64 * 64 * 8);
    CHECK(working == 64 * 64);
    const auto x = analyze<attention_decode>(p, g).features;
    CHECK(x[feature_index<attention_decode>("tasks_per_sm")] == doctest::Approx(64.0 * 64.0 / g.sm_count));
    CHECK(x[feature_index<attention_decode>("splits")] == 1.0);
    // A long sequence fills all 8 splits.
    CHECK(at::plan_attention(decode(at::framework::sglang, 1, 8192, 64, 64), g).splits == 8);
    CHECK_FALSE(synperf::work::task_work{}.has_work());
}

namespace {
// A scheduler of the user's own: min_heap_persistent under another name.
struct user_persistent_scheduler : synperf::scheduler::min_heap_persistent {};
}  // namespace

TEST_CASE("predictor: a run-time main kernel of the other dispatch kind goes to its own scheduler, or is refused") {
    using synperf::cost::roofline_cost;
    // On H100 SGLang's FA3 is persistent, so the default scheduler is min_heap_persistent; TensorRT-LLM's
    // XQA decode kernel is one CTA per tile.
    const synperf::runtime_predictor<attention_decode, roofline_cost> any(gpu("h100_sxm"), roofline_cost{});
    const synperf::predictor<synperf::hw::h100_sxm, attention_decode, synperf::scheduler::min_heap_persistent, roofline_cost> pred;
    CHECK(pred.predict(decode(at::framework::sglang, 64, 4096), "sglang").latency_us > 0);
    // The family's own scheduler: the XQA kernel goes to the hardware dispatcher, as the run-time predictor does.
    CHECK(pred.predict(decode(at::framework::trtllm, 64, 4096), "trtllm").latency_us ==
          any.predict(decode(at::framework::trtllm, 64, 4096), "trtllm").latency_us);
    // A scheduler of the user's cannot place it.
    const synperf::predictor<synperf::hw::h100_sxm, attention_decode, user_persistent_scheduler, roofline_cost> user;
    CHECK(user.predict(decode(at::framework::sglang, 64, 4096), "sglang").latency_us > 0);
    CHECK_THROWS_WITH_AS((void)user.predict(decode(at::framework::trtllm, 64, 4096), "trtllm"),
                         doctest::Contains("use runtime_predictor"), synperf::invalid_argument);
}
