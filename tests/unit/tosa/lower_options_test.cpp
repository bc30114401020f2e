// The options a user names (lowering/tosa/lower_options.cpp): the default profile's rule, which every
// tool with --profile and the Python package apply, and the names of the profiles and bias grids.
#include <doctest/doctest.h>

#include <nnef/nnef.hpp>

#include "integer_support.hpp"
#include "lowering/tosa/from_nnef.hpp"

namespace lower_options_test {

using nnef::tosa::Profile;

TEST_SUITE("tosa") {

TEST_CASE("default_profile: PRO-INT for a quantized model, PRO-FP without quantization or without graph.quant") {
    const auto quantized = integer_support::write_model("default-profile-q", integer_support::cnn_graph, integer_support::cnn_quant);
    nnef::FlattenOptions f;
    f.load_weights = false;
    nnef::Session q(f);
    REQUIRE(q.load_path(quantized.string()));
    CHECK(nnef::tosa::from_nnef::is_quantized(*q.graph()));
    CHECK(nnef::tosa::default_profile(*q.graph()) == Profile::pro_int);
    CHECK(nnef::tosa::default_profile(*q.graph(), false) == Profile::pro_fp);  // nnef-run --no-quant
    // the same graph with an empty graph.quant: nothing quantized, PRO-FP (never PRO-INT's refusal)
    const auto plain = integer_support::write_model("default-profile-fp", integer_support::cnn_graph, "");
    nnef::Session p(f);
    REQUIRE(p.load_path(plain.string()));
    CHECK_FALSE(nnef::tosa::from_nnef::is_quantized(*p.graph()));
    CHECK(nnef::tosa::default_profile(*p.graph()) == Profile::pro_fp);
    CHECK(nnef::tosa::default_profile(*p.graph(), false) == Profile::pro_fp);
}

TEST_CASE("profile and bias-grid names") {
    CHECK(nnef::tosa::profile_named("pro-fp") == Profile::pro_fp);
    CHECK(nnef::tosa::profile_named("pro-int") == Profile::pro_int);
    CHECK_FALSE(nnef::tosa::profile_named("PRO-INT").has_value());
    CHECK_FALSE(nnef::tosa::profile_named("").has_value());
    CHECK(nnef::tosa::bias_on_accumulator_grid_named("fine") == false);
    CHECK(nnef::tosa::bias_on_accumulator_grid_named("accumulator") == true);
    CHECK_FALSE(nnef::tosa::bias_on_accumulator_grid_named("exact").has_value());
    CHECK(nnef::tosa::LowerOptions{}.bias_on_accumulator_grid == *nnef::tosa::bias_on_accumulator_grid_named("fine"));
}

}  // TEST_SUITE

}  // namespace lower_options_test
