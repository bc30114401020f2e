// Prints the flat graph as a flat NNEF document.
#include <algorithm>
#include <sstream>

#include "semantics/expander.hpp"
#include "semantics/infer.hpp"

namespace nnef::sema {

namespace printer_cpp {

// Evaluates a literal default value (literals, arrays, tuples, unary minus).
bool literal_value(const ast::Expr& e, Value& out) {
    using K = ast::ExprKind;
    switch (e.kind) {
        case K::integer: out = Value::integer(e.ival); return true;
        case K::scalar: out = Value::scalar(e.sval); return true;
        case K::logical: out = Value::logical(e.bval); return true;
        case K::string: out = Value::string(e.text); return true;
        case K::paren: return literal_value(e.children[0], out);
        case K::unary: {
            Value v;
            if (!literal_value(e.children[0], v)) return false;
            if (e.op == "-" && v.is_integer()) out = Value::integer(-v.as_integer());
            else if (e.op == "-" && v.is_scalar()) out = Value::scalar(-v.as_scalar());
            else if (e.op == "+") out = v;
            else return false;
            return true;
        }
        case K::array:
        case K::tuple: {
            Value::Items items;
            for (const ast::Expr& c : e.children) {
                Value v;
                if (!literal_value(c, v)) return false;
                items.push_back(std::move(v));
            }
            out = e.kind == K::array ? Value::array(std::move(items)) : Value::tuple(std::move(items));
            return true;
        }
        default: return false;
    }
}

void print_declaration(std::ostream& os, const ast::Fragment& f) {
    os << "fragment " << f.name;
    if (f.generic) {
        os << "<?";
        if (f.generic_default) os << " = " << to_string(*f.generic_default);
        os << '>';
    }
    os << "( ";
    for (std::size_t i = 0; i < f.params.size(); ++i) {
        const ast::Param& p = f.params[i];
        if (i) os << ", ";
        os << p.name << ": " << to_string(p.type);
        Value v;
        if (p.default_value && literal_value(*p.default_value, v)) os << " = " << to_string(v);
    }
    os << " ) -> ( ";
    for (std::size_t i = 0; i < f.results.size(); ++i) {
        if (i) os << ", ";
        os << f.results[i].name << ": " << to_string(f.results[i].type);
    }
    os << " );\n";
}

}  // namespace printer_cpp

std::string print_flat(const Graph& graph, const Program& program, const PrintOptions& options) {
    std::ostringstream os;
    os << "version 1.0;\n";
    // Custom operations need their (body-less) declarations.
    std::vector<const ast::Fragment*> custom;
    for (const Operation& op : graph.operations) {
        const ast::Fragment* f = program.find(op.name);
        if (f && program.stdlib && !program.stdlib->find(op.name) &&
            std::find(custom.begin(), custom.end(), f) == custom.end())
            custom.push_back(f);
    }
    if (!custom.empty()) {
        os << "extension KHR_enable_fragment_definitions;\n\n";
        for (const ast::Fragment* f : custom) printer_cpp::print_declaration(os, *f);
    }
    os << "\ngraph " << graph.name << "( ";
    for (std::size_t i = 0; i < graph.inputs.size(); ++i) os << (i ? ", " : "") << graph.inputs[i];
    os << " ) -> ( ";
    for (std::size_t i = 0; i < graph.outputs.size(); ++i) os << (i ? ", " : "") << graph.outputs[i];
    os << " )\n{\n";
    for (const Operation& op : graph.operations) {
        const ast::Fragment* decl = program.find(op.name);
        os << "    ";
        if (op.outputs.size() == 1) {
            os << to_string(op.outputs[0].second);
        } else {
            os << '(';
            for (std::size_t i = 0; i < op.outputs.size(); ++i) os << (i ? ", " : "") << to_string(op.outputs[i].second);
            os << ')';
        }
        os << " = " << op.name;
        if (decl && decl->generic && op.dtype != PrimType::none && op.dtype != PrimType::generic)
            os << '<' << to_string(op.dtype) << '>';
        os << '(';
        bool first = true;
        for (const auto& [n, v] : op.inputs) {
            os << (first ? "" : ", ") << to_string(v);
            first = false;
        }
        for (const auto& [n, v] : op.attribs) {
            if (decl) {
                const ast::Param* p = nullptr;
                for (const ast::Param& q : decl->params)
                    if (q.name == n) p = &q;
                Value d;
                if (p && p->default_value && printer_cpp::literal_value(*p->default_value, d) && d == v) continue;
            }
            os << (first ? "" : ", ") << n << " = " << to_string(v);
            first = false;
        }
        os << ");";
        if (options.shapes) {
            os << "  #";
            for (const auto& [n, v] : op.outputs) {
                for (const std::string& t : tensor_names(v)) {
                    const Tensor* tensor = graph.tensor(t);
                    os << ' ' << t << ": " << (tensor && tensor->dtype != PrimType::none ? to_string(tensor->dtype) : "?");
                    os << (tensor && tensor->shape ? to_string(*tensor->shape) : "[unknown]");
                    if (tensor && tensor->quantization) {
                        os << " quantized " << tensor->quantization->algorithm << '(';
                        for (std::size_t i = 0; i < tensor->quantization->arguments.size(); ++i)
                            os << (i ? ", " : "") << tensor->quantization->arguments[i].first << " = "
                               << to_string(tensor->quantization->arguments[i].second);
                        os << ')';
                    }
                }
            }
        }
        os << '\n';
    }
    os << "}\n";
    return os.str();
}

}  // namespace nnef::sema
