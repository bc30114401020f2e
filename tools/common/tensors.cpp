#include "tensors.hpp"

#include "cli.hpp"

namespace nnef::cli {

std::string tensor_text(const Tensor* t) {
    if (!t) return "?";
    std::string s = t->dtype != PrimType::none ? to_string(t->dtype) : std::string("?");
    return s + (t->shape ? to_string(*t->shape) : std::string("[unknown]"));
}

Json tensors_json(const Graph& g, const std::vector<std::string>& names) {
    Json out = Json::array();
    for (const std::string& name : names) {
        const Tensor* t = g.tensor(name);
        Json shape = nullptr;
        if (t && t->shape) shape = *t->shape;
        out.push_back({{"name", name},
                       {"dtype", t && t->dtype != PrimType::none ? to_string(t->dtype) : ""},
                       {"shape", std::move(shape)}});
    }
    return out;
}

}  // namespace nnef::cli
