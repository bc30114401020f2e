// Large pictures (tools/draw/lanes.cpp, render.cpp): the ranks dot would give, the long transitive
// edges taken out of its layout, their lanes, copies of shared variables, and a picture whose
// long edges are routed in lanes laid out and rendered with every edge.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include <nnef/draw/lanes.hpp>
#include <nnef/draw/picture.hpp>
#include <nnef/draw/render.hpp>
#include <nnef/nnef.hpp>

#include "unit/draw/graph_counts.hpp"

namespace {

using nnef::draw::EdgeList;

std::size_t occurrences(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// Node 0 feeds every node of a chain 1 -> 2 -> ... -> n (as a DenseNet block's input feeds every
// concatenation of the block); node n + 1 is fed by 0 and feeds only the chain's end.
EdgeList fan_over_chain(std::size_t n) {
    EdgeList e;
    for (std::size_t k = 1; k < n; ++k) e.emplace_back(k, k + 1);
    for (std::size_t k = 1; k <= n; ++k) e.emplace_back(0, k);
    e.emplace_back(0, n + 1);
    e.emplace_back(n + 1, n);
    return e;
}

// An NNEF graph of `n` additions in a chain, each adding the input x again (a long edge from x to
// every addition) and the variable w (read by all of them).
std::string long_edges_model(std::size_t n) {
    std::ostringstream os;
    os << "version 1.0;\ngraph g( x ) -> ( y" << n << " )\n{\n  x = external<scalar>(shape = [1, 4]);\n"
       << "  w = variable<scalar>(shape = [1, 4], label = 'w');\n  y0 = relu(x);\n";
    for (std::size_t k = 1; k <= n; ++k) os << "  a" << k << " = add(y" << k - 1 << ", x);\n  y" << k << " = mul(a" << k << ", w);\n";
    os << "}\n";
    return os.str();
}

}  // namespace

TEST_SUITE("draw") {

TEST_CASE("layer_ranks: the longest path, sources just above their first reader, none for a cycle") {
    // 0 -> 1 -> 2 -> 3, and the source 4 read by 3 only
    const auto r = nnef::draw::layer_ranks(5, {{0, 1}, {1, 2}, {2, 3}, {4, 3}, {0, 3}});
    CHECK(r == std::vector<std::size_t>{0, 1, 2, 3, 2});
    CHECK(nnef::draw::virtual_nodes(r, {{0, 1}, {1, 2}, {2, 3}, {4, 3}, {0, 3}}) == 2);
    CHECK(nnef::draw::layer_ranks(3, {{0, 1}, {1, 2}, {2, 0}}).empty());
}

TEST_CASE("moved_edges: only long transitive edges, and only when dot would make too many virtual nodes") {
    // 200: sum of the spans is about 200 * 200 / 2 = 20 000 virtual nodes, above the limit.
    const std::size_t n = 200;
    const EdgeList e = fan_over_chain(n);
    const auto ranks = nnef::draw::layer_ranks(n + 2, e);
    REQUIRE(nnef::draw::virtual_nodes(ranks, e) > nnef::draw::max_virtual_nodes);
    const std::vector<bool> moved = nnef::draw::moved_edges(n + 2, e);
    REQUIRE(moved.size() == e.size());
    std::size_t count = 0;
    for (std::size_t i = 0; i < e.size(); ++i) {
        CAPTURE(e[i].first);
        CAPTURE(e[i].second);
        const bool chain = e[i].first != 0;
        // 0 -> k for k >= 3 spans more than two ranks and 0 reaches k through 1 as well; 0 -> 1, 2
        // are short; n + 1 -> n spans the whole chain but is the only way from n + 1 to n.
        const bool want = !chain && e[i].second >= 3 && e[i].second <= n;
        CHECK(moved[i] == want);
        count += moved[i];
    }
    CHECK(count == n - 2);
    CHECK(nnef::draw::virtual_nodes(ranks, e, &moved) < nnef::draw::max_virtual_nodes);
    // A small fan: few virtual nodes, nothing moved.
    for (bool m : nnef::draw::moved_edges(22, fan_over_chain(20))) CHECK_FALSE(m);
}

TEST_CASE("route_lanes: right of what lies between the ends, one lane per tail, overlapping lanes apart") {
    using nnef::draw::Box;
    // A column of nodes 100 pt apart (y grows up), node 3 wide to the right.
    std::vector<Box> boxes;
    for (int k = 0; k < 6; ++k) boxes.push_back({0, 500.0 - 100 * k, 30, 30, 10});
    boxes[3].right = 200;
    const std::vector<nnef::draw::Frame> frames{{-50, 150, 260, 260}};  // around node 3 (y 200)
    const EdgeList moved{{0, 4}, {0, 5}, {1, 5}, {4, 5}};
    const auto routes = nnef::draw::route_lanes(boxes, frames, moved, 8.0);
    REQUIRE(routes.size() == moved.size());
    for (std::size_t i = 0; i < moved.size(); ++i) {
        const auto& r = routes[i];
        const Box &t = boxes[moved[i].first], &h = boxes[moved[i].second];
        REQUIRE(r.size() == 6);
        CHECK(r.front() == std::make_pair(t.x, t.y - t.half_height));  // leaves the tail's bottom
        CHECK(r.back() == std::make_pair(h.x, h.y + h.half_height));   // enters the head's top
        // The lane: the vertical run r[2] -> r[3], clear of every box and frame it passes.
        const double x = r[2].first, high = r[2].second, low = r[3].second;
        CHECK(r[3].first == x);
        for (const Box& b : boxes)
            if (b.y - b.half_height <= high && b.y + b.half_height >= low) CHECK(x > b.x + b.right);
        for (const auto& f : frames)
            if (f.y0 <= high && f.y1 >= low) CHECK(x > f.x1);
        // The horizontal runs lie between ranks, clear of the nodes.
        for (const Box& b : boxes) {
            CHECK_FALSE((high > b.y - b.half_height && high < b.y + b.half_height));
            CHECK_FALSE((low > b.y - b.half_height && low < b.y + b.half_height));
        }
    }
    CHECK(routes[0][2].first == routes[1][2].first);           // one tail, one lane
    CHECK(routes[2][2].first != routes[1][2].first);           // overlapping runs of two tails
    CHECK(std::abs(routes[2][2].first - routes[1][2].first) >= 8.0);
}

TEST_CASE("a large picture: shared variables drawn per reader, long edges in lanes, every edge rendered") {
    static_assert(nnef_test::large_picture_edges == nnef::draw::max_laid_out_labels, "graph_counts.hpp and render.hpp agree");
    const std::size_t n = 150;
    nnef::FlattenOptions fo;
    fo.weights_optional = true;
    nnef::Session s(fo);
    REQUIRE(s.load_text("graph.nnef", long_edges_model(n)));
    const nnef::draw::Picture p = nnef::draw::build_picture(s, "model/graph.nnef", {});
    const nnef_test::GraphCounts want = nnef_test::graph_counts(*s.graph());
    REQUIRE(want.edges > nnef::draw::max_laid_out_labels);
    CHECK(want.copies == n - 1);
    const std::string dot = nnef::draw::to_dot(p);
    // w once per reader: the node and n - 1 copies, each labelled with its readers.
    CHECK(occurrences(dot, "(read by " + std::to_string(n) + ")") == n);
    CHECK(dot.find("_" + std::to_string(n - 1) + " [label=") != std::string::npos);
    CHECK(dot.find("_" + std::to_string(n) + " [label=") == std::string::npos);
    CHECK(occurrences(dot, " -> ") == want.edges);
    // x feeds every addition: 150 long transitive edges, some 22 000 virtual nodes for dot; laid
    // out with them in lanes, every node and edge is in the SVG.
    std::string svg, error;
    REQUIRE_MESSAGE(nnef::draw::render(dot, "svg", svg, error), error);
    CHECK(occurrences(svg, "class=\"node\"") == want.nodes + want.copies);
    CHECK(occurrences(svg, "class=\"edge\"") == want.edges);
}

}  // TEST_SUITE
