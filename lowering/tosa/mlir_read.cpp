// The MLIR reader (mlir_read.hpp): the file's structure (module, functions, blocks and regions,
// operators in generic and pretty form, the dialect_resources trailer) and the finished graph.
#include "lowering/tosa/mlir_read.hpp"

#include <algorithm>
#include <new>
#include <unordered_map>

#include <nnef/source.hpp>

#include "lowering/tosa/mlir.hpp"
#include "lowering/tosa/mlir_read_graph.hpp"
#include "lowering/tosa/validator.hpp"

namespace nnef::tosa {

namespace mlir_read {

class Reader {
public:
    Reader(std::string_view text, std::uint32_t file, const MlirReadOptions& o) : c(text, o), file(file) {}

    Cursor c;
    std::uint32_t file;
    Graph g;
    bool have_function = false;
    std::string target_env;  // the inner text of #tosa.target_env<...>, if any
    std::vector<std::unordered_map<std::string, std::vector<ValueId>>> scopes;
    // Per scope: its block, and (regions) the values of enclosing scopes it uses: MLIR lets a
    // region capture them, TOSA's graphs are isolated, so each becomes a block argument of the
    // region and an operand of its operator (close_over).
    using Captures = std::vector<std::pair<ValueId, ValueId>>;  // outer value -> block argument
    std::vector<std::uint32_t> scope_blocks;
    std::vector<Captures> scope_captures;
    std::unordered_map<std::uint32_t, Captures> region_captures;  // by block, once parsed
    std::vector<std::optional<std::uint64_t>> numbers;  // per value: the number of its SSA name
    std::vector<PendingResource> pending;
    std::unordered_map<std::string, std::pair<std::string_view, std::size_t>> resources;  // name -> hex, offset
    std::size_t variables = 0;  // VARIABLE ops at the front of the main block

    // ---- values -------------------------------------------------------------------------------

    struct Def {
        std::string name;  // without %
        std::size_t count = 1, at = 0;
    };

    void define(const Def& d, const std::vector<ValueId>& ids) {
        if (d.count != ids.size())
            Cursor::fail_at(d.at, "%" + d.name + " names " + std::to_string(d.count) + " results, the operator has " +
                                      std::to_string(ids.size()));
        auto& scope = scopes.back();
        if (scope.count(d.name)) Cursor::fail_at(d.at, "%" + d.name + " is defined twice");
        scope[d.name] = ids;
        const bool numeric = std::all_of(d.name.begin(), d.name.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
        if (numbers.size() < g.values.size()) numbers.resize(g.values.size());
        if (numeric && d.name.size() < 10) numbers[ids[0]] = std::stoull(d.name);
        if (!numeric && ids.size() == 1) g.values[ids[0]].name = d.name;
    }

    ValueId use() {
        const std::size_t at = (c.ws(), c.p);
        c.expect('%', "(a value)");
        const std::string name(c.suffix_id("a value name after %"));
        std::size_t index = 0;
        if (c.p < c.text.size() && c.text[c.p] == '#') {
            ++c.p;
            const auto n = c.number();
            if (!n || n->is_float || n->is_hex || n->text[0] == '-') c.fail("expected a result number after #");
            index = static_cast<std::size_t>(std::min<std::int64_t>(Cursor::to_int(*n), 1 << 30));
        }
        for (std::size_t k = scopes.size(); k-- > 0;) {
            auto it = scopes[k].find(name);
            if (it == scopes[k].end()) continue;
            if (index >= it->second.size()) Cursor::fail_at(at, "%" + name + " has no result #" + std::to_string(index));
            ValueId v = it->second[index];
            for (std::size_t j = k + 1; j < scopes.size(); ++j) v = capture(j, v);  // through each region between
            return v;
        }
        Cursor::fail_at(at, "%" + name + " is not defined here");
    }

    // The block argument of scope j's region that stands for `outer` (made on its first use).
    ValueId capture(std::size_t j, ValueId outer) {
        for (const auto& [o, inner] : scope_captures[j])
            if (o == outer) return inner;
        const ValueId inner = g.add_value(g.type(outer));
        g.blocks[scope_blocks[j]].inputs.push_back(inner);
        scope_captures[j].emplace_back(outer, inner);
        return inner;
    }

    // The values p's regions captured become operands of p (in the order of first capture) and
    // arguments of every region, after its own; a WHILE_LOOP carries them (the body passes them on,
    // the loop returns them as extra results, unnamed).
    void close_over(ParsedOp& p, OpKind kind) {
        std::vector<ValueId> outer;
        for (std::uint32_t r : p.regions)
            for (const auto& [o, inner] : region_captures[r])
                if (std::find(outer.begin(), outer.end(), o) == outer.end()) outer.push_back(o);
        if (outer.empty()) return;
        for (std::uint32_t r : p.regions) {
            Captures& caps = region_captures[r];
            std::vector<ValueId>& inputs = g.blocks[r].inputs;
            inputs.resize(inputs.size() - caps.size());
            for (ValueId o : outer) {
                auto found = std::find_if(caps.begin(), caps.end(), [o](const auto& c) { return c.first == o; });
                inputs.push_back(found != caps.end() ? found->second : g.add_value(g.type(o)));
            }
        }
        for (ValueId o : outer) {
            p.operands.push_back(o);
            p.operand_at.push_back(p.at);
            p.operand_types.push_back(g.type(o));
        }
        if (kind == OpKind::WHILE_LOOP && p.regions.size() == 2) {
            const Block& body = g.blocks[p.regions[1]];
            const std::size_t first = body.inputs.size() - outer.size();
            for (std::size_t i = 0; i < outer.size(); ++i) {
                p.result_types.push_back(g.type(outer[i]));
                g.blocks[p.regions[1]].outputs.push_back(body.inputs[first + i]);
            }
        }
    }

    std::vector<ValueId> uses_until(char close) {
        std::vector<ValueId> out;
        if (c.peek() == close) return out;
        do out.push_back(use());
        while (c.eat(','));
        return out;
    }

    // `%a, %b:2 =` before an operator, if any.
    std::vector<Def> results() {
        std::vector<Def> defs;
        if (c.peek() != '%') return defs;
        do {
            Def d = def("(a result)");
            if (c.eat(':')) {
                const auto n = c.number();
                if (!n || n->is_float || n->is_hex || n->text[0] == '-' || n->text.size() > 6) c.fail("expected a result count");
                d.count = static_cast<std::size_t>(Cursor::to_int(*n));
            }
            defs.push_back(std::move(d));
        } while (c.eat(','));
        c.expect('=', "after the results");
        return defs;
    }

    // `%name` being defined (a result, an argument).
    Def def(const char* what) {
        Def d;
        d.at = (c.ws(), c.p);
        c.expect('%', what);
        d.name = std::string(c.suffix_id("a name after %"));
        return d;
    }

    // `%a: type [{attributes}] [loc(...)], ...)` after a '(' (arguments of a block or function).
    std::vector<std::pair<Def, TensorType>> typed_arguments(std::size_t depth) {
        std::vector<std::pair<Def, TensorType>> args;
        if (c.eat(')')) return args;
        do {
            Def d = def("(an argument)");
            c.expect(':', "after an argument");
            const TensorType t = parse_value_type(c);
            if (c.peek() == '{') parse_attr(c, depth + 1);  // argument attributes
            c.skip_location();
            args.emplace_back(std::move(d), t);
        } while (c.eat(','));
        c.expect(')', "to end the arguments");
        return args;
    }

    void define_all(const std::vector<Def>& defs, const std::vector<ValueId>& ids, std::size_t at) {
        std::size_t named = 0, k = 0;
        for (const Def& d : defs) named += d.count;
        if (named != ids.size())
            Cursor::fail_at(at, "the operator has " + std::to_string(ids.size()) + " results, " + std::to_string(named) + " are named");
        for (const Def& d : defs) {
            define(d, std::vector<ValueId>(ids.begin() + static_cast<std::ptrdiff_t>(k), ids.begin() + static_cast<std::ptrdiff_t>(k + d.count)));
            k += d.count;
        }
    }

    // ---- blocks and regions -------------------------------------------------------------------

    // `^bb0(%a: t, ...):` when present; else the block arguments `implicit` (the pretty forms).
    void block_header(std::uint32_t block, const std::vector<std::pair<Def, TensorType>>& implicit) {
        std::vector<std::pair<Def, TensorType>> args = implicit;
        if (c.peek() == '^') {
            ++c.p;
            c.suffix_id("a block name");
            args.clear();
            if (c.eat('(')) args = typed_arguments(0);
            c.expect(':', "after the block header");
        }
        for (const auto& [d, t] : args) {
            const ValueId v = g.add_value(t);
            g.blocks[block].inputs.push_back(v);
            define(d, {v});
        }
    }

    // Operators up to the terminator (`return` in a function, `tosa.yield` in a region); its
    // operands become the block's outputs.
    void block_body(std::uint32_t block, bool function, std::size_t depth) {
        for (;;) {
            if (c.at_end()) c.fail(function ? "the function does not end (no return)" : "the region does not end (no tosa.yield)");
            if (c.peek() == '}') c.fail(function ? "the function ends without a return" : "the region ends without tosa.yield");
            if (c.peek() == '^') c.fail("a second block: only single-block regions are read");
            if (operation(block, function, depth)) return;
        }
    }

    std::uint32_t region(const std::string& name, const std::vector<std::pair<Def, TensorType>>& implicit, std::size_t depth) {
        c.check_nesting(depth);
        c.expect('{', "to begin a region");
        const std::uint32_t b = g.add_block(name + "." + std::to_string(g.blocks.size()));
        scopes.emplace_back();
        scope_blocks.push_back(b);
        scope_captures.emplace_back();
        block_header(b, implicit);
        block_body(b, false, depth);
        region_captures[b] = std::move(scope_captures.back());
        scopes.pop_back();
        scope_blocks.pop_back();
        scope_captures.pop_back();
        c.expect('}', "to end the region");
        return b;
    }

    // ---- operators ----------------------------------------------------------------------------

    // The terminator's operands (and their types, checked) as the block's outputs.
    void terminator(std::uint32_t block, std::vector<ValueId> outs, const std::vector<TensorType>& types, std::size_t at) {
        if (outs.size() != types.size())
            Cursor::fail_at(at, "the terminator lists " + std::to_string(types.size()) + " types for " + std::to_string(outs.size()) + " values");
        for (std::size_t i = 0; i < outs.size(); ++i)
            if (g.type(outs[i]) != types[i])
                Cursor::fail_at(at, "value " + std::to_string(i + 1) + " of the terminator is " + type_text(g.type(outs[i])) +
                                        ", its type is written as " + type_text(types[i]));
        g.blocks[block].outputs = std::move(outs);
    }

    void signature(ParsedOp& p) {
        c.expect(':', ("before the type of " + p.name).c_str());
        p.operand_types = parse_type_list(c);
        c.expect("->", "in the operator's type");
        p.result_types = parse_type_list(c);
    }

    void properties(ParsedOp& p, std::size_t depth) {
        if (c.eat("<{")) {
            auto e = parse_dict_entries(c, depth + 1);
            p.attrs.insert(p.attrs.end(), e.begin(), e.end());
            c.expect('>', "to end the properties <{...}>");
        }
    }
    void attr_dict(ParsedOp& p, std::size_t depth) {
        if (c.peek() == '{' && c.text.substr(c.p, 3) != "{-#") {
            ++c.p;
            auto e = parse_dict_entries(c, depth + 1);
            p.attrs.insert(p.attrs.end(), e.begin(), e.end());
        }
    }

    // One operator statement in `block`; true when it was the block's terminator.
    bool operation(std::uint32_t block, bool function, std::size_t depth) {
        ParsedOp p;
        p.at = (c.ws(), c.p);
        const std::vector<Def> defs = results();
        if (!defs.empty()) p.result = defs[0].name;
        const std::size_t name_at = (c.ws(), c.p);
        const bool generic = c.peek() == '"';
        p.name = generic ? c.string_literal() : std::string(c.bare_id("an operation name"));
        const bool is_return = p.name == "return" || p.name == "func.return";
        const bool is_yield = p.name == "tosa.yield";
        if (is_return || is_yield) {
            if (is_return != function) Cursor::fail_at(name_at, p.name + (function ? " outside a region" : " in a region: it ends a function"));
            if (!defs.empty()) Cursor::fail_at(p.at, p.name + " has no results");
            std::vector<ValueId> outs;
            std::vector<TensorType> types;
            if (generic) {
                c.expect('(', ("after \"" + p.name + "\"").c_str());
                outs = uses_until(')');
                c.expect(')', "after the operands");
                attr_dict(p, depth);
                signature(p);
                if (!p.result_types.empty()) Cursor::fail_at(name_at, p.name + " has no results");
                types = p.operand_types;
            } else {
                if (c.peek() == '%') outs = uses_until(':');
                if (!outs.empty()) {
                    c.expect(':', "before the types of the returned values");
                    do types.push_back(parse_value_type(c));
                    while (c.eat(','));
                }
            }
            c.skip_location();
            terminator(block, std::move(outs), types, name_at);
            return true;
        }
        const std::optional<OpKind> kind = op_kind_of(p.name);
        if (!kind) {
            if (p.name.rfind("tosa.", 0) == 0) Cursor::fail_at(name_at, "unknown operation '" + p.name + "' (not a TOSA 1.0 operator)");
            Cursor::fail_at(name_at, "operation '" + p.name + "' is not of the tosa dialect (read: tosa operators, func.func, func.return)");
        }
        if (*kind == OpKind::VARIABLE) Cursor::fail_at(name_at, "tosa.variable inside a function: it belongs to the module");
        if (generic) {
            c.expect('(', ("after \"" + p.name + "\"").c_str());
            if (c.peek() != ')') do {
                    p.operand_at.push_back((c.ws(), c.p));
                    p.operands.push_back(use());
                } while (c.eat(','));
            c.expect(')', "after the operands");
            if (c.peek() == '[') c.fail("successors: only single-block regions are read");
            properties(p, depth);
            if (c.eat('(')) {
                const bool cond = *kind == OpKind::COND_IF;
                p.regions.push_back(region(cond ? "then_graph" : "cond_graph", {}, depth + 1));
                while (c.eat(',')) p.regions.push_back(region(cond ? "else_graph" : "body_graph", {}, depth + 1));
                c.expect(')', "to end the regions");
            }
            attr_dict(p, depth);
            signature(p);
        } else {
            pretty(p, *kind, depth);
        }
        c.skip_location();
        p.end = c.p;
        const std::size_t written_results = p.result_types.size();
        close_over(p, *kind);
        std::vector<ValueId> ids = add_operator(g, block, *kind, p, file, pending);
        ids.resize(std::min(ids.size(), written_results));  // results a WHILE_LOOP adds for captures: unnamed
        define_all(defs, ids, p.at);
        (void)function;
        return false;
    }

    void operand(ParsedOp& p) {
        p.operand_at.push_back((c.ws(), c.p));
        p.operands.push_back(use());
    }

    // The pretty forms mlir-opt prints.
    void pretty(ParsedOp& p, OpKind kind, std::size_t depth) {
        if (kind == OpKind::VARIABLE_READ || kind == OpKind::VARIABLE_WRITE) {
            AttrNode name;
            name.at = (c.ws(), c.p);
            name.kind = AttrNode::symbol;
            name.str = c.symbol();
            p.attrs.emplace_back("name", name);
            if (kind == OpKind::VARIABLE_WRITE) {
                c.expect(',', "after the variable");
                operand(p);
            }
            attr_dict(p, depth);
            c.expect(':', "before the variable's type");
            const TensorType t = parse_value_type(c);
            if (kind == OpKind::VARIABLE_READ) p.result_types = {t};
            else p.operand_types = {t};
            return;
        }
        if (kind == OpKind::COND_IF || kind == OpKind::WHILE_LOOP) {
            const bool cond = kind == OpKind::COND_IF;
            if (cond) operand(p);
            std::vector<std::pair<Def, TensorType>> args;  // (%a = %v, ...)
            if (c.eat('(')) {
                do {
                    Def d = def("(a region argument)");
                    c.expect('=', "after a region argument");
                    operand(p);
                    args.emplace_back(std::move(d), g.type(p.operands.back()));
                } while (c.eat(','));
                c.expect(')', "to end the region arguments");
            }
            c.expect(':', ("before the type of " + p.name).c_str());
            if (cond) p.operand_types.push_back(parse_value_type(c));
            if (c.peek() == '(') {
                for (const TensorType& t : parse_type_list(c)) p.operand_types.push_back(t);
            }
            c.expect("->", "in the operator's type");
            p.result_types = parse_type_list(c);
            for (std::size_t i = 0; i < args.size() && i + cond < p.operand_types.size(); ++i) args[i].second = p.operand_types[i + cond];
            p.regions.push_back(region(cond ? "then_graph" : "cond_graph", args, depth + 1));
            if (!c.eat_word(cond ? "else" : "do")) c.fail(cond ? "expected 'else' and the second region" : "expected 'do' and the loop body");
            p.regions.push_back(region(cond ? "else_graph" : "body_graph", args, depth + 1));
            attr_dict(p, depth);
            return;
        }
        if (c.peek() == '%') do operand(p);
            while (c.eat(','));
        attr_dict(p, depth);
        signature(p);
    }

    // ---- module level -------------------------------------------------------------------------

    void variable(bool generic, std::size_t depth) {
        ParsedOp p;
        p.at = (c.ws(), c.p);
        if (generic) {
            c.string_literal();
            c.expect('(', "after \"tosa.variable\"");
            c.expect(')', "(tosa.variable takes no operand)");
            properties(p, depth);
            attr_dict(p, depth);
            signature(p);
            if (!p.operand_types.empty() || !p.result_types.empty()) Cursor::fail_at(p.at, "tosa.variable takes no operand and has no result");
        } else {
            c.bare_id("tosa.variable");
            AttrNode name;
            name.at = (c.ws(), c.p);
            name.kind = AttrNode::string;
            name.str = c.symbol();
            p.attrs.emplace_back("sym_name", name);
            std::optional<AttrNode> init;
            if (c.eat('=')) init = parse_attr(c, depth + 1);
            attr_dict(p, depth);
            AttrNode type;
            type.at = (c.ws(), c.p);
            if (init) {
                type.type = init->type;
                p.attrs.emplace_back("initial_value", *init);
            } else {
                c.expect(':', "before the variable's type");
                type.type = parse_value_type(c);
            }
            AttrNode shape;
            shape.at = type.at;
            shape.kind = AttrNode::dense;
            shape.type = {DType::shape, {static_cast<std::int64_t>(type.type.rank())}};
            auto data = ConstData::allocate(shape.type);
            std::copy(type.type.shape.begin(), type.type.shape.end(), data->mutable_items<std::int64_t>());
            shape.data = data;
            p.attrs.emplace_back("var_shape", shape);
            type.kind = AttrNode::type_value;
            type.type = {type.type.dtype, {}};
            p.attrs.emplace_back("type", type);
        }
        c.skip_location();
        p.end = c.p;
        p.name = "tosa.variable";
        // Variables lead the main block, in the module's order.
        const std::size_t before = g.main().ops.size();
        add_operator(g, 0, OpKind::VARIABLE, p, file, pending);
        std::rotate(g.main().ops.begin() + static_cast<std::ptrdiff_t>(variables), g.main().ops.begin() + static_cast<std::ptrdiff_t>(before),
                    g.main().ops.end());
        for (PendingResource& r : pending)
            if (r.block == 0 && r.op >= variables) r.op = r.op == before ? variables : r.op + 1;
        ++variables;
    }

    void function(bool generic, std::size_t depth) {
        const std::size_t at = (c.ws(), c.p);
        if (have_function)
            Cursor::fail_at(at, "a second function: the reader takes a module of one function (the graph)");
        have_function = true;
        scopes.emplace_back();
        scope_blocks.push_back(0);
        scope_captures.emplace_back();
        std::vector<TensorType> result_types;
        if (generic) {
            c.string_literal();
            c.expect('(', "after \"func.func\"");
            c.expect(')', "(func.func takes no operand)");
            ParsedOp p;
            properties(p, depth);
            const AttrNode* type = nullptr;
            for (const auto& [k, v] : p.attrs) {
                if (k == "function_type" && v.kind == AttrNode::function) type = &v;
                if (k == "sym_name" && v.kind == AttrNode::string) g.name = v.str;
            }
            if (!type) Cursor::fail_at(at, "\"func.func\" without a function_type");
            result_types = type->results;
            std::vector<std::pair<Def, TensorType>> implicit;
            c.expect('(', "before the function's region");
            c.expect('{', "to begin the function's body");
            block_header(0, implicit);
            if (g.main().inputs.size() != type->inputs.size())
                Cursor::fail_at(at, "the function's type has " + std::to_string(type->inputs.size()) + " arguments, its block " +
                                        std::to_string(g.main().inputs.size()));
            for (std::size_t i = 0; i < type->inputs.size(); ++i)
                if (g.type(g.main().inputs[i]) != type->inputs[i]) Cursor::fail_at(at, "argument " + std::to_string(i + 1) + " differs from the function's type");
            block_body(0, true, depth + 1);
            c.expect('}', "to end the function's body");
            c.expect(')', "after the function's region");
            attr_dict(p, depth);
            empty_signature("function");
        } else {
            c.bare_id("func.func");
            c.eat_word("public") || c.eat_word("private") || c.eat_word("nested");
            g.name = c.symbol();
            c.expect('(', "before the function's arguments");
            for (auto& [d, t] : typed_arguments(depth)) {
                const ValueId v = g.add_value(t);
                g.main().inputs.push_back(v);
                define(d, {v});
            }
            if (c.eat("->")) {
                const bool list = c.eat('(');
                if (!list || !c.eat(')')) {
                    do {
                        result_types.push_back(parse_value_type(c));
                        if (list && c.peek() == '{') parse_attr(c, depth + 1);  // result attributes
                    } while (list && c.eat(','));
                    if (list) c.expect(')', "to end the function's results");
                }
            }
            if (c.eat_word("attributes")) parse_attr(c, depth + 1);
            c.expect('{', "to begin the function's body");
            block_body(0, true, depth + 1);
            c.expect('}', "to end the function's body");
        }
        c.skip_location();
        if (result_types.size() != g.main().outputs.size())
            Cursor::fail_at(at, "the function has " + std::to_string(result_types.size()) + " results, its return " +
                                    std::to_string(g.main().outputs.size()));
        for (std::size_t i = 0; i < result_types.size(); ++i)
            if (g.type(g.main().outputs[i]) != result_types[i])
                Cursor::fail_at(at, "result " + std::to_string(i + 1) + " is " + type_text(result_types[i]) + ", the return gives " +
                                        type_text(g.type(g.main().outputs[i])));
        scopes.pop_back();
        scope_blocks.pop_back();
        scope_captures.pop_back();
    }

    // `: () -> ()` after a generic function or module.
    void empty_signature(const char* what) {
        ParsedOp p;
        p.name = what;
        signature(p);
        if (!p.operand_types.empty() || !p.result_types.empty()) c.fail(std::string("the generic ") + what + " has the type () -> ()");
    }

    // One item at module level: a function or a variable.
    void module_item(std::size_t depth) {
        c.ws();
        const std::size_t at = c.p;
        const std::string_view rest = c.text.substr(c.p, 20);
        if (rest.rfind("func.func", 0) == 0 || rest.rfind("\"func.func\"", 0) == 0) return function(rest[0] == '"', depth);
        if (rest.rfind("tosa.variable", 0) == 0 || rest.rfind("\"tosa.variable\"", 0) == 0) return variable(rest[0] == '"', depth);
        if (rest.rfind("module", 0) == 0 || rest.rfind("\"builtin.module\"", 0) == 0) return module(depth + 1);
        if (c.peek() == '%') Cursor::fail_at(at, "an operation with results at module level: operators belong in the function");
        Cursor::fail_at(at, "expected func.func or tosa.variable in the module");
    }

    void module_attributes(const AttrNode& dict) {
        for (const auto& [k, v] : dict.entries)
            if (k == "tosa.target_env" && v.kind == AttrNode::dialect && v.str == "tosa.target_env") target_env = v.inner;
    }

    void module(std::size_t depth) {
        c.check_nesting(depth);
        if (c.peek() == '"') {
            c.string_literal();
            c.expect('(', "after \"builtin.module\"");
            c.expect(')', "(builtin.module takes no operand)");
            ParsedOp p;
            properties(p, depth);
            c.expect('(', "before the module's region");
            c.expect('{', "to begin the module's body");
            while (c.peek() != '}') {
                if (c.at_end()) c.fail("the module does not end");
                module_item(depth);
            }
            c.expect('}', "to end the module");
            c.expect(')', "after the module's region");
            if (c.peek() == '{') module_attributes(parse_attr(c, depth + 1));
            empty_signature("module");
        } else {
            c.bare_id("module");
            if (c.peek() == '@') c.symbol();
            if (c.eat_word("attributes")) module_attributes(parse_attr(c, depth + 1));
            c.expect('{', "to begin the module");
            while (c.peek() != '}') {
                if (c.at_end()) c.fail("the module does not end");
                module_item(depth);
            }
            c.expect('}', "to end the module");
        }
        c.skip_location();
    }

    // {-# dialect_resources: { builtin: { name: "0x...", ... } } #-}
    void resources_section() {
        c.expect("{-#", "");
        while (!c.eat("#-}")) {
            if (c.at_end()) c.fail("the {-# ... #-} section does not end");
            const std::string_view section = c.bare_id("dialect_resources or external_resources");
            c.expect(':', "after the section name");
            c.expect('{', "to begin the section");
            while (!c.eat('}')) {
                const std::string_view dialect = c.bare_id("a dialect name");
                c.expect(':', "after the dialect name");
                c.expect('{', "to begin the dialect's resources");
                while (!c.eat('}')) {
                    c.ws();
                    const std::string name = c.peek() == '"' ? c.string_literal() : std::string(c.suffix_id("a resource name"));
                    c.expect(':', "after the resource name");
                    c.ws();
                    const std::size_t at = c.p + 1;
                    if (c.peek() == '"') {
                        const std::string_view hex = c.raw_string();
                        if (section == "dialect_resources" && dialect == "builtin") resources[name] = {hex, at};
                    } else {
                        parse_attr(c, 1);  // another kind of resource: not data
                    }
                    c.eat(',');
                }
                c.eat(',');
            }
            c.eat(',');
        }
    }

    void run() {
        while (!c.at_end()) {
            const std::string_view rest = c.text.substr(c.p, 20);
            if (rest.rfind("{-#", 0) == 0) {
                resources_section();
            } else if (rest[0] == '#') {  // #alias = attribute, or = loc(...)
                ++c.p;
                c.bare_id("an attribute alias");
                c.expect('=', "after the alias name");
                c.ws();
                if (c.text.substr(c.p, 4) == "loc(") c.skip_location();
                else parse_attr(c, 1);
            } else if (rest[0] == '!') {
                c.fail("type aliases are not read");
            } else {
                module_item(0);
            }
        }
        if (!have_function) c.fail("no func.func: the file holds no graph");
        for (const PendingResource& r : pending) {
            auto it = resources.find(r.name);
            if (it == resources.end()) Cursor::fail_at(r.at, "dense_resource<" + r.name + "> has no blob in the file's dialect_resources");
            Op& op = g.blocks[r.block].ops[r.op];
            op.set(r.attr, decode_blob(it->second.first, r.type, it->second.second));
        }
        numbers.resize(g.values.size());
        number_values(g, numbers);
    }
};

}  // namespace mlir_read

bool is_mlir_path(const std::string& path) { return path.size() > 5 && path.compare(path.size() - 5, 5, ".mlir") == 0; }

std::optional<MlirModule> read_mlir(const SourceManager& sources, std::uint32_t file, const MlirReadOptions& options,
                                    Diagnostics& diags) {
    using namespace mlir_read;
    const std::string_view text = sources.text(file);
    auto error = [&](std::size_t at, const std::string& message) {
        const auto offset = static_cast<std::uint32_t>(std::min<std::size_t>(at, text.size()));
        diags.error(Stage::tosa, "bad-mlir", message, SourceRange{file, offset, offset});
    };
    if (text.size() >= (std::size_t(1) << 32)) {
        error(0, "the MLIR file is larger than 4 GiB");
        return std::nullopt;
    }
    MlirModule m;
    try {
        Reader r(text, file, options);
        r.run();
        m.graph = std::move(r.g);
        const std::string& env = r.target_env;
        if (!env.empty()) {
            const std::size_t pb = env.find("profiles"), pe = env.find(']', pb);
            if (pb != std::string::npos && pe != std::string::npos) {
                m.profile_from_target = true;
                m.graph.profile = env.substr(pb, pe - pb).find("pro_int") != std::string::npos ? Profile::pro_int : Profile::pro_fp;
            }
            if (env.find("level = \"none\"") != std::string::npos) m.level = Level::none();
        }
        if (!m.profile_from_target) m.graph.profile = guess_profile(m.graph);
    } catch (const ParseError& e) {
        error(e.at, e.message);
        return std::nullopt;
    } catch (const std::bad_alloc&) {
        error(0, "out of memory reading the MLIR file");
        return std::nullopt;
    }
    if (options.profile) m.graph.profile = *options.profile;
    if (options.level) m.level = *options.level;
    if (options.validate) {
        ValidateOptions vo;
        vo.profile = m.graph.profile;
        vo.level = m.level;
        vo.extensions = validation_extensions(m.graph);
        if (!validate(m.graph, vo, diags)) return std::nullopt;
    }
    return m;
}

}  // namespace nnef::tosa
