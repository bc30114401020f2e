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
#include <cstdint>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

namespace nnef::detail {

inline constexpr std::size_t kDeepStackBytes = std::size_t(1) << 30;

// Work whose recursion has a small fixed bound (the plain flat fast path, grammar/plain_flat.cpp's
// max_depth; the embedded standard library's text) runs in place when the calling thread has at
// least this much stack left: a thread of its own costs more than such work (its 1 GiB stack
// reservation, mapped and unmapped, and the first allocations of a malloc arena; about 0.2 ms of
// CPU, and a scheduling delay on a busy machine).
inline constexpr std::size_t kInPlaceStackBytes = std::size_t(4) << 20;

// Bytes of stack below the caller's frame on this thread; 0 when they cannot be known. The
// thread's stack bounds are asked once per thread (for the main thread glibc reads
// /proc/self/maps).
inline std::size_t stack_left() {
    thread_local std::uintptr_t low = 0;
    thread_local bool known = false;
    if (!known) {
        known = true;
        pthread_attr_t attr;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            void* base = nullptr;
            std::size_t size = 0;
            if (pthread_attr_getstack(&attr, &base, &size) == 0) low = reinterpret_cast<std::uintptr_t>(base);
            pthread_attr_destroy(&attr);
        }
    }
    char here = 0;
    const auto sp = reinterpret_cast<std::uintptr_t>(&here);
    return low != 0 && sp > low ? std::size_t(sp - low) : 0;
}

// True when bounded work (see kInPlaceStackBytes) may run on the caller's stack.
inline bool ample_stack_here() { return stack_left() >= kInPlaceStackBytes; }

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
