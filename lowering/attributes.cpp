#include "lowering/attributes.hpp"

namespace nnef::lowering {

Diagnostic& operation_error(Diagnostics& diags, Stage stage, const std::string& code, const std::string& message,
                            const Operation* op) {
    Diagnostic& d = diags.error(stage, code, message, op ? op->provenance.range : SourceRange{});
    if (op)
        for (const CallSite& site : op->provenance.chain) d.notes.push_back(Note{"in expansion of '" + site.fragment + "'", site.range});
    return d;
}

std::int64_t int_attr(const Operation& op, std::string_view name, std::int64_t fallback) {
    const Value* v = op.attrib(name);
    return v && v->is_integer() ? v->as_integer() : fallback;
}

std::string string_attr(const Operation& op, std::string_view name, const std::string& fallback) {
    const Value* v = op.attrib(name);
    return v && v->is_string() ? v->as_string() : fallback;
}

std::vector<std::int64_t> ints_attr(const Operation& op, std::string_view name) {
    std::vector<std::int64_t> out;
    const Value* v = op.attrib(name);
    if (v && v->is_list())
        for (const Value& item : v->items())
            if (item.is_integer()) out.push_back(item.as_integer());
    return out;
}

std::vector<std::pair<std::int64_t, std::int64_t>> pairs_attr(const Operation& op, std::string_view name) {
    std::vector<std::pair<std::int64_t, std::int64_t>> out;
    const Value* v = op.attrib(name);
    if (v && v->is_list())
        for (const Value& item : v->items())
            if (item.is_list() && item.size() == 2 && item[0].is_integer() && item[1].is_integer())
                out.emplace_back(item[0].as_integer(), item[1].as_integer());
    return out;
}

std::vector<double> scalars_attr(const Operation& op, std::string_view name) {
    std::vector<double> out;
    const Value* v = op.attrib(name);
    auto add = [&](const Value& item) {
        if (item.is_scalar()) out.push_back(item.as_scalar());
        else if (item.is_integer()) out.push_back(double(item.as_integer()));
        else if (item.is_logical()) out.push_back(item.as_logical() ? 1.0 : 0.0);
    };
    if (v && v->is_list())
        for (const Value& item : v->items()) add(item);
    else if (v)
        add(*v);
    return out;
}

}  // namespace nnef::lowering
