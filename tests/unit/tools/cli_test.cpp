// End-to-end tests of the command-line layer the tools share (tools/common/cli.hpp): the shared
// option table (every tool's --help lists the shared options it takes with the same text, and
// every tool accepts each of them), the one message style, and --format json: every tool's
// document, on success and on failure, checked against the schemas of docs/json.md (read from
// the page itself).
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tool_runner.hpp"

namespace cli_tools_test {

namespace fs = std::filesystem;
using nnef_test::quoted;
using nnef_test::contains;
using nlohmann::json;
using nnef_test::run_tool;
using nnef_test::shell_quote;

using nnef_test::sample_dir;

const std::vector<std::string> tools = {"nnef-validate", "nnef-flatten", "nnef-info", "nnef-run", "nnef-to-tosa", "nnef-to-vpu",
                                        "nnef-to-nnapi", "nnef-draw"};

// ---- the schemas of docs/json.md and a checker for them ----------------------------------------

struct Schemas {
    std::map<std::string, json> definitions, tools;
};

const Schemas& schemas() {
    static const Schemas s = [] {
        Schemas out;
        const std::string page = nnef_test::read_text(nnef_test::source_dir() / "docs" / "json.md");
        const std::regex block("```json\n([\\s\\S]*?)\n```");
        for (auto it = std::sregex_iterator(page.begin(), page.end(), block); it != std::sregex_iterator(); ++it) {
            const json j = json::parse((*it)[1].str());
            if (j.contains("definition")) out.definitions[j.at("definition")] = j.at("schema");
            if (j.contains("tool")) out.tools[j.at("tool")] = j.at("schema");
        }
        return out;
    }();
    return s;
}

bool is_type(const json& v, const std::string& t) {
    if (t == "string") return v.is_string();
    if (t == "integer") return v.is_number_integer();
    if (t == "number") return v.is_number();
    if (t == "boolean") return v.is_boolean();
    if (t == "null") return v.is_null();
    if (t == "array") return v.is_array();
    if (t == "object") return v.is_object();
    return false;
}

// Appends to `errors` where `v` does not match `schema`.
void check(const json& v, const json& schema, const std::string& where, std::vector<std::string>& errors) {
    if (schema.contains("ref")) {
        const auto& defs = schemas().definitions;
        const auto it = defs.find(schema.at("ref").get<std::string>());
        if (it == defs.end()) {
            errors.push_back(where + ": the schema names no definition " + schema.at("ref").dump());
            return;
        }
        check(v, it->second, where, errors);
        return;
    }
    if (schema.contains("type")) {
        const json& t = schema.at("type");
        bool ok = false;
        if (t.is_array())
            for (const json& one : t) ok = ok || is_type(v, one.get<std::string>());
        else
            ok = is_type(v, t.get<std::string>());
        if (!ok) {
            errors.push_back(where + ": " + v.dump().substr(0, 80) + " is not of type " + t.dump());
            return;
        }
    }
    if (schema.contains("enum")) {
        bool found = false;
        for (const json& e : schema.at("enum")) found = found || e == v;
        if (!found) errors.push_back(where + ": " + v.dump() + " is not one of " + schema.at("enum").dump());
    }
    if (v.is_array() && schema.contains("items"))
        for (std::size_t i = 0; i < v.size(); ++i) check(v[i], schema.at("items"), where + "/" + std::to_string(i), errors);
    if (v.is_object() && (schema.contains("members") || schema.contains("optional") || schema.value("type", json()) == "object")) {
        const json members = schema.value("members", json::object()), optional = schema.value("optional", json::object());
        for (auto it = members.begin(); it != members.end(); ++it) {
            if (!v.contains(it.key())) errors.push_back(where + ": member '" + it.key() + "' is missing");
            else check(v.at(it.key()), it.value(), where + "/" + it.key(), errors);
        }
        for (auto it = optional.begin(); it != optional.end(); ++it)
            if (v.contains(it.key())) check(v.at(it.key()), it.value(), where + "/" + it.key(), errors);
        if (!schema.value("additional", false))
            for (auto it = v.begin(); it != v.end(); ++it)
                if (!members.contains(it.key()) && !optional.contains(it.key()))
                    errors.push_back(where + ": member '" + it.key() + "' is not in the schema");
    }
}

// The document on stdout of a run of `tool` with --format json: exactly one JSON value, matching
// the tool's schema with the common members; stderr holds no JSON.
json document(const std::string& tool, const nnef_test::RunResult& r) {
    json doc;
    INFO(tool << " stdout: " << r.out.substr(0, 400) << "\nstderr: " << r.err.substr(0, 400));
    REQUIRE_NOTHROW(doc = json::parse(r.out));  // one document: trailing text would throw
    for (const std::string& line : {r.err})
        CHECK_MESSAGE((line.find("\n{") == std::string::npos && line.rfind('{', 0) == std::string::npos &&
                       line.rfind('[', 0) == std::string::npos),
                      "JSON on stderr: " << r.err);
    REQUIRE(schemas().tools.count(tool));
    json schema = schemas().tools.at(tool);
    const json& envelope = schemas().definitions.at("envelope");
    for (auto it = envelope.at("members").begin(); it != envelope.at("members").end(); ++it) schema["members"][it.key()] = it.value();
    std::vector<std::string> errors;
    check(doc, schema, tool, errors);
    std::string all;
    for (const std::string& e : errors) all += e + "\n";
    CHECK_MESSAGE(errors.empty(), all);
    CHECK(doc.value("tool", "") == tool);
    CHECK(doc.value("exit_status", -1) == r.code);
    return doc;
}

// A graph.nnef with an undefined identifier (line 4): invalid input, exit 1.
fs::path broken_model() {
    return nnef_test::write_scratch("cli-broken/graph.nnef",
                                    "version 1.0;\ngraph g(x) -> (y)\n{\n    x = external<scalar>(shape = [1, 2]);\n"
                                    "    y = relu(z);\n}\n");
}

// ---- --help and the option table -----------------------------------------------------------------

// The options listed in `help`: name -> the text of its entry (its lines, the name's line included).
std::map<std::string, std::string> listed_options(const std::string& help) {
    std::map<std::string, std::string> out;
    std::stringstream ss(help);
    std::string line, current;
    while (std::getline(ss, line)) {
        if (line.rfind("  -", 0) == 0) {
            current = line.substr(2, line.find_first_of(" ,", 2) - 2);
            out[current] = line + "\n";
        } else if (!current.empty() && line.rfind(std::string(27, ' '), 0) == 0) {
            out[current] += line + "\n";
        } else {
            current.clear();
        }
    }
    return out;
}

TEST_SUITE("tools") {

TEST_CASE("every tool's --help lists the shared options with the same text, and one exit-status paragraph") {
    // Options every tool takes, and the first line of their help, which must be the same everywhere.
    const std::vector<std::string> everywhere = {"--strict", "--input-shape", "--max-errors", "--max-work", "--max-volume",
                                                 "--max-archive-bytes", "--format", "--quiet", "--no-fast-path"};
    std::map<std::string, std::string> first_line;  // option -> its first help line, from the first tool listing it
    std::map<std::string, std::string> first_tool;
    for (const std::string& tool : tools) {
        auto r = run_tool(tool, "--help");
        CHECK(r.code == 0);
        CAPTURE(tool);
        const auto listed = listed_options(r.out);
        for (const std::string& o : everywhere) CHECK_MESSAGE(listed.count(o), tool << " --help does not list " << o);
        // exactly one exit-status paragraph
        std::size_t count = 0;
        for (std::size_t at = r.out.find("exit status"); at != std::string::npos; at = r.out.find("exit status", at + 1)) ++count;
        CHECK(count == 1);
        for (const auto& option : listed) {
            const std::string& name = option.first;  // (CHECK_MESSAGE's lambda captures it: no structured binding, for clang 14)
            const std::string& text = option.second;
            // the shared options' wording, up to the tool's default, is the same in every tool
            std::string line = text.substr(0, text.find('\n'));
            line = line.substr(0, line.find("(default"));
            if (name == "--format" || name == "-o" || name == "--print-after") continue;  // tool-specific choices
            if (!first_line.count(name)) {
                first_line[name] = line;
                first_tool[name] = tool;
            } else {
                CHECK_MESSAGE(first_line[name] == line, name << " reads differently in " << first_tool[name] << " and " << tool
                                                             << ":\n" << first_line[name] << "\n" << line);
            }
        }
    }
    // The lowering tools share the pass options, and the tools that compare the comparison's; the
    // tools that lower an NNEF model the lowering's choices (one default rule, docs/cli.md).
    for (const std::string tool : {"nnef-to-tosa", "nnef-to-vpu"}) {
        const auto listed = listed_options(run_tool(tool, "--help").out);
        for (const char* o : {"--profile", "--verify-each", "--no-verify-each", "--print-after", "--random-weights"})
            CHECK_MESSAGE(listed.count(o), tool << " --help does not list " << o);
    }
    for (const std::string tool : {"nnef-to-tosa", "nnef-to-vpu", "nnef-run"}) {
        const auto listed = listed_options(run_tool(tool, "--help").out);
        for (const char* o : {"--profile", "--bias-grid"}) CHECK_MESSAGE(listed.count(o), tool << " --help does not list " << o);
        CHECK(contains(listed.at("--profile"), "(default: pro-int for a\n"));
        CHECK(contains(listed.at("--bias-grid"), "fine (default;"));
    }
    for (const std::string tool : {"nnef-run", "nnef-to-vpu"}) {
        const auto listed = listed_options(run_tool(tool, "--help").out);
        for (const char* o : {"--input", "--compare", "--rtol", "--atol", "--max-quanta-off", "--max-share-off",
                              "--output-dir", "--output-codes", "--random-weights"})
            CHECK_MESSAGE(listed.count(o), tool << " --help does not list " << o);
    }
    // where a default differs, --help says so
    CHECK(contains(run_tool("nnef-run", "--help").out, "relative tolerance of --compare (default 0.0001)"));
    CHECK(contains(run_tool("nnef-to-vpu", "--help").out, "the device computes in fp16"));
    CHECK(contains(run_tool("nnef-to-vpu", "--help").out, "absolute tolerance of --compare (default 5.96046e-08)"));
    CHECK(contains(run_tool("nnef-to-tosa", "--help").out, "verify the IR after every lowering pass (default on)"));
    CHECK(contains(run_tool("nnef-to-vpu", "--help").out, "verify the IR after every lowering pass (default off)"));
}

TEST_CASE("every tool accepts each option its --help lists") {
    // A value for each option that takes one; flags take none.
    const std::map<std::string, std::string> values = {
        {"--input-shape", "x=1,2"}, {"--expand", "relu"}, {"--format", "json"}, {"-o", "-"},
        {"--input", "random:1"}, {"--random-weights", "1"}, {"--output-dir", "OUT"}, {"--compare", "REF"},
        {"--rtol", "0.5"}, {"--atol", "0.5"}, {"--max-quanta-off", "3"}, {"--max-share-off", "0.5"},
        {"--profile", "pro-fp"}, {"--bias-grid", "fine"}, {"--print-after", "all"}, {"--save-variables", "OUT"}, {"--dump", "y"},
        {"--cycles", "1"}, {"--quant-like", "nnef-tools"}, {"--threads", "1"}, {"--via", "tosa"},
        {"--level", "none"}, {"--target", "TARGET"}, {"--svg", "OUT.svg"}, {"--pass", "tile"}};
    for (const std::string& tool : tools) {
        const auto listed = listed_options(run_tool(tool, "--help").out);
        CHECK(listed.size() >= 20);
        for (const auto& [name, text] : listed) {
            const std::string head = text.substr(0, text.find('\n'));
            const bool takes_value = head.find(' ', 2 + name.size()) == 2 + name.size() &&
                                     head.size() > 3 + name.size() && head[3 + name.size()] != ' ';
            std::string arg = name;
            if (takes_value) {
                const auto v = values.find(name);
                const std::string value = v != values.end() ? v->second : "7";  // the limits take N
                arg += " " + value;
            }
            // Only parsing matters here: an option refused by the parser is a usage error that names it.
            auto r = run_tool(tool, arg + " --help");
            CHECK_MESSAGE(r.code == 0, tool << " refuses " << arg << ": " << r.err);
            CHECK_MESSAGE(!contains(r.err, "unknown option"), tool << " " << arg << ": " << r.err);
        }
        // an option not in the table is a usage error in the one style
        auto bad = run_tool(tool, "--no-such-option " + quoted(sample_dir("classifier")));
        CHECK(bad.code == 2);
        CHECK_MESSAGE(contains(bad.err, tool + ": error[usage]: unknown option '--no-such-option'"), bad.err);
        // and a bad value names the option
        auto limit = run_tool(tool, "--max-errors x " + quoted(sample_dir("classifier")));
        CHECK(limit.code == 2);
        CHECK_MESSAGE(contains(limit.err, tool + ": error[usage]: --max-errors needs a non-negative integer"), limit.err);
    }
}

TEST_CASE("--format json: every tool's document matches docs/json.md") {
    REQUIRE(schemas().tools.size() == tools.size());
    const fs::path classifier = sample_dir("classifier"), broken = broken_model();
    const std::string weights = " --random-weights 1";
    SUBCASE("nnef-validate") {
        auto r = run_tool("nnef-validate", "--format json --no-weights " + quoted(classifier) + " " + quoted(sample_dir("quantized")));
        CHECK(r.code == 0);
        json d = document("nnef-validate", r);
        REQUIRE(d.at("models").size() == 2);
        CHECK(d.at("models")[0].at("valid").get<bool>());
        auto f = run_tool("nnef-validate", "--format json " + quoted(broken));
        CHECK(f.code == 1);
        d = document("nnef-validate", f);
        CHECK_FALSE(d.at("models")[0].at("valid").get<bool>());
        CHECK(d.at("models")[0].at("diagnostics")[0].at("line") == 5);
        // a command-line error, even before --format: the document with the message
        auto u = run_tool("nnef-validate", "--bogus --format json " + quoted(broken));
        CHECK(u.code == 2);
        d = document("nnef-validate", u);
        CHECK(d.at("diagnostics")[0].at("stage") == "usage");
        CHECK(d.at("diagnostics")[0].at("message") == "unknown option '--bogus'");
    }
    SUBCASE("nnef-flatten") {
        json d = document("nnef-flatten", run_tool("nnef-flatten", "--format json --no-weights " + quoted(classifier)));
        CHECK(contains(d.at("document").get<std::string>(), "version 1.0;"));
        const fs::path out = nnef_test::scratch_dir() / "cli-flat.nnef";
        d = document("nnef-flatten", run_tool("nnef-flatten", "--format json --no-weights -o " + quoted(out) + " " + quoted(classifier)));
        CHECK(d.at("output") == out.string());
        CHECK(contains(nnef_test::read_text(out), "version 1.0;"));
        auto f = run_tool("nnef-flatten", "--format json " + quoted(broken));
        CHECK(f.code == 1);
        d = document("nnef-flatten", f);
        CHECK(d.at("diagnostics")[0].at("stage") == "semantic");
    }
    SUBCASE("nnef-info") {
        json d = document("nnef-info", run_tool("nnef-info", "--format json --no-weights " + quoted(classifier)));
        CHECK(d.at("graph").is_string());
        auto f = run_tool("nnef-info", "--format json " + quoted(nnef_test::scratch_dir() / "no-such-model"));
        CHECK(f.code == 2);
        d = document("nnef-info", f);
        CHECK(d.at("diagnostics")[0].at("stage") == "io");
    }
    SUBCASE("nnef-run") {
        const fs::path out = nnef_test::scratch_dir() / "cli-run-out";
        auto r = run_tool("nnef-run", "--format json" + weights + " --input random:3 --output-dir " + quoted(out) + " " + quoted(classifier));
        CHECK(r.code == 0);
        document("nnef-run", r);
        auto c = run_tool("nnef-run", "--format json" + weights + " --input random:3 --compare " + quoted(out) + " " + quoted(classifier));
        CHECK(c.code == 0);
        json d = document("nnef-run", c);
        CHECK(d.at("compare").at("match").get<bool>());
        auto m = run_tool("nnef-run", "--format json" + weights + " --input random:4 --compare " + quoted(out) + " " + quoted(classifier));
        CHECK(m.code == 1);
        d = document("nnef-run", m);
        CHECK_FALSE(d.at("compare").at("match").get<bool>());
        CHECK(d.at("diagnostics").back().at("stage") == "compare");
        auto u = run_tool("nnef-run", "--format json" + weights + " " + quoted(classifier));  // no --input
        CHECK(u.code == 2);
        d = document("nnef-run", u);
        CHECK(d.at("diagnostics")[0].at("stage") == "usage");
    }
    SUBCASE("nnef-to-tosa") {
        json d = document("nnef-to-tosa", run_tool("nnef-to-tosa", "--format json" + weights + " " + quoted(classifier)));
        CHECK(d.at("format") == "nnef-tosa-graph");
        auto f = run_tool("nnef-to-tosa", "--format json " + quoted(broken));
        CHECK(f.code == 1);
        d = document("nnef-to-tosa", f);
        CHECK_FALSE(d.contains("format"));
    }
    SUBCASE("nnef-draw") {
        json d = document("nnef-draw", run_tool("nnef-draw", "--format json " + quoted(classifier)));
        CHECK(d.at("exit_status") == 0);
        CHECK(d.at("picture").at("schema") == "nnef-draw/1");
        // an invalid model: the picture still, with the first error marked, and exit status 1
        auto f = run_tool("nnef-draw", "--format json " + quoted(broken));
        CHECK(f.code == 1);
        d = document("nnef-draw", f);
        CHECK(d.at("picture").at("nodes").size() >= 1);
        CHECK(d.at("diagnostics")[0].at("line") == 5);
    }
    SUBCASE("nnef-to-nnapi") {
        const fs::path out = nnef_test::scratch_dir() / "cli-nnapi.json";
        json d = document("nnef-to-nnapi", run_tool("nnef-to-nnapi", "--format json -o " + quoted(out) + weights + " " + quoted(classifier)));
        CHECK(d.at("model") == out.string());
        CHECK(d.at("inputs")[0].at("layout") == "NHWC");
        d = document("nnef-to-nnapi", run_tool("nnef-to-nnapi", "--format json --partial" + weights + " " + quoted(classifier)));
        CHECK(d.at("operations").is_array());
        auto f = run_tool("nnef-to-nnapi", "--format json -o " + quoted(out) + " " + quoted(broken));
        CHECK(f.code == 1);
        d = document("nnef-to-nnapi", f);
        CHECK_FALSE(d.contains("model"));
    }
    SUBCASE("nnef-to-vpu") {
        json d = document("nnef-to-vpu", run_tool("nnef-to-vpu", "--format json --simulate" + weights + " " + quoted(classifier)));
        CHECK(d.at("simulation").at("makespan_cycles").get<double>() > 0);
        const fs::path out = nnef_test::scratch_dir() / "cli-tasks.json";
        d = document("nnef-to-vpu", run_tool("nnef-to-vpu", "--format json -o " + quoted(out) + weights + " " + quoted(classifier)));
        CHECK(d.at("task_list").at("file") == out.string());
        CHECK(d.at("task_list").at("constants_file") == (nnef_test::scratch_dir() / "cli-tasks.bin").string());
        auto v = run_tool("nnef-to-vpu", "--format json --simulate --input random:1 --compare " + quoted(nnef_test::scratch_dir() / "none") +
                                             weights + " " + quoted(classifier));
        CHECK(v.code == 2);  // the reference is missing: an I/O error
        d = document("nnef-to-vpu", v);
        const json* first_error = nullptr;  // after the note naming the profile
        for (const json& e : d.at("diagnostics"))
            if (!first_error && e.at("severity") == "error") first_error = &e;
        REQUIRE(first_error);
        CHECK(first_error->at("stage") == "io");
        auto f = run_tool("nnef-to-vpu", "--format json --simulate " + quoted(broken));
        CHECK(f.code == 1);
        document("nnef-to-vpu", f);
    }
}

TEST_CASE("the tools' messages share one style: WHERE: SEVERITY[STAGE]: text") {
    // a file problem names the file, a command-line problem the tool
    auto io = run_tool("nnef-flatten", quoted(nnef_test::scratch_dir() / "no-such-model"));
    CHECK(io.code == 2);
    CHECK_MESSAGE(contains(io.err, (nnef_test::scratch_dir() / "no-such-model").string() + ": error[io]: "), io.err);
    auto usage = run_tool("nnef-flatten", "");
    CHECK(usage.code == 2);
    CHECK_MESSAGE(contains(usage.err, "nnef-flatten: error[usage]: no input given\nusage: nnef-flatten [options] PATH"), usage.err);
    auto out = run_tool("nnef-flatten", "--no-weights -o " + quoted(nnef_test::scratch_dir() / "no-such-dir" / "x.nnef") + " " + quoted(sample_dir("classifier")));
    CHECK(out.code == 2);
    CHECK_MESSAGE(contains(out.err, "no-such-dir/x.nnef: error[io]: cannot write the file"), out.err);
}

}  // TEST_SUITE

}  // namespace cli_tools_test
