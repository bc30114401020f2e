// The validator of HAL 1.0 models and requests (model.hpp): the model-wide rules here (operands,
// lifetimes, locations, indexes, execution order, numberOfConsumers), each operation's rules in
// op_rules*.cpp. docs/nnapi.md lists every rule with its code.
#include <algorithm>
#include <sstream>

#include <nnef/diagnostics.hpp>

#include "lowering/nnapi/model.hpp"
#include "lowering/nnapi/op_rules.hpp"

namespace nnef::nnapi {

namespace {

void operand_error(Diagnostics& diags, const Model& m, std::size_t index, const std::string& rule, const std::string& message) {
    std::string what = "operand " + std::to_string(index);
    if (index < m.operands.size()) what += " (" + describe(m.operands[index]) + ")";
    diags.error(Stage::nnapi, "nnapi-" + rule, what + ": " + message + " [" + rule + "]");
}

void model_error(Diagnostics& diags, const std::string& rule, const std::string& message) {
    diags.error(Stage::nnapi, "nnapi-" + rule, "model: " + message + " [" + rule + "]");
}

bool known_type(OperandType t) { return std::string(to_string(t)).front() != '<'; }
bool known_lifetime(OperandLifeTime l) { return std::string(to_string(l)).front() != '<'; }

void check_operand(Diagnostics& diags, const Model& m, std::size_t i) {
    const Operand& o = m.operands[i];
    if (!known_type(o.type)) {
        operand_error(diags, m, i, "operand-type", "unknown OperandType " + std::to_string(int(o.type)));
        return;
    }
    if (!known_lifetime(o.lifetime)) {
        operand_error(diags, m, i, "lifetime", "unknown OperandLifeTime " + std::to_string(int(o.lifetime)));
        return;
    }
    if (is_tensor(o.type) && o.dimensions.empty())
        operand_error(diags, m, i, "operand-rank", "a tensor operand needs at least one dimension");
    if (!is_tensor(o.type) && !o.dimensions.empty())
        operand_error(diags, m, i, "operand-rank", "a scalar operand must have no dimensions");
    if (o.type == OperandType::TENSOR_QUANT8_ASYMM) {
        if (!(o.scale > 0)) {
            std::ostringstream s;
            s << "scale is " << o.scale << "; a TENSOR_QUANT8_ASYMM scale must be greater than zero";
            operand_error(diags, m, i, "quant8-scale", s.str());
        }
        if (o.zeroPoint < 0 || o.zeroPoint > 255)
            operand_error(diags, m, i, "quant8-zero-point",
                          "zeroPoint is " + std::to_string(o.zeroPoint) + "; it must be in [0, 255]");
    }
    const DataLocation& l = o.location;
    std::string where = "location {poolIndex " + std::to_string(l.poolIndex) + ", offset " + std::to_string(l.offset) +
                        ", length " + std::to_string(l.length) + "}";
    switch (o.lifetime) {
        case OperandLifeTime::TEMPORARY_VARIABLE:
        case OperandLifeTime::MODEL_INPUT:
        case OperandLifeTime::MODEL_OUTPUT:
        case OperandLifeTime::NO_VALUE:
            if (l.poolIndex != 0 || l.offset != 0 || l.length != 0)
                operand_error(diags, m, i, "location",
                              where + "; a " + to_string(o.lifetime) + " operand's location fields must all be 0");
            return;
        case OperandLifeTime::CONSTANT_COPY:
        case OperandLifeTime::CONSTANT_REFERENCE: break;
    }
    std::uint64_t end = std::uint64_t{l.offset} + l.length;
    if (o.lifetime == OperandLifeTime::CONSTANT_COPY) {
        if (l.poolIndex != 0)
            operand_error(diags, m, i, "location", where + "; a CONSTANT_COPY operand has poolIndex 0");
        else if (end > m.operandValues.size())
            operand_error(diags, m, i, "location",
                          where + " ends at byte " + std::to_string(end) + ", past the " +
                              std::to_string(m.operandValues.size()) + " bytes of operandValues");
    } else {
        if (l.poolIndex >= m.pools.size())
            operand_error(diags, m, i, "location",
                          where + "; the model has " + std::to_string(m.pools.size()) + " pools");
        else if (end > m.pools[l.poolIndex].data.size())
            operand_error(diags, m, i, "location",
                          where + " ends at byte " + std::to_string(end) + ", past the " +
                              std::to_string(m.pools[l.poolIndex].data.size()) + " bytes of pool " +
                              std::to_string(l.poolIndex));
    }
    auto size = byte_size(o);
    if (is_tensor(o.type) && !size) {
        operand_error(diags, m, i, "constant-dimensions",
                      std::string("a ") + to_string(o.lifetime) + " tensor needs fully specified dimensions");
    } else if (size && *size != l.length) {
        operand_error(diags, m, i, "constant-length",
                      "location length is " + std::to_string(l.length) + "; the operand's value has " +
                          std::to_string(*size) + " bytes");
    }
}

// inputIndexes / outputIndexes against the lifetimes.
void check_model_io(Diagnostics& diags, const Model& m, const std::vector<std::uint32_t>& list, const char* field,
                    OperandLifeTime lifetime) {
    if (list.empty()) model_error(diags, "model-io", std::string(field) + " is empty; there must be at least one");
    std::vector<bool> listed(m.operands.size(), false);
    for (std::size_t k = 0; k < list.size(); ++k) {
        std::uint32_t i = list[k];
        if (i >= m.operands.size()) {
            model_error(diags, "index-range", std::string(field) + "[" + std::to_string(k) + "] is " + std::to_string(i) +
                                                  "; the model has " + std::to_string(m.operands.size()) + " operands");
            continue;
        }
        if (listed[i])
            operand_error(diags, m, i, "model-io", std::string("is listed twice in ") + field);
        listed[i] = true;
        if (m.operands[i].lifetime != lifetime)
            operand_error(diags, m, i, "model-io",
                          std::string("is in ") + field + " but has lifetime " + to_string(m.operands[i].lifetime) + ", not " +
                              to_string(lifetime));
    }
    for (std::size_t i = 0; i < m.operands.size(); ++i)
        if (m.operands[i].lifetime == lifetime && !listed[i])
            operand_error(diags, m, i, "model-io", std::string("has lifetime ") + to_string(lifetime) + " but is not in " + field);
}

}  // namespace

bool validate(const Model& m, Diagnostics& diags) {
    std::size_t errors_before = diags.error_count();
    for (std::size_t i = 0; i < m.operands.size(); ++i) check_operand(diags, m, i);
    check_model_io(diags, m, m.inputIndexes, "inputIndexes", OperandLifeTime::MODEL_INPUT);
    check_model_io(diags, m, m.outputIndexes, "outputIndexes", OperandLifeTime::MODEL_OUTPUT);
    if (diags.error_count() != errors_before) return false;  // the operation rules need sound operands

    std::vector<std::uint32_t> consumers(m.operands.size(), 0);
    std::vector<int> writer(m.operands.size(), -1);
    std::vector<std::vector<std::uint32_t>> dims(m.operands.size());
    for (std::size_t i = 0; i < m.operands.size(); ++i) dims[i] = m.operands[i].dimensions;
    detail::KnownValues known = detail::constant_values(m);
    for (std::size_t k = 0; k < m.operations.size(); ++k) {
        const Operation& op = m.operations[k];
        bool indexes_ok = true;
        for (int side = 0; side < 2; ++side) {
            const auto& list = side == 0 ? op.inputs : op.outputs;
            for (std::size_t p = 0; p < list.size(); ++p) {
                if (list[p] < m.operands.size()) continue;
                detail::report(diags, m, k, std::string(side == 0 ? "input " : "output ") + std::to_string(p), "index-range",
                               "operand index " + std::to_string(list[p]) + " is out of range; the model has " +
                                   std::to_string(m.operands.size()) + " operands");
                indexes_ok = false;
            }
        }
        if (!indexes_ok) continue;
        for (std::size_t p = 0; p < op.inputs.size(); ++p) {
            std::uint32_t i = op.inputs[p];
            ++consumers[i];
            OperandLifeTime l = m.operands[i].lifetime;
            if ((l == OperandLifeTime::TEMPORARY_VARIABLE || l == OperandLifeTime::MODEL_OUTPUT) && writer[i] < 0)
                detail::report(diags, m, k, "input " + std::to_string(p), "execution-order",
                               std::string("the ") + to_string(l) + " operand is read before an operation writes it");
        }
        for (std::size_t p = 0; p < op.outputs.size(); ++p) {
            std::uint32_t i = op.outputs[p];
            OperandLifeTime l = m.operands[i].lifetime;
            if (l != OperandLifeTime::TEMPORARY_VARIABLE && l != OperandLifeTime::MODEL_OUTPUT) {
                detail::report(diags, m, k, "output " + std::to_string(p), "output-lifetime",
                               std::string("has lifetime ") + to_string(l) +
                                   "; an operation's output must be TEMPORARY_VARIABLE or MODEL_OUTPUT");
            } else if (writer[i] >= 0) {
                detail::report(diags, m, k, "output " + std::to_string(p), "single-writer",
                               "is already the output of operation " + std::to_string(writer[i]) +
                                   "; it must be the output of exactly one operation");
            }
            if (writer[i] < 0) writer[i] = int(k);
        }
        detail::check_operation(m, k, known, dims, diags);
        if (diags.limit_reached()) return false;
    }
    for (std::size_t i = 0; i < m.operands.size(); ++i) {
        const Operand& o = m.operands[i];
        if ((o.lifetime == OperandLifeTime::TEMPORARY_VARIABLE || o.lifetime == OperandLifeTime::MODEL_OUTPUT) &&
            writer[i] < 0)
            operand_error(diags, m, i, "single-writer",
                          std::string("is ") + to_string(o.lifetime) + " but no operation writes it; it must be the output of "
                                                                       "exactly one operation");
        if (o.numberOfConsumers != consumers[i])
            operand_error(diags, m, i, "number-of-consumers",
                          "numberOfConsumers is " + std::to_string(o.numberOfConsumers) + "; the operations read it " +
                              std::to_string(consumers[i]) + " times");
    }
    return diags.error_count() == errors_before;
}

bool validate(const Model& m, Diagnostics& diags, const std::string& source) {
    Diagnostics own(diags.max_errors());
    bool ok = validate(m, own);
    for (Diagnostic d : own) {
        d.path = source;
        diags.add(std::move(d));
    }
    return ok;
}

bool validate_request(const Model& m, const Request& r, Diagnostics& diags) {
    std::size_t errors_before = diags.error_count();
    auto fail = [&diags](const std::string& rule, const std::string& message) {
        diags.error(Stage::nnapi, "nnapi-" + rule, "request: " + message + " [" + rule + "]");
    };
    struct Span {
        std::uint32_t pool;
        std::uint64_t begin, end;
        std::string name;
    };
    std::vector<Span> inputs, outputs;
    for (int side = 0; side < 2; ++side) {
        const auto& args = side == 0 ? r.inputs : r.outputs;
        const auto& indexes = side == 0 ? m.inputIndexes : m.outputIndexes;
        const char* kind = side == 0 ? "input" : "output";
        if (args.size() != indexes.size()) {
            fail("request-count", std::string("has ") + std::to_string(args.size()) + " " + kind + "s; the model has " +
                                      std::to_string(indexes.size()));
            continue;
        }
        for (std::size_t k = 0; k < args.size(); ++k) {
            const RequestArgument& a = args[k];
            std::string name = std::string(kind) + " " + std::to_string(k);
            if (indexes[k] >= m.operands.size()) continue;  // validate() reports it
            const Operand& o = m.operands[indexes[k]];
            name += " (operand " + std::to_string(indexes[k]) + ")";
            if (a.hasNoValue) {
                if (a.location.poolIndex != 0 || a.location.offset != 0 || a.location.length != 0 || !a.dimensions.empty())
                    fail("request-no-value", name + " has no value; its location must be 0 and its dimensions empty");
                continue;
            }
            Operand actual = o;
            if (!a.dimensions.empty()) {
                if (a.dimensions.size() != o.dimensions.size()) {
                    fail("request-dimensions", name + " has rank " + std::to_string(a.dimensions.size()) + "; the model's is " +
                                                   std::to_string(o.dimensions.size()));
                    continue;
                }
                bool dims_ok = true;
                for (std::size_t d = 0; d < a.dimensions.size(); ++d)
                    if (a.dimensions[d] == 0 || (o.dimensions[d] != 0 && o.dimensions[d] != a.dimensions[d])) {
                        fail("request-dimensions", name + " dimension " + std::to_string(d) + " is " +
                                                       std::to_string(a.dimensions[d]) + "; the model's is " +
                                                       std::to_string(o.dimensions[d]) + " (0: unspecified)");
                        dims_ok = false;
                    }
                if (!dims_ok) continue;
                actual.dimensions = a.dimensions;
            }
            auto size = byte_size(actual);
            if (!size) fail("request-dimensions", name + " has unspecified dimensions; the request must give them");
            if (a.location.poolIndex >= r.pools.size()) {
                fail("request-location", name + " is in pool " + std::to_string(a.location.poolIndex) + "; the request has " +
                                             std::to_string(r.pools.size()) + " pools");
                continue;
            }
            std::uint64_t end = std::uint64_t{a.location.offset} + a.location.length;
            if (end > r.pools[a.location.poolIndex].data.size()) {
                fail("request-location", name + " ends at byte " + std::to_string(end) + ", past the " +
                                             std::to_string(r.pools[a.location.poolIndex].data.size()) + " bytes of pool " +
                                             std::to_string(a.location.poolIndex));
                continue;
            }
            if (side == 0 && size && *size != a.location.length)
                fail("request-length", name + " has length " + std::to_string(a.location.length) + "; its value has " +
                                           std::to_string(*size) + " bytes");
            (side == 0 ? inputs : outputs).push_back({a.location.poolIndex, a.location.offset, end, name});
        }
    }
    for (std::size_t a = 0; a < outputs.size(); ++a) {
        auto overlaps = [&](const Span& x, const Span& y) { return x.pool == y.pool && x.begin < y.end && y.begin < x.end; };
        for (std::size_t b = a + 1; b < outputs.size(); ++b)
            if (overlaps(outputs[a], outputs[b]))
                fail("request-overlap", outputs[a].name + " overlaps " + outputs[b].name);
        for (const Span& in : inputs)
            if (overlaps(outputs[a], in)) fail("request-overlap", outputs[a].name + " overlaps " + in.name);
    }
    return diags.error_count() == errors_before;
}

}  // namespace nnef::nnapi
