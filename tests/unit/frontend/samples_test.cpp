// Our own samples validate in both dialects with the output shapes their headers state, and
// flatten to a fixed point.
#include <doctest/doctest.h>

#include <nnef/nnef.hpp>

#include <filesystem>
#include <sstream>

#include "test_support.hpp"

TEST_SUITE("frontend") {
    TEST_CASE("samples validate with their stated shapes") {
        namespace fs = std::filesystem;
        int count = 0;
        for (const auto& e : fs::directory_iterator(nnef_test::source_dir() / "samples")) {
            fs::path file = e.path() / "graph.nnef";
            if (!fs::exists(file)) continue;
            ++count;
            std::string text = nnef_test::read_text(file);
            CAPTURE(file.string());
            for (bool strict : {false, true}) {
                CAPTURE(strict);
                nnef::FlattenOptions opts;
                opts.options.strict = strict;
                nnef::Session s(opts);
                bool ok = s.load_text(file.string(), text);
                std::string diags;
                for (const auto& d : s.diagnostics()) diags += nnef::render(d, s.sources());
                CAPTURE(diags);
                REQUIRE(ok);
                // "# shapes: name=[...]; name=[...]"
                std::istringstream in(text);
                std::string line;
                int checked = 0;
                while (std::getline(in, line)) {
                    if (line.rfind("# shapes:", 0) != 0) continue;
                    std::istringstream items(line.substr(9));
                    std::string item;
                    while (std::getline(items, item, ';')) {
                        auto eq = item.find('=');
                        std::string name = item.substr(0, eq);
                        name.erase(0, name.find_first_not_of(' '));
                        std::string shape = item.substr(eq + 1);
                        const nnef::Tensor* t = s.graph()->tensor(name);
                        REQUIRE(t);
                        REQUIRE(t->shape);
                        CHECK(nnef::to_string(*t->shape) == shape);
                        ++checked;
                    }
                }
                CHECK(checked > 0);
                std::string flat = s.flat_text();
                nnef::Session again(opts);
                REQUIRE(again.load_text("flat.nnef", flat));
                CHECK(again.flat_text() == flat);
            }
        }
        CHECK(count >= 4);
    }
}
