// Runs a call on a thread with a large stack and waits for it.
//
// Parsing, checking and expansion recurse as deep as a document nests and as fragments recurse,
// bounded by Limits::max_nesting and Limits::max_recursion. Those bounds must hold on any caller's
// stack: a small thread stack, or a sanitizer build whose frames are several times larger, must get
// the limit's diagnostic, not a stack overflow. So the whole-document entry points (the Session and
// grammar::parse, sema::check and sema::expand) run on a thread of their own whose stack is 1 GiB
// of reserved address space (only the pages touched are used). Exceptions propagate to the caller.
// A call made on such a thread already runs in place. Falls back to the caller's stack when no
// thread can be made.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

namespace nnef::detail {

inline constexpr std::size_t kDeepStackBytes = std::size_t(1) << 30;

inline bool& on_deep_stack_now() {
    thread_local bool deep = false;
    return deep;
}

template <typename F>
auto on_deep_stack(F&& f) -> std::invoke_result_t<F&> {
    using R = std::invoke_result_t<F&>;
    if (on_deep_stack_now()) return f();
    struct Call {
        F* f;
        std::optional<std::conditional_t<std::is_void_v<R>, bool, R>> result;
        std::exception_ptr error;
    } call{&f, std::nullopt, nullptr};
    auto body = [](void* p) -> void* {
        auto* c = static_cast<Call*>(p);
        on_deep_stack_now() = true;
        try {
            if constexpr (std::is_void_v<R>) {
                (*c->f)();
                c->result.emplace(true);
            } else {
                c->result.emplace((*c->f)());
            }
        } catch (...) {
            c->error = std::current_exception();
        }
        return nullptr;
    };
    pthread_attr_t attr;
    pthread_t thread;
    bool started = false;
    if (pthread_attr_init(&attr) == 0) {
        started = pthread_attr_setstacksize(&attr, kDeepStackBytes) == 0 &&
                  pthread_create(&thread, &attr, body, &call) == 0;
        pthread_attr_destroy(&attr);
    }
    if (!started) return f();
    pthread_join(thread, nullptr);
    if (call.error) std::rethrow_exception(call.error);
    if constexpr (!std::is_void_v<R>) return std::move(*call.result);
}

}  // namespace nnef::detail
