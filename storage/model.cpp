#include "storage/model.hpp"

#include <cctype>
#include <unordered_map>

#include "storage/tensor_file.hpp"

namespace nnef::storage {

namespace model_cpp {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string member_display(const Container& c, const Member& m) {
    return m.disk_path.empty() ? c.origin + ":" + m.name : m.disk_path;
}

}  // namespace model_cpp

bool attach_weights(Graph& graph, const Container& container, const Limits& limits, Diagnostics& diags) {
    bool ok = true;
    std::unordered_map<std::string, std::shared_ptr<const TensorData>> by_label;  // lower-case label
    for (const Operation& op : graph.operations) {
        if (diags.limit_reached()) return false;
        if (op.name != "variable") continue;
        const Value* label = op.attrib("label");
        const Value* out = op.output("output");
        if (!label || !label->is_string() || !out || !out->is_identifier()) continue;
        Tensor* tensor = graph.tensor(out->as_identifier());
        if (!tensor) continue;
        std::string key = model_cpp::lower(label->as_string());
        std::shared_ptr<const TensorData> data;
        auto cached = by_label.find(key);
        const Member* member = container.tensor_file(label->as_string());
        if (cached != by_label.end()) {
            data = cached->second;
        } else {
            if (!member) {
                diags.error(Stage::data, "missing-tensor-file",
                            "variable '" + tensor->name + "' has no tensor file '" + label->as_string() + ".dat' in '" +
                                container.origin + "'",
                            op.provenance.range);
                ok = false;
                continue;
            }
            std::string display = model_cpp::member_display(container, *member);
            Result<std::shared_ptr<const TensorData>> r =
                member->in_memory() ? read_tensor_bytes(member->bytes, display, limits) : read_tensor_file(member->disk_path, limits);
            diags.append(r.diagnostics);
            if (!r.value || r.diagnostics.has_errors()) {
                ok = false;
                by_label.emplace(key, nullptr);
                continue;
            }
            data = *r.value;
            by_label.emplace(key, data);
        }
        if (!data) {
            ok = false;
            continue;
        }
        const Shape& stored = data->shape;
        if (tensor->shape && stored != *tensor->shape) {
            Diagnostic d;
            d.stage = Stage::data;
            d.code = "data-shape-mismatch";
            d.message = "tensor file of variable '" + tensor->name + "' (label '" + label->as_string() + "') stores shape " +
                        nnef::to_string(stored) + ", but the variable is declared with shape " + nnef::to_string(*tensor->shape);
            d.path = member ? model_cpp::member_display(container, *member) : container.origin;
            d.byte_offset = TensorHeader::offset_rank;
            d.notes.push_back({"the variable is declared here", op.provenance.range});
            diags.add(std::move(d));
            ok = false;
            continue;
        }
        tensor->data = data;
    }
    return ok;
}

}  // namespace nnef::storage
