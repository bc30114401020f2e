// nnef/detail/deep_stack.hpp: how much stack a thread has left, and the Session's choice between
// the caller's stack (the plain flat fast path, bounded recursion) and the deep-stack thread.
#include <doctest/doctest.h>

#include <nnef/nnef.hpp>

#include <pthread.h>

#include <string>

#include "nnef/detail/deep_stack.hpp"

namespace deep_stack_test {

struct Probe {
    std::size_t left = 0;
    bool ample = false;
    bool loaded = false;
    std::size_t operations = 0;
    bool fast = false;
};

void* probe(void* p) {
    auto* r = static_cast<Probe*>(p);
    r->left = nnef::detail::stack_left();
    r->ample = nnef::detail::ample_stack_here();
    nnef::Session s;
    r->loaded = s.load_text("plain.nnef",
                            "version 1.0;\ngraph G( x ) -> ( y )\n{\n    x = external(shape = [1, 4]);\n"
                            "    t = relu(x);\n    y = add(t, t);\n}\n");
    r->operations = s.graph() ? s.graph()->operations.size() : 0;
    r->fast = s.used_plain_fast_path();
    return nullptr;
}

Probe run_with_stack(std::size_t bytes) {
    Probe r;
    pthread_attr_t attr;
    REQUIRE(pthread_attr_init(&attr) == 0);
    REQUIRE(pthread_attr_setstacksize(&attr, bytes) == 0);
    pthread_t thread;
    REQUIRE(pthread_create(&thread, &attr, probe, &r) == 0);
    pthread_attr_destroy(&attr);
    REQUIRE(pthread_join(thread, nullptr) == 0);
    return r;
}

}  // namespace deep_stack_test

TEST_SUITE("frontend") {
    TEST_CASE("deep stack: the stack left is known, and a plain flat document loads on any stack") {
        namespace t = deep_stack_test;
        // 64 KiB: not enough for in-place work; the document goes to the deep-stack thread.
        const t::Probe small = t::run_with_stack(64 * 1024);
        CHECK(small.left > 0);
        CHECK(small.left < 64 * 1024);
        CHECK_FALSE(small.ample);
        CHECK(small.loaded);
        CHECK(small.operations == 3);
        // 16 MiB: ample; the fast path runs in place, with the same result.
        const t::Probe big = t::run_with_stack(std::size_t(16) << 20);
        CHECK(big.left > nnef::detail::kInPlaceStackBytes);
        CHECK(big.left <= std::size_t(16) << 20);
        CHECK(big.ample);
        CHECK(big.loaded);
        CHECK(big.operations == 3);
        CHECK(small.fast);
        CHECK(big.fast);
        // On the deep stack itself there is ample room too.
        const bool deep_ample = nnef::detail::on_deep_stack([] { return nnef::detail::ample_stack_here(); });
        CHECK(deep_ample);
    }
}
