#include "storage/model.hpp"

#include <boost/filesystem.hpp>

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

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

bool is_tensor_file_name(const std::string& name) {
    return name.size() > 4 && lower(name.substr(name.size() - 4)) == ".dat";
}

// The one diagnostic for the variables without a tensor file: how many, the first few, and what
// helps when the model was published without weights.
void report_missing(const std::vector<std::string>& missing, const std::string& first_variable, SourceRange first_site,
                    std::size_t variables, bool none_found, const Container& container, Diagnostics& diags) {
    constexpr std::size_t shown = 3;
    std::string message;
    if (missing.size() == 1) {
        message = "variable '" + first_variable + "' has no tensor file '" + missing.front() + ".dat' in '" +
                  container.origin + "'";
    } else {
        message = std::to_string(missing.size()) + " of the " + std::to_string(variables) +
                  " variables have no tensor file in '" + container.origin + "': ";
        for (std::size_t i = 0; i < missing.size() && i < shown; ++i)
            message += (i ? ", '" : "'") + missing[i] + ".dat'";
        if (missing.size() > shown) message += " and " + std::to_string(missing.size() - shown) + " more";
    }
    Diagnostic& d = diags.error(Stage::data, "missing-tensor-file", message, first_site);
    d.notes.push_back({none_found
                           ? "the model is stored without weights (graph only): --no-weights checks its structure, "
                             "--random-weights SEED gives its variables pseudo-random values"
                           : "--no-weights checks the structure only, --random-weights SEED gives the variables "
                             "pseudo-random values",
                       {}});
}

}  // namespace model_cpp

bool has_no_tensor_files(const Container& container) {
    for (const auto& [name, member] : container.members)
        if (model_cpp::is_tensor_file_name(name)) return false;
    return true;
}

void add_tensor_files_beside(Container& container, const Graph& graph) {
    namespace bfs = boost::filesystem;
    const bfs::path folder = bfs::path(container.origin).parent_path();
    for (const Operation& op : graph.operations) {
        if (op.name != "variable") continue;
        const Value* label = op.attrib("label");
        if (!label || !label->is_string()) continue;
        const std::string name = label->as_string() + ".dat";
        if (container.members.count(name)) continue;
        // Only files below the graph's folder, as in a folder container (no absolute path, no `..`).
        const bfs::path relative(name);
        if (relative.is_absolute() || relative.has_root_name() ||
            std::any_of(relative.begin(), relative.end(), [](const bfs::path& part) { return part == ".."; }))
            continue;
        boost::system::error_code ec;
        const bfs::path file = folder / name;
        if (!bfs::is_regular_file(file, ec) || ec) continue;
        Member m;
        m.name = name;
        m.disk_path = file.string();
        m.size = bfs::file_size(file, ec);
        container.members.emplace(name, std::move(m));
    }
}

bool may_have_tensor_files_beside(const std::string& graph_path) {
    namespace bfs = boost::filesystem;
    boost::system::error_code ec;
    bfs::path folder = bfs::path(graph_path).parent_path();
    if (folder.empty()) folder = ".";
    constexpr std::size_t max_entries = 100000;  // a huge folder: assume it may
    std::size_t seen = 0;
    auto scan = [&](const bfs::path& dir, bool descend) {
        for (bfs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
            if (++seen > max_entries) return true;
            bfs::file_status st = it->symlink_status(ec);
            if (ec) return false;
            if (bfs::is_regular_file(st) && model_cpp::is_tensor_file_name(it->path().filename().string())) return true;
            if (descend && bfs::is_directory(st)) {
                boost::system::error_code outer = ec;
                bool found = false;
                for (bfs::directory_iterator in(it->path(), ec), e2; !ec && in != e2; in.increment(ec)) {
                    if (++seen > max_entries) return true;
                    if (model_cpp::is_tensor_file_name(in->path().filename().string())) {
                        found = true;
                        break;
                    }
                }
                if (found) return true;
                ec = outer;  // an unreadable folder below is no tensor file
            }
        }
        return false;
    };
    return scan(folder, true);
}

bool attach_weights(Graph& graph, const Container& container, const Limits& limits, Diagnostics& diags,
                    bool missing_allowed, WeightsCount* count) {
    bool ok = true;
    WeightsCount local;
    WeightsCount& n = count ? *count : local;
    n = {};
    std::unordered_map<std::string, std::shared_ptr<const TensorData>> by_label;  // lower-case label
    std::unordered_set<std::string> missing;  // lower-case labels without a file
    std::string first_missing_variable;
    SourceRange first_missing_site;
    for (const Operation& op : graph.operations) {
        if (diags.limit_reached()) return false;
        if (op.name != "variable") continue;
        const Value* label = op.attrib("label");
        const Value* out = op.output("output");
        if (!label || !label->is_string() || !out || !out->is_identifier()) continue;
        Tensor* tensor = graph.tensor(out->as_identifier());
        if (!tensor) continue;
        ++n.variables;
        std::string key = model_cpp::lower(label->as_string());
        std::shared_ptr<const TensorData> data;
        auto cached = by_label.find(key);
        const Member* member = container.tensor_file(label->as_string());
        if (cached != by_label.end()) {
            data = cached->second;
        } else {
            if (!member) {
                if (missing.insert(key).second) {
                    if (n.missing.empty()) {
                        first_missing_variable = tensor->name;
                        first_missing_site = op.provenance.range;
                    }
                    n.missing.push_back(label->as_string());
                }
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
        ++n.attached;
    }
    if (!n.missing.empty() && !missing_allowed) {
        model_cpp::report_missing(n.missing, first_missing_variable, first_missing_site, n.variables,
                                  n.attached == 0 && has_no_tensor_files(container), container, diags);
        ok = false;
    }
    return ok;
}

}  // namespace nnef::storage
