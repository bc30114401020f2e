// The registry: one row per operator of ops.def (its check and kernel columns), and the tables of
// every family file.
#include "lowering/tosa/ops/registry.hpp"

#include "lowering/tosa/ops/check.hpp"

namespace nnef::tosa {

namespace checks {
#define TOSA_OP(id, section, mnemonic, inputs, outputs, attributes, family, check, kernel) void check(OpCheck&);
#include "lowering/tosa/ops.def"
#undef TOSA_OP
// Each family file adds its operators' tables.
#define TOSA_OP(id, section, mnemonic, inputs, outputs, attributes, family, check, kernel) void add_##family##_tables(Tables&);
#include "lowering/tosa/ops.def"
#undef TOSA_OP
}  // namespace checks

namespace kernels {
#define TOSA_OP(id, section, mnemonic, inputs, outputs, attributes, family, check, kernel) void kernel(Ctx&);
#include "lowering/tosa/ops.def"
#undef TOSA_OP
}  // namespace kernels

namespace ops {

const OpFunctions& functions(OpKind k) {
    static const OpFunctions table[] = {
#define TOSA_OP(id, section, mnemonic, inputs, outputs, attributes, family, check, kernel) \
    {&checks::check, &kernels::kernel},
#include "lowering/tosa/ops.def"
#undef TOSA_OP
    };
    static_assert(sizeof(table) / sizeof(table[0]) == op_kind_count, "one row per operator of ops.def");
    return table[static_cast<std::size_t>(k)];
}

const checks::Tables& tables() {
    static const checks::Tables t = [] {
        checks::Tables out;
        // Every family once (in the order of ops.def; a family's later operators add nothing twice).
        std::vector<void (*)(checks::Tables&)> adders;
        auto add = [&](void (*f)(checks::Tables&)) {
            for (auto* g : adders)
                if (g == f) return;
            adders.push_back(f);
            f(out);
        };
#define TOSA_OP(id, section, mnemonic, inputs, outputs, attributes, family, check, kernel) add(&checks::add_##family##_tables);
#include "lowering/tosa/ops.def"
#undef TOSA_OP
        return out;
    }();
    return t;
}

}  // namespace ops
}  // namespace nnef::tosa
