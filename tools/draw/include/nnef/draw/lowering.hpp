// The "lowering" member of a picture document (docs/draw.md, Lowering member): the model's TOSA
// graph, its VPU schedule (the SVG timeline of lowering/vpu/svg.hpp) and the links from each NNEF
// node of the picture to the TOSA operators and VPU tasks that came from it.
//
// The link is exact: a TOSA operator's Origin names the NNEF operation's first result tensor, and a
// VPU task's `source` starts with that tensor's name; tensor names are unique in the flat graph, so
// even the operations of one fragment body (which share the body's source lines) link apart. The
// picture's edges say which node produces each tensor.
#pragma once
#include <string>

#include <nlohmann/json.hpp>
#include <nnef/graph.hpp>
#include <nnef/source.hpp>

#include "lowering/tosa/ir.hpp"

namespace nnef::draw {

struct LoweringOptions {
    tosa::Profile profile = tosa::Profile::pro_fp;
    std::string title;  // the VPU timeline's heading (the model's name)
};

// The member for `picture` (a picture document of `graph`). A model that does not lower gives a
// member with "error" set to the rendered diagnostics (and the stages that did succeed); weights
// are never needed (pseudo-random values stand in: the schedule and timing need no values).
nlohmann::json lowering_member(const Graph& graph, const SourceManager& sources, const nlohmann::json& picture,
                               const LoweringOptions& options = {});

// The NNEF tensor a VPU task's `source` names: the longest prefix that is a tensor in `producers`
// and ends the text or is followed by one of " (:,." (e.g. "conv1.k2" -> "conv1"); empty if none.
template <class Map>
std::string source_tensor(const std::string& source, const Map& producers) {
    for (std::size_t n = source.size(); n > 0; --n) {
        if (n < source.size() && std::string(" (:,.").find(source[n]) == std::string::npos) continue;
        const std::string prefix = source.substr(0, n);
        if (producers.count(prefix)) return prefix;
    }
    return {};
}

}  // namespace nnef::draw
