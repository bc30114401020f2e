#include "tensors.hpp"

#include "cli.hpp"

namespace nnef::cli {

std::string tensor_text(const Tensor* t) {
    if (!t) return "?";
    std::string s = t->dtype != PrimType::none ? to_string(t->dtype) : std::string("?");
    return s + (t->shape ? to_string(*t->shape) : std::string("[unknown]"));
}

std::string tensors_json(const Graph& g, const std::vector<std::string>& names) {
    std::string out = "[";
    for (std::size_t i = 0; i < names.size(); ++i) {
        const Tensor* t = g.tensor(names[i]);
        if (i) out += ',';
        out += "{\"name\":" + json_string(names[i]) + ",\"dtype\":" +
               json_string(t && t->dtype != PrimType::none ? to_string(t->dtype) : "") + ",\"shape\":";
        out += t && t->shape ? to_string(*t->shape) : std::string("null");
        out += '}';
    }
    return out + "]";
}

}  // namespace nnef::cli
