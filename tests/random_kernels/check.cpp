// Checking a backend against the interpreter, and shrinking what fails: a
// failing program loses statements and subexpressions for as long as it still
// fails, then it is printed with the inputs of its first wrong element.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>

#include "program.h"

namespace rill::random_kernels {

namespace {

bool inside(double got, const Lane& want) {
    const double slack = 1e-12 * std::max(std::fabs(want.lo), std::fabs(want.hi));
    return got >= want.lo - slack && got <= want.hi + slack;
}
std::string interval(const Lane& l) {
    std::ostringstream s;
    s.precision(9);
    s << "[" << l.lo << ", " << l.hi << "]";
    return s.str();
}

}  // namespace

std::vector<Mismatch> compare(const std::vector<ElementResult>& want, const Outputs& got, int limit) {
    std::vector<Mismatch> bad;
    for (std::size_t e = 0; e < want.size() && static_cast<int>(bad.size()) < limit; ++e) {
        if (!want[e].determined) continue;
        std::ostringstream what;
        what.precision(9);
        const auto& w = want[e].out;
        if (w[kRf][0].known && !inside(got.rf[e], w[kRf][0])) what << "rf = " << got.rf[e] << ", want " << interval(w[kRf][0]) << "; ";
        if (w[kRi][0].known && got.ri[e] != w[kRi][0].i) what << "ri = " << got.ri[e] << ", want " << w[kRi][0].i << "; ";
        if (w[kRu][0].known && got.ru[e] != w[kRu][0].i) what << "ru = " << got.ru[e] << ", want " << w[kRu][0].i << "; ";
        for (int c = 0; c < 4; ++c)
            if (w[kRv][c].known && !inside(got.rv[e][c], w[kRv][c]))
                what << "rv[" << c << "] = " << got.rv[e][c] << ", want " << interval(w[kRv][c]) << "; ";
        if (!what.str().empty()) bad.push_back({static_cast<std::int64_t>(e), what.str()});
    }
    return bad;
}

std::vector<Mismatch> check_reductions(const Outputs& got, Runtime& rt) {
    std::vector<Mismatch> bad;
    const auto n = static_cast<std::int64_t>(got.rf.size());
    if (n == 0) return bad;
    auto mismatch = [&](const std::string& what, double value, double want, double tol) {
        if (!(std::fabs(value - want) <= tol)) {
            std::ostringstream s;
            s.precision(9);
            s << what << " = " << value << ", want " << want << " +- " << tol;
            bad.push_back({-1, s.str()});
        }
    };
    // Integers add exactly, modulo 2^32, in any order.
    auto ri = rt.stream<std::int32_t>({n}, got.ri);
    std::uint32_t isum = 0;
    for (std::int32_t v : got.ri) isum += static_cast<std::uint32_t>(v);
    mismatch("sum<int32_t>(ri)", reductions::sum<std::int32_t>().value(ri), static_cast<std::int32_t>(isum), 0);

    const bool finite = std::all_of(got.rf.begin(), got.rf.end(), [](float v) { return std::fabs(v) <= 1e30f; });
    if (!finite) return bad;  // GLSL leaves inf and NaN open, so the outputs' order with them is too
    auto rf = rt.stream<float>({n}, got.rf);
    // GPUs may flush denormals to zero (docs/SEMANTICS.md): their comparisons then see
    // every denormal as 0, and the extreme may be any denormal or zero where the
    // true extreme is one (NVIDIA's drivers return another).
    auto extreme = [&](const std::string& what, float value, float want) {
        auto denormal = [](float v) { return std::fabs(v) < std::numeric_limits<float>::min(); };
        if (value != want && !(denormal(value) && denormal(want))) mismatch(what, value, want, 0);
    };
    extreme("max<float>(rf)", reductions::max<float>().value(rf), *std::max_element(got.rf.begin(), got.rf.end()));
    extreme("min<float>(rf)", reductions::min<float>().value(rf), *std::min_element(got.rf.begin(), got.rf.end()));
    // Any grouping of n float additions is within (n - 1) ULPs of the magnitudes' sum
    // (plus a denormal per element that a GPU may flush).
    auto tolerance = [](std::int64_t count, double magnitude) {
        return static_cast<double>(count) * (magnitude / (1 << 23) + std::numeric_limits<float>::min());
    };
    auto sum_of = [](const float* v, std::int64_t count, std::int64_t step, double& magnitude) {
        double s = 0;
        magnitude = 0;
        for (std::int64_t i = 0; i < count; ++i) {
            s += v[i * step];
            magnitude += std::fabs(v[i * step]);
        }
        return s;
    };
    double magnitude = 0;
    const double total = sum_of(got.rf.data(), n, 1, magnitude);
    mismatch("sum<float>(rf)", reductions::sum<float>().value(rf), total, tolerance(n, magnitude));
    // Along rows: rf as h x w, summed into h x 1 (Brook's shapes decide what is reduced).
    std::int64_t h = 2;
    while (h * h <= n && n % h != 0) ++h;
    if (h * h <= n) {
        const std::int64_t w = n / h;
        auto rows = rt.stream<float>({h, 1});
        reductions::sum<float>()(rf.reshape({h, w}), rows);
        const std::vector<float> r = rows.download();
        for (std::int64_t row = 0; row < h; ++row) {
            const double s = sum_of(got.rf.data() + row * w, w, 1, magnitude);
            mismatch("row " + std::to_string(row) + " of sum<float>(rf as " + std::to_string(h) + "x" + std::to_string(w) + ")",
                     r[static_cast<std::size_t>(row)], s, tolerance(w, magnitude));
        }
    }
    const bool finite4 = std::all_of(got.rv.begin(), got.rv.end(), [](const float4& v) {
        return std::fabs(v.x) <= 1e30f && std::fabs(v.y) <= 1e30f && std::fabs(v.z) <= 1e30f && std::fabs(v.w) <= 1e30f;
    });
    if (finite4) {
        auto rv = rt.stream<float4>({n}, got.rv);
        const float4 s4 = reductions::sum<float4>().value(rv);
        for (int c = 0; c < 4; ++c) {
            const double s = sum_of(&got.rv[0][c], n, 4, magnitude);
            mismatch("sum<float4>(rv)[" + std::to_string(c) + "]", s4[c], s, tolerance(n, magnitude));
        }
    }
    return bad;
}

namespace {

/// Every variable read is declared in an enclosing block, and jumps sit in loops.
bool valid(const Program& p) {
    std::vector<char> visible(p.vars.size(), 0);
    std::function<bool(int)> expr_ok = [&](int id) {
        const Node& n = p.nodes[static_cast<std::size_t>(id)];
        if (n.op == Op::VarRef && !visible[static_cast<std::size_t>(n.aux)]) return false;
        return std::all_of(n.kids.begin(), n.kids.end(), expr_ok);
    };
    std::function<bool(const std::vector<Stmt>&, bool)> block_ok = [&](const std::vector<Stmt>& b, bool in_loop) {
        std::vector<int> declared;
        bool ok = true;
        for (const Stmt& s : b) {
            if (s.expr >= 0 && !expr_ok(s.expr)) ok = false;
            const auto v = static_cast<std::size_t>(s.var);
            switch (s.kind) {
                case Stmt::Decl: visible[v] = 1; declared.push_back(s.var); break;
                case Stmt::Assign: case Stmt::AddAssign: case Stmt::While: ok = ok && visible[v]; break;
                case Stmt::Break: case Stmt::Continue: ok = ok && in_loop; break;
                default: break;
            }
            if (s.kind == Stmt::For) {
                visible[v] = 1;
                ok = ok && block_ok(s.body, true);
                visible[v] = 0;
            } else if (s.kind == Stmt::While) {
                ok = ok && block_ok(s.body, true);
            } else {
                ok = ok && block_ok(s.body, in_loop) && block_ok(s.orelse, in_loop);
            }
            if (!ok) break;
        }
        for (int v : declared) visible[static_cast<std::size_t>(v)] = 0;
        return ok;
    };
    return block_ok(p.body, false);
}

/// Smaller variants of a program, each one step away.
std::vector<Program> simpler(const Program& p) {
    std::vector<Program> out;
    // Statements: drop one, or put a branch's or a loop's body in its place.
    std::function<void(const std::vector<Stmt>&, std::function<std::vector<Stmt>&(Program&)>)> walk =
        [&](const std::vector<Stmt>& b, std::function<std::vector<Stmt>&(Program&)> locate) {
            for (std::size_t i = 0; i < b.size(); ++i) {
                Program drop = p;
                auto& db = locate(drop);
                db.erase(db.begin() + static_cast<std::ptrdiff_t>(i));
                out.push_back(std::move(drop));
                for (int which = 0; which < 2; ++which) {
                    const auto& inner = which ? b[i].orelse : b[i].body;
                    if (inner.empty()) continue;
                    Program splice = p;
                    auto& sb = locate(splice);
                    std::vector<Stmt> moved = inner;
                    sb.erase(sb.begin() + static_cast<std::ptrdiff_t>(i));
                    sb.insert(sb.begin() + static_cast<std::ptrdiff_t>(i), moved.begin(), moved.end());
                    out.push_back(std::move(splice));
                }
                walk(b[i].body, [=](Program& q) -> std::vector<Stmt>& { return locate(q)[i].body; });
                walk(b[i].orelse, [=](Program& q) -> std::vector<Stmt>& { return locate(q)[i].orelse; });
            }
        };
    walk(p.body, [](Program& q) -> std::vector<Stmt>& { return q.body; });
    // Expressions: a node becomes one of its operands of the same type, or a zero.
    // A For's bound stays bounded: its clamp may become a zero, not the value it clamps.
    std::vector<char> bound(p.nodes.size(), 0);
    std::function<void(const std::vector<Stmt>&)> bounds = [&](const std::vector<Stmt>& b) {
        for (const Stmt& s : b) {
            if (s.kind == Stmt::For) bound[static_cast<std::size_t>(s.expr)] = 1;
            bounds(s.body);
            bounds(s.orelse);
        }
    };
    bounds(p.body);
    for (std::size_t id = 0; id < p.nodes.size(); ++id) {
        const Node& n = p.nodes[id];
        if (!bound[id])
            for (int k : n.kids)
                if (p.nodes[static_cast<std::size_t>(k)].ty == n.ty) {
                    Program q = p;
                    q.nodes[id] = p.nodes[static_cast<std::size_t>(k)];
                    out.push_back(std::move(q));
                }
        if (n.op != Op::Const || n.f[0] != 0 || n.i[0] != 0) {
            Program q = p;
            Node zero;
            zero.ty = n.ty;
            q.nodes[id] = zero;
            out.push_back(std::move(q));
        }
    }
    return out;
}

Inputs prefix(const Inputs& in, std::int64_t n) {
    Inputs r = in;
    const auto un = static_cast<std::size_t>(n);
    r.n = n;
    r.fa.resize(un);
    r.fb.resize(un);
    r.ia.resize(un);
    r.ua.resize(un);
    r.va.resize(un);
    r.p.resize(un);
    return r;
}

/// What is wrong with the program on this backend: its first mismatches, or the error it raised; empty if nothing.
std::string failure(const Program& p, const Inputs& in, Runtime& rt, std::int64_t* element) {
    try {
        const std::vector<Mismatch> bad = compare(interpret(p, in), run(p, in, rt), 1);
        if (bad.empty()) return "";
        if (element) *element = bad[0].element;
        return bad[0].what;
    } catch (const std::exception& e) {
        if (element) *element = -1;
        return std::string("error: ") + e.what();
    }
}

std::string shrink_and_print(Program p, Inputs in, Runtime& rt, std::uint64_t seed) {
    std::int64_t element = -1;
    std::string what = failure(p, in, rt, &element);
    const bool raised = what.rfind("error:", 0) == 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (bool progress = true; progress && std::chrono::steady_clock::now() < deadline;) {
        progress = false;
        for (Program& q : simpler(p)) {
            if (!valid(q)) continue;
            std::int64_t e = -1;
            const std::string w = failure(q, in, rt, &e);
            if (w.empty() || (w.rfind("error:", 0) == 0) != raised) continue;
            p = std::move(q);
            what = w;
            element = e;
            progress = true;
            break;
        }
    }
    if (element >= 0 && element + 1 < in.n) {
        const Inputs shorter = prefix(in, element + 1);
        std::int64_t e = -1;
        if (!failure(p, shorter, rt, &e).empty()) in = shorter;
    }
    std::ostringstream s;
    s << "seed " << seed << " on " << rt.info().name << ": " << what << "\n" << print(p);
    if (element >= 0) s << "  " << print_inputs(in, element) << "\n";
    return s.str();
}

std::int64_t size_for(std::uint64_t seed) {
    static const std::int64_t sizes[] = {1, 3, 64, 255, 256, 1000, 97};
    return sizes[seed % 7];
}

}  // namespace

Report check_seeds(Runtime& rt, std::uint64_t first_seed, int count, std::int64_t elements, int shrunk,
                   const std::function<void(const std::string&)>& on_failure) {
    Report r;
    for (int i = 0; i < count; ++i) {
        const std::uint64_t seed = first_seed + static_cast<std::uint64_t>(i);
        const Program p = generate(seed);
        const Inputs in = generate_inputs(seed, elements > 0 ? elements : size_for(seed));
        ++r.kernels;
        std::string what;
        try {
            const std::vector<ElementResult> want = interpret(p, in);
            for (const ElementResult& e : want) (e.determined ? r.elements : r.undetermined) += 1;
            const Outputs got = run(p, in, rt);
            std::vector<Mismatch> bad = compare(want, got);
            if (bad.empty()) bad = check_reductions(got, rt);
            if (!bad.empty() && bad[0].element < 0) what = bad[0].what;  // a reduction: not shrunk
            else if (!bad.empty()) what = "kernel";
        } catch (const std::exception& e) {
            what = "kernel";
        }
        if (what.empty()) continue;
        if (what == "kernel" && r.failed < shrunk) {
            r.failures.push_back(shrink_and_print(p, in, rt, seed));
        } else {
            if (what == "kernel") {
                std::int64_t element = -1;
                what = failure(p, in, rt, &element);
            }
            r.failures.push_back("seed " + std::to_string(seed) + " on " + rt.info().name + " (not shrunk): " + what + "\n" +
                                 print(p));
        }
        ++r.failed;
        if (on_failure) on_failure(r.failures.back());
    }
    return r;
}

}  // namespace rill::random_kernels
