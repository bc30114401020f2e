// The schedule of a simulated task list as an SVG timeline: one lane per queue with its tasks as
// boxes coloured by kind (DMA of weights, other DMA, NCE, SHAVE) and labelled with the NNEF
// operation they compute part of (the task's `source`), a time axis in microseconds, and the CMX
// occupancy of each cluster beneath. Every box is a <g data-task="ID"> (the task id, so a page can
// find the boxes of a task: nnef-draw --lowering) with a tooltip (<title>) with the task's details.
#pragma once
#include <string>

#include "lowering/vpu/simulator.hpp"
#include "lowering/vpu/target.hpp"
#include "lowering/vpu/task_list.hpp"

namespace nnef::vpu {

struct SvgOptions {
    int width = 1600;       // pixels of the time axis
    int lane_height = 26;
    int cmx_height = 90;    // per cluster
    std::string title;      // what the heading names (e.g. the model's file name); empty: the graph's name
};

// `s` with &, <, > and " as entities (SVG and HTML text and attribute values).
std::string xml_escape(const std::string& s);

// `result` must come from simulate() with timing on a valid list.
std::string to_svg(const TaskList& list, const Target& target, const SimulationResult& result, const SvgOptions& options = {});

}  // namespace nnef::vpu
