// SPDX-License-Identifier: Apache-2.0
#include "synperf/gpu/occupancy.hpp"

#include <doctest/doctest.h>

#include "synperf/error.hpp"
#include "test_gpus.hpp"

using synperf::gpu::ctas_per_sm;
using synperf::gpu::occupancy;
using synperf::gpu::occupancy_limit;
using synperf::work::launch_config;

// Usable in constant expressions: sm_80, 256 threads, 64 registers, 48 KB (worked out below).
static_assert(ctas_per_sm(synperf::test::sm80_like(), {256, 64, 48 * 1024}) == 3);

TEST_CASE("occupancy: A100, 256 threads, 64 registers, 48 KB shared memory -> 3 CTAs, shared memory binds") {
    // warps: ceil(256/32) = 8 per CTA; 64 / 8 = 8 CTAs.
    // registers: 64*32 = 2048 per warp (a multiple of 256); 65536 / 2048 = 32 warps (a multiple of 4); 32 / 8 = 4 CTAs.
    // shared memory: 49152 (a multiple of 128) + 1024 reserved = 50176; 167936 / 50176 = 3.35 -> 3 CTAs.
    // CTA slots: 32.
    const auto r = occupancy(synperf::test::sm80_like(), launch_config{256, 64, 48 * 1024});
    CHECK(r.warps_per_cta == 8);
    CHECK(r.regs_per_warp == 2048);
    CHECK(r.smem_per_cta == 50176);
    CHECK(r.ctas_by_warps == 8);
    CHECK(r.ctas_by_registers == 4);
    CHECK(r.ctas_by_shared_memory == 3);
    CHECK(r.ctas_by_slots == 32);
    CHECK(r.ctas_per_sm == 3);
    CHECK(r.limit == occupancy_limit::shared_memory);
    CHECK(r.warp_occupancy(synperf::test::sm80_like()) == doctest::Approx(24.0 / 64));
}

TEST_CASE("occupancy: H100, 384 threads, 168 registers, 200 KB -> 1 CTA, registers and shared memory both bind") {
    // warps: 12 per CTA; 64 / 12 = 5.
    // registers: 168*32 = 5376 = 21*256 per warp; 65536 / 5376 = 12.19 -> 12 warps (a multiple of 4); 12 / 12 = 1.
    // shared memory: 204800 + 1024 = 205824; 233472 / 205824 = 1.13 -> 1.
    const auto r = occupancy(synperf::test::sm90_like(), launch_config{384, 168, 200 * 1024});
    CHECK(r.ctas_by_warps == 5);
    CHECK(r.regs_per_warp == 5376);
    CHECK(r.ctas_by_registers == 1);
    CHECK(r.ctas_by_shared_memory == 1);
    CHECK(r.ctas_per_sm == 1);
    CHECK(r.limit == occupancy_limit::registers);  // ties go to the first of warps, registers, smem, ctas
    CHECK(r.limited_by(occupancy_limit::registers));
    CHECK(r.limited_by(occupancy_limit::shared_memory));
    CHECK_FALSE(r.limited_by(occupancy_limit::warps));
    CHECK_FALSE(r.limited_by(occupancy_limit::ctas));
}

TEST_CASE("occupancy: sm_86 with 1024 threads is limited by its 48 warps") {
    const auto g = synperf::test::sm86_like();
    SUBCASE("32 registers: warps give 48 / 32 = 1; registers 65536 / 1024 = 64 warps -> 2; smem 102400 / 1024 = 100") {
        const auto r = occupancy(g, launch_config{1024, 32, 0});
        CHECK(r.ctas_by_warps == 1);
        CHECK(r.ctas_by_registers == 2);
        CHECK(r.ctas_by_shared_memory == 100);
        CHECK(r.ctas_by_slots == 16);
        CHECK(r.ctas_per_sm == 1);
        CHECK(r.limit == occupancy_limit::warps);
        CHECK(r.warp_occupancy(g) == doctest::Approx(32.0 / 48));
    }
    SUBCASE("64 registers: 2048 per warp -> 32 warps -> 1 CTA, a tie with the warp limit") {
        const auto r = occupancy(g, launch_config{1024, 64, 0});
        CHECK(r.ctas_by_registers == 1);
        CHECK(r.ctas_per_sm == 1);
        CHECK(r.limit == occupancy_limit::warps);
        CHECK(r.limited_by(occupancy_limit::registers));
    }
    SUBCASE("256 threads, 40 KB: smem 40960 + 1024 = 41984; 102400 / 41984 = 2.4 -> 2") {
        const auto r = occupancy(g, launch_config{256, 32, 40 * 1024});
        CHECK(r.ctas_by_warps == 6);
        CHECK(r.ctas_by_shared_memory == 2);
        CHECK(r.ctas_per_sm == 2);
        CHECK(r.limit == occupancy_limit::shared_memory);
    }
}

TEST_CASE("occupancy: register and warp allocation granularity") {
    // 96 threads = 3 warps, 37 registers: 37*32 = 1184 -> rounded up to 1280 per warp; 65536 / 1280 = 51.2
    // -> 51 warps -> 48 in groups of 4; 48 / 3 = 16 CTAs. Without the 256-register unit it would be
    // 65536 / 1184 = 55 -> 52 -> 17; without the groups of 4, 51 / 3 = 17. Warps allow 64 / 3 = 21.
    const auto r = occupancy(synperf::test::sm80_like(), launch_config{96, 37, 0});
    CHECK(r.warps_per_cta == 3);
    CHECK(r.regs_per_warp == 1280);
    CHECK(r.ctas_by_registers == 16);
    CHECK(r.ctas_by_warps == 21);
    CHECK(r.ctas_per_sm == 16);
    CHECK(r.limit == occupancy_limit::registers);
}

TEST_CASE("occupancy: partial warps and shared-memory rounding") {
    // 100 threads -> 4 warps (16 CTAs by warps; 1024 registers per warp -> 64 warps -> 16 CTAs).
    // 10000 B -> 10112 (79 * 128) + 1024 = 11136; 167936 / 11136 = 15.08 -> 15 CTAs.
    const auto r = occupancy(synperf::test::sm80_like(), launch_config{100, 32, 10000});
    CHECK(r.warps_per_cta == 4);
    CHECK(r.smem_per_cta == 11136);
    CHECK(r.ctas_by_warps == 16);
    CHECK(r.ctas_by_registers == 16);
    CHECK(r.ctas_per_sm == 15);
    CHECK(r.limit == occupancy_limit::shared_memory);
}

TEST_CASE("occupancy: small CTAs hit the CTA slots") {
    // 1 warp, 16 registers: 512 per warp -> 128 warps -> 128 CTAs; warps 64; smem 167936 / 1024 = 164; slots 32.
    const auto r = occupancy(synperf::test::sm80_like(), launch_config{32, 16, 0});
    CHECK(r.ctas_by_registers == 128);
    CHECK(r.ctas_by_warps == 64);
    CHECK(r.ctas_by_shared_memory == 164);
    CHECK(r.ctas_per_sm == 32);
    CHECK(r.limit == occupancy_limit::ctas);
    CHECK(ctas_per_sm(synperf::test::sm90_like(), launch_config{32, 16, 0}) == 32);
}

TEST_CASE("occupancy: boundaries") {
    const auto h = synperf::test::sm90_like();
    // The per-CTA maximum, 227 KB = 232448 B, plus 1 KB reserved is exactly the SM's 228 KB.
    CHECK(ctas_per_sm(h, launch_config{384, 168, 227 * 1024}) == 1);
    // One byte of shared memory still costs 128 + 1024 B: 233472 / 1152 = 202 -> the warp limit (64 / 4 = 16) binds.
    CHECK(occupancy(h, launch_config{128, 32, 1}).smem_per_cta == 1152);
    CHECK(ctas_per_sm(h, launch_config{128, 32, 1}) == 16);
    // 1024 threads x 255 registers: 8160 -> 8192 per warp; 65536 / 8192 = 8 warps < 32: does not fit (0, no throw).
    const auto r = occupancy(h, launch_config{1024, 255, 0});
    CHECK(r.ctas_per_sm == 0);
    CHECK(r.limit == occupancy_limit::registers);
    // 255 registers with 256 threads: 8 warps per CTA, 8 warps fit -> 1 CTA.
    CHECK(ctas_per_sm(h, launch_config{256, 255, 0}) == 1);
}

TEST_CASE("occupancy: invalid launches throw invalid_argument") {
    const auto h = synperf::test::sm90_like();
    CHECK_THROWS_WITH_AS((void)occupancy(h, launch_config{0, 32, 0}),
                         "synperf: occupancy: threads_per_cta must be in 1..1024 (max_threads_per_cta), got 0", synperf::invalid_argument);
    CHECK_THROWS_WITH_AS((void)occupancy(h, launch_config{1025, 32, 0}), doctest::Contains("got 1025"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS((void)occupancy(h, launch_config{128, 0, 0}),
                         "synperf: occupancy: regs_per_thread must be in 1..255 (max_regs_per_thread), got 0", synperf::invalid_argument);
    CHECK_THROWS_WITH_AS((void)occupancy(h, launch_config{128, 256, 0}), doctest::Contains("regs_per_thread"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS((void)occupancy(h, launch_config{128, 32, -1}), doctest::Contains("smem_per_cta"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS((void)ctas_per_sm(h, launch_config{128, 32, 227 * 1024 + 1}),
                         "synperf: occupancy: smem_per_cta must be in 0..232448 bytes (smem_per_cta_bytes), got 232449",
                         synperf::invalid_argument);
    synperf::gpu::gpu_numbers empty;
    empty.max_threads_per_cta = 1024;
    empty.max_regs_per_thread = 255;
    empty.smem_per_cta_bytes = 1024;
    CHECK_THROWS_AS((void)occupancy(empty, launch_config{128, 32, 0}), synperf::invalid_argument);
}

TEST_CASE("occupancy: no_fit_reason names the limit that leaves no CTA resident") {
    synperf::gpu::gpu_numbers h = synperf::test::sm90_like();
    h.regs_per_sm = 1024;  // a GPU description with a tiny register file (--set regs_per_sm=1024)
    REQUIRE(ctas_per_sm(h, launch_config{128, 32, 16384}) == 0);
    CHECK(synperf::gpu::no_fit_reason(h, launch_config{128, 32, 16384}) ==
          "4096 registers per CTA (128 threads x 32, allocated per warp), more than the SM has (regs_per_sm 1024)");
    synperf::gpu::gpu_numbers s = synperf::test::sm90_like();
    s.smem_per_sm_bytes = 20000;
    s.smem_per_cta_bytes = 20000;
    CHECK(synperf::gpu::no_fit_reason(s, launch_config{128, 32, 19500}) ==
          "20608 bytes of shared memory per CTA (with the 1 KB the driver reserves), more than the SM has (smem_per_sm_bytes 20000)");
}
