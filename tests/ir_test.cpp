// The IR on its own: hash-consing, constant folding, printing, hashing,
// validation, and RILL_DUMP. IR is built directly or traced, then compared as text.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include <rill/rill.h>

namespace rill {
namespace {

TEST(Ir, HashConsingAndFolding) {
    ir::Kernel k;
    ir::Builder b(k);
    k.body = b.new_block();
    b.set_current_block(k.body);
    const ir::ExprId x = b.input(0, 0, Type{Scalar::Float, 1});
    const ir::ExprId y = b.input(0, 0, Type{Scalar::Float, 1});
    EXPECT_EQ(x, y) << "the same load twice is one node";
    const ir::ExprId two = b.constant_f(2.0f);
    EXPECT_EQ(b.binary(ir::Op::Mul, x, two), b.binary(ir::Op::Mul, x, two));
    const ir::ExprId five = b.binary(ir::Op::Add, b.constant_f(2.0f), b.constant_f(3.0f));
    ASSERT_EQ(k.node(five).op, ir::Op::Const);
    EXPECT_EQ(std::bit_cast<float>(k.node(five).imm[0]), 5.0f);
    const ir::ExprId wrap = b.binary(ir::Op::Add, b.constant_i(2147483647), b.constant_i(1));
    EXPECT_EQ(static_cast<std::int32_t>(k.node(wrap).imm[0]), -2147483647 - 1) << "folding wraps like the backends";
    const ir::ExprId c = b.cast(b.constant_f(-2.7f), Scalar::Int);
    EXPECT_EQ(static_cast<std::int32_t>(k.node(c).imm[0]), -2);
    const ir::ExprId s = b.splat(b.constant_f(1.5f), 3);
    EXPECT_EQ(k.node(s).op, ir::Op::Const);
    int yx[] = {1, 0};
    const ir::ExprId v = b.construct(Type{Scalar::Float, 2}, std::array<ir::ExprId, 2>{x, two}.data(), 2);
    const ir::ExprId sw = b.swizzle(b.swizzle(v, yx, 2), yx, 2);
    EXPECT_EQ(sw, v) << "a swizzle of a swizzle collapses";
}

TEST(Ir, TracedKernelPrintsReadably) {
    auto saxpy = kernel("saxpy(a, x, y, result)", [](Float a, In<float4> x, In<float4> y, Out<float4> r) { r = a * x + y; });
    const std::string text = ir::print(saxpy.ir());
    EXPECT_NE(text.find("param 0 'a': constant float"), std::string::npos) << text;
    EXPECT_NE(text.find("Add(Mul(Splat<float4>(const.a@0), in.x@0), in.y@0)"), std::string::npos) << text;
    EXPECT_NE(text.find("out.result@0"), std::string::npos) << text;
}

TEST(Ir, SharedExpressionsPrintOnceEach) {
    // 80 doublings make a chain whose tree has 2^80 leaves: the printer makes
    // each node's text once (long ones print by name) and finishes at once.
    auto k = kernel("doubling(x, r)", [](In<float> x, Out<float> r) {
        Float y = x;
        for (int i = 0; i < 80; ++i) y = y * 0.5f + y;
        r = y;
    });
    const std::string text = ir::print(k.ir());
    EXPECT_LT(text.size(), 100000u);
    EXPECT_NE(text.find("out.r@0 = "), std::string::npos) << text.substr(0, 2000);
    EXPECT_NE(text.find("..."), std::string::npos) << "the longest texts print as their node's name";
}

TEST(Ir, HashIsStableAndContentBased) {
    auto make = [](float c) {
        return kernel("k(x, r)", [c](In<float> x, Out<float> r) { r = x * c; });
    };
    EXPECT_EQ(make(2.0f).ir().hash(), make(2.0f).ir().hash());
    EXPECT_NE(make(2.0f).ir().hash(), make(3.0f).ir().hash());
}

TEST(Ir, UnusedValuesCostNothingAndVariablesStayLazy) {
    auto k = kernel("lazy(x, r)", [](In<float> x, Out<float> r) {
        Float a = x * 2.0f;  // never reassigned: stays a pure expression
        Float b = a + 1.0f;
        r = b;
    });
    // After forward_variables not even the output needs a variable.
    EXPECT_EQ(k.ir().vars.size(), 0u) << ir::print(k.ir());
}

TEST(Ir, ForwardingKeepsVariablesThatLoopsAndBranchesChange) {
    auto k = kernel("fwd(x, r)", [](In<float> x, Out<float> r) {
        Float acc = x;                                  // forwarded into the loop's first read? no: the loop changes it
        For(0, 4, [&](Int) { acc = acc * 2.0f; });
        Float y = acc + 1.0f;                           // read after the loop: stays a variable read
        If(x > 0.0f, [&] { y = -y; });
        r = y;
    });
    const ir::Kernel& ir = k.ir();
    // acc, y and the loop counter remain; the output is stored from y directly.
    EXPECT_EQ(ir.vars.size(), 3u) << ir::print(ir);
    Runtime rt("cpu");
    auto xs = rt.stream<float>({4}, std::vector<float>{-1, 0, 1, 2});
    auto rs = rt.stream<float>({4});
    k(xs, rs);
    EXPECT_EQ(rs.download(), (std::vector<float>{-15, 1, -17, -33}));
}

TEST(Ir, DumpWritesTheIrOfEveryKernelRun) {
    const std::string dir = (std::filesystem::temp_directory_path() / "rill-dump-test").string();
    std::filesystem::remove_all(dir);
    ::setenv("RILL_DUMP", dir.c_str(), 1);
    Runtime rt("cpu");
    auto k = kernel("dumped(x, r)", [](In<float> x, Out<float> r) { r = x + 1.0f; });
    auto x = rt.stream<float>({8});
    auto r = rt.stream<float>({8});
    k(x, r);
    bool found = false;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        if (e.path().filename().string().rfind("dumped-", 0) != 0) continue;
        std::ifstream in(e.path());
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        EXPECT_NE(text.find("kernel dumped"), std::string::npos);
        found = true;
    }
    ::unsetenv("RILL_DUMP");
    EXPECT_TRUE(found) << "no dumped-*.ir.txt in " << dir;
}

}  // namespace
}  // namespace rill
