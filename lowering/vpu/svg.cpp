#include "lowering/vpu/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace nnef::vpu {

std::string xml_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

namespace svg_cpp {

std::string fmt(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

struct Style {
    const char* fill;
    const char* name;
};

// DMA of constants (weights, tables) is told apart from other DMA so that prefetch shows.
Style style_of(const TaskList& list, const std::map<std::string, std::size_t>& index, const Task& t) {
    if (t.kind == TaskKind::NCE) return {"#f28e2b", "NCE"};
    if (t.kind == TaskKind::SHAVE) return {"#b07aa1", "SHAVE"};
    auto find = [&](const std::vector<Access>& v) -> const Buffer* {
        if (v.empty()) return nullptr;
        auto it = index.find(v[0].buffer);
        return it == index.end() ? nullptr : &list.buffers[it->second];
    };
    const Buffer* r = find(t.reads);
    const Buffer* w = find(t.writes);
    if (r && is_constant(r->role)) return {"#59a14f", "DMA weights"};
    if (r && w && r->memory == Memory::DDR && w->memory == Memory::CMX) return {"#4e79a7", "DMA to CMX"};
    if (r && w && r->memory == Memory::CMX && w->memory == Memory::DDR) return {"#76b7b2", "DMA to DDR"};
    return {"#9c9ede", "DMA CMX to CMX"};
}

// A "nice" tick step (1, 2 or 5 x 10^k) for about `count` ticks over `span`.
double tick_step(double span, int count) {
    const double raw = span / count;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= raw) return m * p;
    return 10.0 * p;
}

std::string tick_label(double v, double step) {
    char buf[32];
    const int decimals = step >= 1 ? 0 : int(std::ceil(-std::log10(step) - 1e-9));
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

}  // namespace svg_cpp

std::string to_svg(const TaskList& list, const Target& target, const SimulationResult& r, const SvgOptions& o) {
    using namespace svg_cpp;
    const std::vector<std::string> queues = target.queue_names();
    std::map<std::string, std::size_t> lane;
    for (std::size_t i = 0; i < queues.size(); ++i) lane[queues[i]] = i;
    const double left = 110, top = 56, lane_h = o.lane_height;
    const double span = r.makespan > 0 ? r.makespan : 1.0;
    const double scale = o.width / span;
    const double lanes_bottom = top + lane_h * double(queues.size());
    const double axis_y = lanes_bottom + 4;
    const double cmx_top = axis_y + 34;
    const double cmx_block = o.cmx_height + 24;
    const double height = cmx_top + cmx_block * double(target.clusters) + 10;
    const double width = left + o.width + 20;
    std::ostringstream os;
    os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << fmt(width) << "\" height=\"" << fmt(height) << "\" viewBox=\"0 0 "
       << fmt(width) << ' ' << fmt(height) << "\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"11\">\n";
    os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "%s on %s: makespan %.0f cycles (%.2f us), lower bound %.0f (ratio %.3f), DDR %.2f MB, %zu task%s",
                  !o.title.empty() ? o.title.c_str() : list.graph.empty() ? "task list" : list.graph.c_str(), target.name.c_str(), std::ceil(r.makespan), r.makespan_us,
                  std::ceil(r.bound.value()), r.bound.value() > 0 ? r.makespan / r.bound.value() : 0.0, double(r.ddr.total()) / 1e6,
                  list.tasks.size(), list.tasks.size() == 1 ? "" : "s");
    os << "<text x=\"" << fmt(left) << "\" y=\"18\" font-size=\"14\" font-weight=\"bold\">" << xml_escape(buf) << "</text>\n";
    // Legend.
    double lx = left;
    for (const auto& [fill, name] : {std::pair<const char*, const char*>{"#59a14f", "DMA weights"},
                                     {"#4e79a7", "DMA to CMX"},
                                     {"#76b7b2", "DMA to DDR"},
                                     {"#9c9ede", "DMA CMX to CMX"},
                                     {"#f28e2b", "NCE"},
                                     {"#b07aa1", "SHAVE"}}) {
        os << "<rect x=\"" << fmt(lx) << "\" y=\"28\" width=\"12\" height=\"12\" fill=\"" << fill << "\"/>";
        os << "<text x=\"" << fmt(lx + 16) << "\" y=\"38\">" << name << "</text>\n";
        lx += 24 + 7.0 * double(std::string(name).size()) + 12;
    }
    // Lanes.
    for (std::size_t i = 0; i < queues.size(); ++i) {
        const double y = top + lane_h * double(i);
        os << "<rect x=\"" << fmt(left) << "\" y=\"" << fmt(y) << "\" width=\"" << o.width << "\" height=\"" << fmt(lane_h)
           << "\" fill=\"" << (i % 2 ? "#f7f7f7" : "#efefef") << "\"/>";
        std::snprintf(buf, sizeof buf, "%s %.0f%%", queues[i].c_str(), i < r.queues.size() ? 100.0 * r.queues[i].share : 0.0);
        os << "<text x=\"6\" y=\"" << fmt(y + lane_h / 2 + 4) << "\">" << buf << "</text>\n";
    }
    // Tasks.
    std::map<std::string, std::size_t> buffer_index;
    for (std::size_t i = 0; i < list.buffers.size(); ++i) buffer_index.emplace(list.buffers[i].id, i);
    for (std::size_t ti = 0; ti < list.tasks.size() && ti < r.times.size(); ++ti) {
        const Task& t = list.tasks[ti];
        auto it = lane.find(t.queue);
        if (it == lane.end()) continue;
        const double x = left + r.times[ti].start * scale;
        const double w = std::max(0.5, (r.times[ti].end - r.times[ti].start) * scale);
        const double y = top + lane_h * double(it->second) + 2;
        const Style s = style_of(list, buffer_index, t);
        std::snprintf(buf, sizeof buf, "#%lld %s %s: %.0f..%.0f cycles (%.0f)", (long long)t.id, t.queue.c_str(), t.op.c_str(),
                      r.times[ti].start, r.times[ti].end, r.times[ti].end - r.times[ti].start);
        os << "<g data-task=\"" << t.id << "\"><title>" << xml_escape(buf) << (t.source.empty() ? "" : "\n" + xml_escape(t.source)) << "</title><rect x=\"" << fmt(x)
           << "\" y=\"" << fmt(y) << "\" width=\"" << fmt(w) << "\" height=\"" << fmt(lane_h - 4) << "\" fill=\"" << s.fill
           << "\" stroke=\"white\" stroke-width=\"0.3\"/>";
        // The longest of the full label, its first word (the NNEF tensor) and the task's kind that
        // fits the box whole (8 px text, about 4.8 px a character); none when none fits. The
        // tooltip has the full names.
        const std::string full = t.source.empty() ? t.op : t.source;
        const std::string word = full.substr(0, full.find_first_of(" (:,"));
        const double chars = (w - 3) / 4.8;
        for (const std::string& text : {full, word, t.op}) {
            if (text.empty() || double(text.size()) > chars) continue;
            os << "<text x=\"" << fmt(x + 1.5) << "\" y=\"" << fmt(y + lane_h / 2 + 1) << "\" font-size=\"8\" fill=\"black\">"
               << xml_escape(text) << "</text>";
            break;
        }
        os << "</g>\n";
    }
    // Time axis in microseconds.
    const double us_span = target.microseconds(span);
    const double step = tick_step(us_span, 10);
    os << "<line x1=\"" << fmt(left) << "\" y1=\"" << fmt(axis_y) << "\" x2=\"" << fmt(left + o.width) << "\" y2=\"" << fmt(axis_y)
       << "\" stroke=\"black\"/>\n";
    for (double us = 0; us <= us_span + 1e-9; us += step) {
        const double x = left + us * target.clock_mhz * scale;
        os << "<line x1=\"" << fmt(x) << "\" y1=\"" << fmt(axis_y) << "\" x2=\"" << fmt(x) << "\" y2=\"" << fmt(axis_y + 5)
           << "\" stroke=\"black\"/><text x=\"" << fmt(x) << "\" y=\"" << fmt(axis_y + 17) << "\" text-anchor=\"middle\">"
           << tick_label(us, step) << " us</text>\n";
    }
    // CMX occupancy per cluster.
    for (std::size_t k = 0; k < r.cmx.size(); ++k) {
        const double y0 = cmx_top + cmx_block * double(k);
        const double h = o.cmx_height;
        const CmxProfile& p = r.cmx[k];
        std::snprintf(buf, sizeof buf, "CMX%zu: peak %.0f KiB of %.0f KiB", k, double(p.peak) / 1024.0, double(target.cmx_bytes) / 1024.0);
        os << "<text x=\"" << fmt(left) << "\" y=\"" << fmt(y0 + 10) << "\">" << buf << "</text>\n";
        const double base = y0 + 14 + h;
        os << "<rect x=\"" << fmt(left) << "\" y=\"" << fmt(y0 + 14) << "\" width=\"" << o.width << "\" height=\"" << fmt(h)
           << "\" fill=\"#fafafa\" stroke=\"#999\"/>\n";
        std::string path = "M" + fmt(left) + "," + fmt(base);
        double prev = 0.0;
        for (const auto& [time, bytes] : p.steps) {
            const double x = left + time * scale;
            path += " L" + fmt(x) + "," + fmt(base - prev) + " L" + fmt(x) + "," + fmt(base - double(bytes) / double(target.cmx_bytes) * h);
            prev = double(bytes) / double(target.cmx_bytes) * h;
        }
        path += " L" + fmt(left + o.width) + "," + fmt(base - prev) + " L" + fmt(left + o.width) + "," + fmt(base) + " Z";
        os << "<path d=\"" << path << "\" fill=\"#e15759\" fill-opacity=\"0.55\" stroke=\"#e15759\" stroke-width=\"0.8\"/>\n";
        os << "<text x=\"" << fmt(left - 6) << "\" y=\"" << fmt(y0 + 22) << "\" text-anchor=\"end\">100%</text>";
        os << "<text x=\"" << fmt(left - 6) << "\" y=\"" << fmt(base) << "\" text-anchor=\"end\">0</text>\n";
    }
    os << "</svg>\n";
    return os.str();
}

}  // namespace nnef::vpu
