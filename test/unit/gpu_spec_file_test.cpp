// SPDX-License-Identifier: Apache-2.0
// GPU spec files (gpu/spec_file.hpp): parsing, base + overrides, round trips, every error class.
#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "synperf/gpu/registry.hpp"
#include "synperf/gpu/spec_file.hpp"
#include "synperf/hw/h100_sxm.hpp"
#include "synperf/hw/h20.hpp"

namespace {

using synperf::gpu::gpu_numbers;
using synperf::gpu::runtime_gpu;

const std::string data_dir = SYNPERF_TEST_DATA_DIR "/gpu_specs/";

using synperf::gpu::detail::same_numbers;  // field-by-field equality over every spec key

// True if T can be brace-initialised from N values: the aggregate's member count.
struct any_value {
    template <class T>
    constexpr operator T() const noexcept {
        return T{};
    }
};
template <class T, std::size_t... I>
constexpr bool brace_constructible(std::index_sequence<I...>) {
    return requires { T{((void)I, any_value{})...}; };
}

// A spec that starts from H100 SXM and adds one line (line 3).
std::string with_base(std::string_view extra) { return "name = probe\nbase = h100_sxm\n" + std::string(extra) + "\n"; }

}  // namespace

TEST_CASE("spec file: the key table covers every gpu_numbers member") {
    constexpr std::size_t n = synperf::gpu::detail::number_fields.size();
    static_assert(brace_constructible<gpu_numbers>(std::make_index_sequence<n>{}));
    static_assert(!brace_constructible<gpu_numbers>(std::make_index_sequence<n + 1>{}),
                  "gpu_numbers gained a member: add it to detail::number_fields in spec_file.hpp");
}

TEST_CASE("spec file: a complete file without base") {
    const runtime_gpu g = synperf::gpu::load_gpu_spec(data_dir + "full.spec");
    CHECK(g.name == "h100_hbm4_hypothetical");
    CHECK(g.display_name == "Hypothetical H100 with 6 TB/s HBM4");
    const gpu_numbers& n = g.numbers;
    CHECK(n.cc_major == 9);
    CHECK(n.sm_count == 132);
    CHECK(n.tensor_clock_mhz == 1830);
    CHECK(n.tensor_fp4_flop_per_clk == 0);  // trailing comment stripped
    CHECK(n.dram_gbps == 6000);
    CHECK(n.l2_bytes == 100663296);
    CHECK(n.l2_gbps == 12000);  // exponent notation
    CHECK(n.max_ctas_per_sm == 32);
    CHECK(n.memory_bytes == 137438953472.0);
    CHECK(n.tensor_tflops(synperf::gpu::tensor_dtype::bf16) == doctest::Approx(989.4).epsilon(0.001));
}

TEST_CASE("spec file: base plus overrides") {
    const runtime_gpu g = synperf::gpu::load_gpu_spec(data_dir + "base_override.spec");
    CHECK(g.name == "h100_big_l2");
    CHECK(g.display_name == "H100 SXM with a 100 MB L2");
    gpu_numbers expected = synperf::hw::h100_sxm::numbers;
    expected.l2_bytes = 104857600;
    expected.l2_gbps = 9000.5;
    CHECK(same_numbers(g.numbers, expected));

    SUBCASE("display_name defaults to name; base accepts any alias, case and separators aside") {
        const runtime_gpu h = synperf::gpu::parse_gpu_spec("name = x\nbase = nvidia-h20\n", "inline");
        CHECK(h.display_name == "x");
        CHECK(same_numbers(h.numbers, synperf::hw::h20::numbers));
    }
    SUBCASE("CRLF line endings, indentation and comments") {
        const runtime_gpu h =
            synperf::gpu::parse_gpu_spec("# c\r\n  name = x  \r\n\tbase = h100_sxm # c\r\n\r\n  # c\r\nsm_count=100\r\n", "inline");
        CHECK(h.name == "x");
        CHECK(h.numbers.sm_count == 100);
    }
    SUBCASE("a '#' inside a value is kept; only '#' after whitespace starts a comment") {
        const runtime_gpu h = synperf::gpu::parse_gpu_spec("name = x\nbase = h100_sxm\ndisplay_name = GPU#2 # note\n", "inline");
        CHECK(h.display_name == "GPU#2");
    }
}

TEST_CASE("spec file: the shipped examples load") {
    const runtime_gpu g = synperf::gpu::load_gpu_spec(SYNPERF_SOURCE_DIR "/examples/specs/hypothetical_h100_8tbs.spec");
    gpu_numbers expected = synperf::hw::h100_sxm::numbers;
    expected.dram_gbps = 8000;
    CHECK(g.name == "h100_sxm_8tbs");
    CHECK(same_numbers(g.numbers, expected));

    const runtime_gpu h = synperf::gpu::load_gpu_spec(SYNPERF_SOURCE_DIR "/examples/specs/h20_3e.spec");
    CHECK(h.display_name == "NVIDIA H20-3e");
    CHECK(h.numbers.dram_gbps == 4800);
    CHECK(h.numbers.sm_count == synperf::hw::h20::numbers.sm_count);
}

TEST_CASE("spec file: to_spec_text round-trips every catalogue GPU exactly") {
    for (const runtime_gpu& g : synperf::gpu::all_gpus()) {
        CAPTURE(g.name);
        const std::string text = synperf::gpu::to_spec_text(g);
        const runtime_gpu back = synperf::gpu::parse_gpu_spec(text, "roundtrip");
        CHECK(back.name == g.name);
        CHECK(back.display_name == g.display_name);
        CHECK(same_numbers(back.numbers, g.numbers));
    }
    // Values that have no short decimal form survive too.
    runtime_gpu g = synperf::gpu::find_gpu("h100_sxm");
    g.name = "h100_odd";  // other numbers, so not the catalogue's name
    g.numbers.dram_gbps = 1.0 / 3.0 * 10000;
    g.numbers.l2_gbps = 8820.000000000002;
    const runtime_gpu back = synperf::gpu::parse_gpu_spec(synperf::gpu::to_spec_text(g), "roundtrip");
    CHECK(same_numbers(back.numbers, g.numbers));

    g.display_name = "bad # comment";
    CHECK_THROWS_WITH_AS((void)synperf::gpu::to_spec_text(g), doctest::Contains("display_name"), synperf::invalid_argument);
}

TEST_CASE("spec file: malformed files name the line and the cause") {
    struct bad {
        std::string text;
        std::size_t line;
        std::string cause;
    };
    const bad cases[] = {
        {with_base("dram_gbp = 4000"), 3, "unknown key 'dram_gbp'; valid keys: name, display_name, base, cc_major"},
        {with_base("dram_gbps = abc"), 3, "dram_gbps: expected a non-negative number, got 'abc' (not a number)"},
        {with_base("dram_gbps = 4000 GB/s"), 3, "got '4000 GB/s' (trailing characters ' GB/s')"},
        {with_base("sm_count = 13.5"), 3, "sm_count: expected a non-negative integer, got '13.5' (trailing characters '.5')"},
        {with_base("dram_gbps = nan"), 3, "dram_gbps: expected a finite number, got 'nan' (NaN)"},
        {with_base("l2_gbps = -NaN"), 3, "(NaN)"},
        {with_base("dram_gbps = inf"), 3, "got 'inf' (Inf)"},
        {with_base("dram_gbps = Infinity"), 3, "(Inf)"},
        {with_base("dram_gbps = -5"), 3, "dram_gbps: expected a non-negative number, got '-5' (negative)"},
        {with_base("sm_count = -1"), 3, "(negative)"},
        {with_base("dram_gbps = 1e999"), 3, "within the double range, got '1e999'"},
        {with_base("sm_count = 3000000000"), 3, "a non-negative integer of at most 2147483647, got '3000000000'"},
        {with_base("dram_gbps = +5"), 3, "(not a number)"},
        {with_base("dram_gbps ="), 3, "dram_gbps: expected a value, got nothing"},
        {with_base("= 5"), 3, "expected a key before '='"},
        {with_base("dram_gbps 4000"), 3, "expected 'key = value', got 'dram_gbps 4000'"},
        {with_base("name = again"), 3, "duplicate key 'name' (first set on line 1)"},
        {"name = probe\nbase = H2000\n", 2, "base: unknown GPU 'H2000'; known: a100_sxm,"},
        {"name = my gpu\nbase = h100_sxm\n", 1, "name: expected an id of letters, digits"},
        {"base = h100_sxm\n", 0, "missing required key 'name'"},
        {"name = x\ncc_major = 9\n", 0, "missing required keys 'cc_minor', 'sm_count'"},
        {with_base("smem_per_cta_bytes = 300000"), 3, "gpu_numbers: smem_per_cta_bytes must be in 1..smem_per_sm_bytes"},
        {with_base("sm_count = 0"), 3, "gpu_numbers: sm_count must be in 1..4096"},
        {with_base("max_threads_per_sm = 1536"), 3, "max_threads_per_sm must equal 32 * max_warps_per_sm"},
        // Unit mistakes fall outside the plausible ranges: GHz for MHz, MB for bytes, TB/s for GB/s.
        {with_base("tensor_clock_mhz = 1.83"), 3, "gpu_numbers: tensor_clock_mhz must be in 100..10000 (MHz)"},
        {with_base("l2_bytes = 50"), 3, "gpu_numbers: l2_bytes must be in 1024..2^40 (bytes)"},
        {with_base("dram_gbps = 0.5"), 3, "gpu_numbers: dram_gbps must be in 1..1e6 (GB/s)"},
        {with_base("tensor_fp8_flop_per_clk = 0.5"), 3, "tensor_fp8_flop_per_clk must be 0 (none) or in 1..1e7 (per SM)"},
        {with_base("cc_major = 8\ncc_minor = 0"), 0, "tensor_fp8_flop_per_clk must be 0 below compute capability 8.9"},
        {with_base("boost_clock_mhz = 500"), 3, "gpu_numbers: boost_clock_mhz must be >= tensor_clock_mhz"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.text);
        try {
            (void)synperf::gpu::parse_gpu_spec(c.text, "probe.spec");
            FAIL("expected a load_error");
        } catch (const synperf::load_error& e) {
            const std::string what = e.what();
            CAPTURE(what);
            CHECK(e.path() == "probe.spec");
            CHECK(e.line() == c.line);
            const std::string where = c.line == 0 ? "synperf: probe.spec: " : "synperf: probe.spec:" + std::to_string(c.line) + ": ";
            CHECK(what.rfind(where, 0) == 0);
            CHECK(what.find(c.cause) != std::string::npos);
        }
    }
}

TEST_CASE("spec file: malformed files on disk") {
    CHECK_THROWS_WITH_AS((void)synperf::gpu::load_gpu_spec(data_dir + "bad_duplicate.spec"),
                         doctest::Contains("bad_duplicate.spec:5: duplicate key 'dram_gbps' (first set on line 3)"),
                         synperf::load_error);
    CHECK_THROWS_WITH_AS((void)synperf::gpu::load_gpu_spec(data_dir + "bad_missing_key.spec"),
                         doctest::Contains("bad_missing_key.spec: missing required key 'l2_gbps'"), synperf::load_error);
    CHECK_THROWS_WITH_AS((void)synperf::gpu::load_gpu_spec(data_dir + "bad_number.spec"),
                         doctest::Contains("bad_number.spec:3: dram_gbps: expected a non-negative number, got '2,039'"),
                         synperf::load_error);
    CHECK_THROWS_WITH_AS((void)synperf::gpu::load_gpu_spec(data_dir + "no_such_file.spec"),
                         doctest::Contains("no_such_file.spec: cannot open GPU spec file: No such file or directory"),
                         synperf::load_error);
    // A directory or a device is refused before reading (a device such as /dev/zero never ends).
    CHECK_THROWS_WITH_AS((void)synperf::gpu::load_gpu_spec(data_dir),
                         doctest::Contains("expected a regular file (GPU spec file), got a directory"), synperf::load_error);
    CHECK_THROWS_WITH_AS((void)synperf::gpu::load_gpu_spec("/dev/zero"),
                         doctest::Contains("/dev/zero: expected a regular file (GPU spec file), got a device, pipe or socket"),
                         synperf::load_error);
}

TEST_CASE("apply_override: --set key=value") {
    runtime_gpu g = synperf::gpu::find_gpu("h100_sxm");
    synperf::gpu::apply_override(g, "dram_gbps=4000");
    CHECK(g.numbers.dram_gbps == 4000);
    synperf::gpu::apply_override(g, " sm_count = 120 ");
    CHECK(g.numbers.sm_count == 120);
    synperf::gpu::apply_override(g, "display_name=H100 at 4 TB/s");
    CHECK(g.display_name == "H100 at 4 TB/s");
    synperf::gpu::apply_override(g, "name=h100_4tbs");
    CHECK(g.name == "h100_4tbs");

    const runtime_gpu before = g;
    CHECK_THROWS_WITH_AS(synperf::gpu::apply_override(g, "dram_gbp=1"),
                         doctest::Contains("--set dram_gbp=1: unknown key 'dram_gbp'; valid keys: name, display_name, cc_major"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(synperf::gpu::apply_override(g, "base=h20"), doctest::Contains("unknown key 'base'"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(synperf::gpu::apply_override(g, "dram_gbps=fast"),
                         doctest::Contains("--set dram_gbps=fast: expected a non-negative number, got 'fast'"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(synperf::gpu::apply_override(g, "dram_gbps=-1"), doctest::Contains("(negative)"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(synperf::gpu::apply_override(g, "l2_gbps=inf"), doctest::Contains("(Inf)"), synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(synperf::gpu::apply_override(g, "dram_gbps"), doctest::Contains("expected key=value"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(synperf::gpu::apply_override(g, "sm_count=0"),
                         doctest::Contains("--set sm_count=0: gpu_numbers: sm_count must be in 1..4096"),
                         synperf::invalid_argument);
    CHECK_THROWS_WITH_AS(synperf::gpu::apply_override(g, "name=has space"), doctest::Contains("expected an id"),
                         synperf::invalid_argument);
    // A rejected override leaves the GPU as it was.
    CHECK(g.name == before.name);
    CHECK(same_numbers(g.numbers, before.numbers));
}

TEST_CASE("apply_overrides: fields that constrain each other change together, in any order") {
    const runtime_gpu h100 = synperf::gpu::find_gpu("h100_sxm");
    // boost_clock_mhz >= tensor_clock_mhz holds after both, not after the first alone.
    for (const auto& order : {std::vector<std::string>{"tensor_clock_mhz=3000", "boost_clock_mhz=3000"},
                              std::vector<std::string>{"boost_clock_mhz=3000", "tensor_clock_mhz=3000"}}) {
        runtime_gpu g = h100;
        synperf::gpu::apply_overrides(g, order);
        CHECK(g.numbers.tensor_clock_mhz == 3000);
        CHECK(g.numbers.boost_clock_mhz == 3000);
    }
    runtime_gpu g = h100;
    const std::vector<std::string> bad{"tensor_clock_mhz=3000", "sm_count=100"};
    CHECK_THROWS_WITH_AS(synperf::gpu::apply_overrides(g, bad),
                         doctest::Contains("--set tensor_clock_mhz=3000, sm_count=100: gpu_numbers: boost_clock_mhz"),
                         synperf::invalid_argument);
    CHECK(same_numbers(g.numbers, h100.numbers));
}

TEST_CASE("spec file and --set: a catalogue GPU's name names that GPU only") {
    SUBCASE("a spec file that starts from another GPU") {
        CHECK_THROWS_WITH_AS((void)synperf::gpu::parse_gpu_spec("name = h100_sxm\nbase = a100_sxm\n", "inline"),
                             doctest::Contains("inline:1: name: 'h100_sxm' is the catalogue's h100_sxm; a GPU described by "
                                               "other numbers needs a name of its own"),
                             synperf::load_error);
        // An alias (a CUDA device string) is the same GPU's name.
        CHECK_THROWS_WITH_AS((void)synperf::gpu::parse_gpu_spec("name = H100\nbase = h20\n", "inline"),
                             doctest::Contains("is the catalogue's h100_sxm"), synperf::load_error);
    }
    SUBCASE("the GPU itself, modified or written out whole, keeps its name") {
        const runtime_gpu g = synperf::gpu::parse_gpu_spec("name = h100_sxm\nbase = h100_sxm\ndram_gbps = 4000\n", "inline");
        CHECK(g.numbers.dram_gbps == 4000);
        const runtime_gpu whole = synperf::gpu::parse_gpu_spec(synperf::gpu::to_spec_text(synperf::gpu::find_gpu("a100_sxm")), "inline");
        CHECK(whole.name == "a100_sxm");
    }
    SUBCASE("a whole spec whose numbers are not that GPU's") {
        runtime_gpu other = synperf::gpu::find_gpu("a100_sxm");
        other.name = "h100_sxm";
        CHECK_THROWS_WITH_AS((void)synperf::gpu::parse_gpu_spec(synperf::gpu::to_spec_text(other), "inline"),
                             doctest::Contains("is the catalogue's h100_sxm"), synperf::load_error);
    }
    SUBCASE("--set name=") {
        runtime_gpu g = synperf::gpu::find_gpu("a100_sxm");
        CHECK_THROWS_WITH_AS(synperf::gpu::apply_override(g, "name=h100_sxm"),
                             doctest::Contains("--set name=h100_sxm: 'h100_sxm' is the catalogue's h100_sxm"), synperf::invalid_argument);
        CHECK(g.name == "a100_sxm");
        synperf::gpu::apply_override(g, "name=a100_sxm");  // its own name: nothing changes
        CHECK(g.name == "a100_sxm");
    }
}

TEST_CASE("fields_outside_catalogue: only numbers beyond every catalogue GPU") {
    for (const runtime_gpu& g : synperf::gpu::all_gpus()) CHECK(synperf::gpu::fields_outside_catalogue(g.numbers).empty());
    gpu_numbers n = synperf::hw::h100_sxm::numbers;
    n.sm_count = 1024;
    n.smem_bytes_per_clk = 64;
    n.memory_bytes = 1e15;  // a capacity enters no feature
    const auto out = synperf::gpu::fields_outside_catalogue(n);
    REQUIRE(out.size() == 2);
    CHECK(out[0].starts_with("sm_count = 1024 (catalogue: "));
    CHECK(out[1].starts_with("smem_bytes_per_clk = 64 (catalogue: "));
}

TEST_CASE("spec file: a binary file is named as one, its bytes not printed back") {
    CHECK_THROWS_WITH_AS((void)synperf::gpu::parse_gpu_spec(std::string("\x7f" "ELF\x02\x01\x01\0\0", 9), "ls.spec"),
                         doctest::Contains("ls.spec:1:1: expected a text GPU spec file, got the control byte 0x7f"), synperf::load_error);
    CHECK_THROWS_WITH_AS((void)synperf::gpu::parse_gpu_spec("name = x\rbase = h100_sxm\r", "mac.spec"),
                         doctest::Contains("mac.spec:1:9: a line ends in a carriage return alone"), synperf::load_error);
}
