// The non-template half of the DSL: the tracing context, variables, control
// flow and parameters, all appending to the kernel being traced.
#include <atomic>
#include <cctype>

#include "rill/core/passes.h"
#include "rill/dsl/kernel.h"

namespace rill::dsl {

namespace {
thread_local TraceContext* g_trace = nullptr;
std::atomic<std::uint32_t> g_next_serial{1};
}  // namespace

TraceContext::TraceContext(std::string name) : serial(g_next_serial++) {
    kernel.name = std::move(name);
}

TraceContext* current_trace() { return g_trace; }
void set_current_trace(TraceContext* t) { g_trace = t; }

TraceContext& trace() {
    if (!g_trace)
        throw Error("rill: DSL values (Float, Var<T>, In<T>, ...) exist only while a kernel body is traced "
                    "inside rill::kernel(...); create them inside the kernel lambda, not outside it");
    return *g_trace;
}

void foreign_value(std::uint32_t) {
    throw Error("rill: kernel '" + trace().kernel.name + "' uses a traced value that belongs to another "
                "kernel's trace (kept in a variable that outlived that trace); compute it again inside this kernel");
}

void check_owner(std::uint32_t serial) {
    if (trace().serial != serial) foreign_value(serial);
}

ir::ExprId literal_id(Scalar s, double v) {
    RILL_ASSERT(s == Scalar::Float, "float literal in a non-float context");
    return builder().constant_f(static_cast<float>(v));
}
ir::ExprId literal_id(Scalar s, std::int64_t v) {
    switch (s) {
        case Scalar::Float: return builder().constant_f(static_cast<float>(v));
        case Scalar::Int: return builder().constant_i(static_cast<std::int32_t>(v));
        case Scalar::Uint: return builder().constant_u(static_cast<std::uint32_t>(v));
        case Scalar::Bool: return builder().constant_b(v != 0);
    }
    RILL_UNREACHABLE("bad scalar kind");
}
ir::ExprId literal_id(Scalar s, std::uint64_t v) {
    return literal_id(s, static_cast<std::int64_t>(v));
}

ir::StmtId declare_placeholder() { return builder().append(ir::Stmt{ir::StmtKind::Nop}); }

ir::VarId materialize(ir::StmtId placeholder, ir::BlockId, ir::ExprId initial, Type t) {
    ir::Builder& b = builder();
    ir::VarId v = b.new_var(t);
    b.kernel().stmts[placeholder] = ir::Stmt{ir::StmtKind::Assign, v, initial};
    return v;
}

LeafSource zero_leaves() {
    return LeafSource([](std::uint32_t, Type t) { return operand_as(0, t); });
}

LeafSource input_leaves(std::uint16_t param) {
    return LeafSource([param](std::uint32_t word, Type t) { return builder().input(param, word, t); });
}

LeafSource uniform_leaves(std::uint16_t param, std::uint32_t first_word) {
    return LeafSource([param, first_word](std::uint32_t word, Type t) {
        return builder().uniform(param, first_word + word, t);
    });
}

LeafSource gather_leaves(std::uint16_t param, ir::ExprId index) {
    return LeafSource([param, index](std::uint32_t word, Type t) { return builder().gather(param, word, t, index); });
}

void mark_indexof(std::uint16_t param, int rank) {
    if (param >= trace().kernel.params.size())
        throw Error("kernel '" + trace().kernel.name + "': indexof() needs an In or Out parameter of the kernel, "
                    "not a value passed to a reduction combiner");
    ir::Param& p = trace().kernel.params[param];
    if (p.indexof_rank && p.indexof_rank != rank)
        throw Error("kernel '" + trace().kernel.name + "': indexof<" + std::to_string(rank) + ">(" + p.name +
                    ") after indexof<" + std::to_string(p.indexof_rank) + ">(" + p.name +
                    "); a stream has one rank, use the same N everywhere");
    p.indexof_rank = static_cast<std::uint8_t>(rank);
}

ir::ExprId index_of_dim(std::uint16_t param, int dim) {
    return builder().index_of(param, static_cast<std::uint32_t>(dim));
}

// --- control flow ------------------------------------------------------------

ir::StmtId begin_if(ir::ExprId cond, ir::BlockId& then_block, ir::BlockId& else_block) {
    ir::Builder& b = builder();
    then_block = b.new_block();
    else_block = b.new_block();
    return b.append(ir::Stmt{ir::StmtKind::If, cond, then_block, else_block});
}

void move_tail(ir::BlockId from, std::size_t mark, ir::BlockId to) {
    auto& blocks = builder().kernel().blocks;
    RILL_ASSERT(mark <= blocks[from].size(), "Elif after its If's block shrank");
    blocks[to].insert(blocks[to].end(), blocks[from].begin() + static_cast<std::ptrdiff_t>(mark), blocks[from].end());
    blocks[from].resize(mark);
}

void trace_block(ir::BlockId block, const std::function<void()>& body) {
    ir::Builder& b = builder();
    ir::BlockId saved = b.current_block();
    b.set_current_block(block);
    body();
    b.set_current_block(saved);
}

void trace_loop(const std::function<void()>& body, const std::function<void()>& continuing) {
    ir::Builder& b = builder();
    ir::BlockId body_block = b.new_block();
    ir::BlockId cont_block = b.new_block();
    b.append(ir::Stmt{ir::StmtKind::Loop, body_block, cont_block});
    TraceContext& t = trace();
    ++t.loop_depth;
    try {
        trace_block(body_block, body);
        trace_block(cont_block, continuing);
    } catch (...) {
        --t.loop_depth;
        throw;
    }
    --t.loop_depth;
}

void emit_jump(ir::StmtKind kind, const char* what) {
    TraceContext& t = trace();
    if (kind != ir::StmtKind::Return && t.loop_depth == 0)
        throw Error("kernel '" + t.kernel.name + "': rill::" + what + "() is used outside a rill::For or "
                    "rill::While loop; move it into a loop body or use rill::Return()");
    t.builder.append(ir::Stmt{kind});
}

// --- kernels -----------------------------------------------------------------

KernelSignature parse_signature(const std::string& text, std::size_t count) {
    KernelSignature sig;
    auto open = text.find('(');
    auto trim = [](std::string s) {
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
        std::size_t i = 0;
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        return s.substr(i);
    };
    sig.name = trim(text.substr(0, open));
    if (sig.name.empty()) throw Error("rill::kernel: give the kernel a name, e.g. \"saxpy(a, x, y, result)\"");
    if (open == std::string::npos) {
        for (std::size_t i = 0; i < count; ++i) sig.params.push_back("#" + std::to_string(i + 1));
        return sig;
    }
    auto close = text.find(')', open);
    if (close == std::string::npos)
        throw Error("rill::kernel(\"" + text + "\"): missing ')' in the parameter name list");
    std::string list = text.substr(open + 1, close - open - 1);
    std::size_t start = 0;
    while (start <= list.size()) {
        auto comma = list.find(',', start);
        std::string name = trim(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (!name.empty() || comma != std::string::npos) sig.params.push_back(name);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (sig.params.size() != count)
        throw Error("rill::kernel(\"" + text + "\"): names " + std::to_string(sig.params.size()) +
                    " parameters but the lambda has " + std::to_string(count) + "; name each parameter once");
    return sig;
}

TraceScope::TraceScope(const std::string& name) : ctx_(std::make_unique<TraceContext>(name)), saved_(g_trace) {
    ir::Kernel& k = ctx_->kernel;
    k.body = ctx_->builder.new_block();
    k.epilogue = ctx_->builder.new_block();
    ctx_->builder.set_current_block(k.body);
    g_trace = ctx_.get();
}

TraceScope::~TraceScope() { g_trace = saved_; }

std::shared_ptr<const ir::Kernel> TraceScope::finish() {
    return std::make_shared<const ir::Kernel>(ir::lower(ctx_->kernel));
}

std::uint16_t add_param(const std::string& name, const std::string& type_name, ir::ParamKind kind,
                        std::uint32_t words, int gather_rank) {
    ir::Kernel& k = trace().kernel;
    ir::Param p;
    p.name = name;
    p.type_name = type_name;
    p.kind = kind;
    p.words = words;
    p.gather_rank = static_cast<std::uint8_t>(gather_rank);
    if (kind == ir::ParamKind::Uniform) {
        p.uniform_offset = k.uniform_words;
        k.uniform_words += words;
    }
    k.params.push_back(std::move(p));
    return static_cast<std::uint16_t>(k.params.size() - 1);
}

void begin_epilogue() { builder().set_current_block(trace().kernel.epilogue); }

void emit_store(std::uint16_t param, ir::ExprId value, std::uint32_t word) {
    builder().append(ir::Stmt{ir::StmtKind::Store, param, value, word});
}

}  // namespace rill::dsl
