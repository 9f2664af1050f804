// Control flow inside kernels. C++ `if`/`for` on traced values cannot work (the
// values do not exist while tracing), so the DSL has its own, taking lambdas:
//
//   rill::If(x > 0.0f, [&] { y = 1.0f; })
//       .Elif(x < 0.0f, [&] { y = -1.0f; })
//       .Else([&] { y = 0.0f; });
//   rill::For(0, n, [&](rill::Int i) { acc += g[i]; });
//   rill::While([&] { return err > tol; }, [&] { ...; rill::If(k > 100, [] { rill::Break(); }); });
//
// Lanes may diverge: each lane takes its own branch and loop trip count.
#pragma once

#include <functional>

#include "rill/dsl/operators.h"

namespace rill {

namespace dsl {
ir::StmtId begin_if(ir::ExprId cond, ir::BlockId& then_block, ir::BlockId& else_block);
void trace_block(ir::BlockId block, const std::function<void()>& body);
void trace_loop(const std::function<void()>& body, const std::function<void()>& continuing);
void emit_jump(ir::StmtKind kind, const char* what);
/// Moves the statements appended to `from` since it had `mark` statements
/// (the reads an Elif condition made) to the end of `to`.
void move_tail(ir::BlockId from, std::size_t mark, ir::BlockId to);

template <class C>
ir::ExprId condition_id(const C& c, const char* who) {
    if constexpr (Literal<C>) {
        static_assert(std::is_same_v<std::remove_cvref_t<C>, bool>, "rill: a condition must be a bool");
        return builder().constant_b(c);
    } else {
        static_assert(Value<C> && std::is_same_v<value_t<C>, bool>,
                      "rill: a condition must be a scalar bool (for bool vectors use rill::all or rill::any)");
        (void)who;
        return c.id();
    }
}
}  // namespace dsl

/// Result of If(...): chain .Elif(...) and .Else(...) onto it.
class IfChain {
public:
    /// `parent` is the block holding the If, which had `mark` statements after it.
    IfChain(ir::BlockId else_block, ir::BlockId parent, std::size_t mark)
        : else_(else_block), parent_(parent), mark_(mark) {}

    template <class C, class F>
    IfChain Elif(const C& cond, F&& body) {
        // C++ evaluated `cond` after the If was traced, so the variable reads it
        // made were appended to the parent block, after the If: they belong in
        // the else branch, before the condition's test.
        ir::BlockId then_b, else_b;
        dsl::move_tail(parent_, mark_, else_);
        ir::BlockId saved = dsl::builder().current_block();
        dsl::builder().set_current_block(else_);
        ir::ExprId c = dsl::condition_id(cond, "Elif");
        dsl::begin_if(c, then_b, else_b);
        dsl::builder().set_current_block(saved);
        dsl::trace_block(then_b, std::forward<F>(body));
        return IfChain(else_b, parent_, mark_);
    }

    template <class F>
    void Else(F&& body) {
        dsl::trace_block(else_, std::forward<F>(body));
    }

private:
    ir::BlockId else_;
    ir::BlockId parent_;
    std::size_t mark_;
};

template <class C, class F>
IfChain If(const C& cond, F&& body) {
    ir::BlockId then_b, else_b;
    dsl::begin_if(dsl::condition_id(cond, "If"), then_b, else_b);
    const ir::BlockId parent = dsl::builder().current_block();
    const std::size_t mark = dsl::builder().kernel().blocks[parent].size();
    dsl::trace_block(then_b, std::forward<F>(body));
    return IfChain(else_b, parent, mark);
}

/// for (i = begin; i < end; i += step) body(i)   (i > end for a negative step).
/// `step` is a C++ constant so that the loop's direction is known when tracing.
template <class B, class E, class F>
void For(const B& begin, const E& end, int step, F&& body) {
    if (step == 0) throw Error("rill::For: step is 0, which would loop forever; use a non-zero step");
    Var<std::int32_t> i = Expr<std::int32_t>(begin);
    Expr<std::int32_t> last = Expr<std::int32_t>(end);
    i.slot();
    dsl::trace_loop(
        [&] {
            Expr<std::int32_t> cur = i;
            auto done = step > 0 ? (cur >= last) : (cur <= last);
            If(done, [] { dsl::emit_jump(ir::StmtKind::Break, "Break"); });
            body(Expr<std::int32_t>(cur));
        },
        [&] { i = i + step; });
}
template <class B, class E, class F>
void For(const B& begin, const E& end, F&& body) {
    For(begin, end, 1, std::forward<F>(body));
}

/// while (cond()) body();  `cond` is a lambda returning a traced bool.
template <class C, class F>
void While(C&& cond, F&& body) {
    dsl::trace_loop(
        [&] {
            auto c = cond();
            If(!Expr<bool>(c), [] { dsl::emit_jump(ir::StmtKind::Break, "Break"); });
            body();
        },
        [] {});
}

/// Leaves the innermost For/While.
inline void Break() { dsl::emit_jump(ir::StmtKind::Break, "Break"); }
/// Skips to the next iteration of the innermost For/While.
inline void Continue() { dsl::emit_jump(ir::StmtKind::Continue, "Continue"); }
/// Ends this invocation of the kernel; outputs keep what was assigned so far.
inline void Return() { dsl::emit_jump(ir::StmtKind::Return, "Return"); }

}  // namespace rill
