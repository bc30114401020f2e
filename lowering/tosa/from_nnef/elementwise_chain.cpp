// PRO-INT: chains of element-wise operations whose intermediate results have no graph.quant entry
// (the body of a fragment such as the zoo's erf, a polynomial of abs(x), exp(-x * x) and sign(x)).
// nnef-run rounds a tensor to a grid only where it has an entry, so such a chain is a function of
// the one activation it starts from, evaluated in floating point: at PRO-INT it is one TABLE from
// that activation's codes to the codes of the first result with an entry, each entry the chain
// evaluated in double (nnef-run --float64's arithmetic), so exact against it. Element-wise
// operations of compile-time operands only (`pow(32.0, c)`) are evaluated in double, as nnef-run
// does with constants.
#include <cmath>

#include "lowering/tosa/from_nnef/integer.hpp"

namespace nnef::tosa::from_nnef::integer {

namespace tosa_from_nnef_elementwise_chain_cpp {

using Fn = std::function<double(double)>;

double sign_of(double v) { return v > 0.0 ? 1.0 : v < 0.0 ? -1.0 : v; }

// The unary operations a chain takes, as NNEF defines them on reals.
const std::map<std::string, double (*)(double)>& unaries() {
    static const std::map<std::string, double (*)(double)> m{
        {"neg", [](double v) { return -v; }},
        {"abs", [](double v) { return std::fabs(v); }},
        {"exp", [](double v) { return std::exp(v); }},
        {"log", [](double v) { return std::log(v); }},
        {"sign", sign_of},
        {"sqrt", [](double v) { return std::sqrt(v); }},
        {"rsqrt", [](double v) { return 1.0 / std::sqrt(v); }},
        {"sqr", [](double v) { return v * v; }},
        {"rsqr", [](double v) { return 1.0 / (v * v); }},
        {"rcp", [](double v) { return 1.0 / v; }},
        {"tanh", [](double v) { return std::tanh(v); }},
        {"sigmoid", [](double v) { return 1.0 / (1.0 + std::exp(-v)); }},
        {"sin", [](double v) { return std::sin(v); }},
        {"cos", [](double v) { return std::cos(v); }},
        {"floor", [](double v) { return std::floor(v); }},
        {"ceil", [](double v) { return std::ceil(v); }},
        {"round", [](double v) { return std::floor(v + 0.5); }},
        {"erf", [](double v) { return std::erf(v); }},
    };
    return m;
}

const std::map<std::string, double (*)(double, double)>& binaries() {
    static const std::map<std::string, double (*)(double, double)> m{
        {"add", [](double a, double b) { return a + b; }},
        {"sub", [](double a, double b) { return a - b; }},
        {"mul", [](double a, double b) { return a * b; }},
        {"div", [](double a, double b) { return a / b; }},
        {"pow", [](double a, double b) { return std::pow(a, b); }},
        {"min", [](double a, double b) { return a < b ? a : b; }},
        {"max", [](double a, double b) { return a > b ? a : b; }},
    };
    return m;
}

// An operand: a number, a compile-time tensor, or a function of the activation `base`.
struct Operand {
    enum Kind { number, tensor, function, other } kind = other;
    double value = 0.0;
    const Real* real = nullptr;
    std::string base;
    Fn f;
};

Operand operand_of(Lowering& q, const nnef::Value& v) {
    Operand o;
    if (v.is_scalar() || v.is_integer()) {
        o.kind = Operand::number;
        o.value = v.is_scalar() ? v.as_scalar() : double(v.as_integer());
        return o;
    }
    if (!v.is_identifier()) return o;
    const std::string& id = v.as_identifier();
    if (const auto it = q.chains.find(id); it != q.chains.end()) {
        o.kind = Operand::function;
        o.base = it->second.base;
        o.f = it->second.f;
    } else if (const Act* a = q.act(id)) {
        if (a->grid.dtype != DType::i8) return o;
        o.kind = Operand::function;
        o.base = id;
        o.f = [](double x) { return x; };
    } else if (const Real* r = q.real(id)) {
        o.kind = Operand::tensor;
        o.real = r;
        bool uniform = !r->items.empty();
        for (double item : r->items) uniform = uniform && item == r->items[0];
        if (uniform && items_of(r->shape) == 1) {
            o.kind = Operand::number;
            o.value = r->items[0];
        }
    }
    return o;
}

// a op b over compile-time tensors with NNEF broadcasting (the lower rank gets trailing 1s).
std::optional<Real> fold(const Real& a, const Real& b, double (*f)(double, double)) {
    const std::size_t rank = std::max(a.shape.size(), b.shape.size());
    Shape sa = a.shape, sb = b.shape;
    sa.resize(rank, 1);
    sb.resize(rank, 1);
    Real r;
    r.shape.resize(rank);
    for (std::size_t d = 0; d < rank; ++d) {
        if (sa[d] != sb[d] && sa[d] != 1 && sb[d] != 1) return std::nullopt;
        r.shape[d] = std::max(sa[d], sb[d]);
    }
    r.items.resize(std::size_t(items_of(r.shape)));
    std::vector<std::int64_t> idx(rank, 0);
    for (std::size_t k = 0; k < r.items.size(); ++k) {
        std::int64_t ia = 0, ib = 0;
        for (std::size_t d = 0; d < rank; ++d) {
            ia = ia * sa[d] + (sa[d] == 1 ? 0 : idx[d]);
            ib = ib * sb[d] + (sb[d] == 1 ? 0 : idx[d]);
        }
        r.items[k] = f(a.items[std::size_t(ia)], b.items[std::size_t(ib)]);
        for (std::size_t d = rank; d-- > 0;)
            if (++idx[d] < r.shape[d]) break;
            else idx[d] = 0;
    }
    return r;
}

Real as_real(const Operand& o) { return o.kind == Operand::number ? Real{Shape{}, {o.value}, std::nullopt} : *o.real; }

}  // namespace tosa_from_nnef_elementwise_chain_cpp

std::optional<bool> chain_step(Lowering& q) {
    using namespace tosa_from_nnef_elementwise_chain_cpp;
    const Operation& op = q.c.op();
    const auto u = unaries().find(op.name);
    const auto b = binaries().find(op.name);
    if (u == unaries().end() && b == binaries().end()) return std::nullopt;
    const char* result = u != unaries().end() ? "y" : "z";
    const nnef::Value* out_v = op.output(result);
    if (!out_v || !out_v->is_identifier()) return std::nullopt;
    std::vector<Operand> args;
    for (const char* name : u != unaries().end() ? std::vector<const char*>{"x"} : std::vector<const char*>{"x", "y"}) {
        const nnef::Value* v = op.input(name);
        if (!v) return std::nullopt;
        args.push_back(operand_of(q, *v));
        if (args.back().kind == Operand::other) return std::nullopt;
    }
    const Tensor& out = q.c.result(result);
    bool bad = false;
    const auto og = q.entry_grid(out.name, bad);
    if (bad) return false;
    // compile-time operands only: evaluated in double
    bool constant = true, chained = false;
    std::string base, other_base;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const Operand& a = args[i];
        constant = constant && a.kind != Operand::function;
        if (a.kind == Operand::function) {
            chained = chained || q.chains.count(op.input(i == 0 ? "x" : "y")->as_identifier()) > 0;
            if (!base.empty() && base != a.base) other_base = a.base;
            else base = a.base;
        }
    }
    if (constant) {
        if (args.size() == 1) {
            Real r = as_real(args[0]);
            for (double& v : r.items) v = u->second(v);
            return q.bind_real(out.name, std::move(r));
        }
        auto r = fold(as_real(args[0]), as_real(args[1]), b->second);
        if (!r) return q.fail("its operands' shapes do not broadcast");
        return q.bind_real(out.name, std::move(*r));
    }
    // a chain starts where an element-wise result of an activation has no entry, and goes on while
    // an operand is a chain; other operations lower as they are
    if (!chained && (og || op.name == "min" || op.name == "max")) return std::nullopt;  // min / max keep their operands' grid
    if (!other_base.empty()) {
        if (!chained) return std::nullopt;
        return q.fail("its operands are functions of different activations ('" + base + "', '" + other_base +
                      "') with no graph.quant entry between (one TABLE cannot hold them)");
    }
    for (const Operand& a : args)
        if (a.kind == Operand::tensor) {
            if (chained) return q.fail("a compile-time tensor of unequal items meets a chain of element-wise operations without graph.quant entries (one TABLE cannot hold it)");
            return std::nullopt;
        }
    Fn f;
    if (args.size() == 1) {
        f = [g = args[0].f, h = u->second](double v) { return h(g(v)); };
    } else {
        auto side = [](const Operand& o) -> Fn {
            if (o.kind == Operand::number) return [n = o.value](double) { return n; };
            return o.f;
        };
        f = [l = side(args[0]), r = side(args[1]), h = b->second](double v) { return h(l(v), r(v)); };
    }
    if (!og) {
        q.chains[out.name] = Lowering::Chain{base, std::move(f)};
        return true;
    }
    const Act* x = q.act(base);
    if (!x) return q.fail("its chain's activation '" + base + "' is not lowered");
    if (og->dtype != DType::i8) return q.fail("TABLEs to i16 results are not lowered here (i8 only)");
    const Grid g = *og;
    return q.set(out.name, Act{q.c.reshape(q.table(*x, [&](double v) { return double(g.code(f(v))); }), *out.shape), g});
}

}  // namespace nnef::tosa::from_nnef::integer
