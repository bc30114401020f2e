// The front-end pipeline behind nnef::Session.
#include <nnef/nnef.hpp>

#include <exception>
#include <functional>

#include "grammar/parse.hpp"
#include "nnef/detail/deep_stack.hpp"
#include "semantics/checker.hpp"
#include "semantics/expander.hpp"
#include "semantics/plain_flat.hpp"
#include "semantics/stdlib.hpp"
#include "storage/container.hpp"
#include "storage/model.hpp"
#include "storage/quant_file.hpp"
#include "storage/quantization.hpp"

namespace nnef {

const char* version() {
#ifdef NNEF_VERSION_STRING
    return NNEF_VERSION_STRING;
#else
    return "0.1.0";
#endif
}

struct Session::Impl {
    FlattenOptions options;
    SourceManager sources;
    Diagnostics diagnostics;
    std::shared_ptr<const sema::Stdlib> stdlib;
    std::optional<ast::Document> document;
    sema::Program program;
    std::optional<sema::Expansion> expansion;
    std::optional<sema::Expansion> partial;  // FlattenOptions::keep_partial
    std::optional<FailedStatement> failed;
    std::vector<std::string> no_custom;
    std::optional<storage::Container> container;
    bool collect_exports = false;  // a graph.quant will name tensors
    bool need_operations = false;  // weights or a graph.quant will be attached to them
    std::vector<SourceRange> no_sites;
    bool used_plain_fast_path = false;
    WeightsReport weights;

    explicit Impl(FlattenOptions o) : options(std::move(o)), diagnostics(options.options.limits.max_errors) {}

    sema::ExpandOptions expand_options() const {
        sema::ExpandOptions x;
        x.options = options.options;
        x.expand_all = options.expand_all;
        x.expand.insert(options.expand.begin(), options.expand.end());
        x.input_shapes = options.input_shapes;
        x.custom = options.custom_shapes;
        x.collect_exports = collect_exports;
        x.keep_operations = options.keep_operations || need_operations;
        return x;
    }

    // The pipeline recurses as deep as the document nests and its fragments recurse: it runs on a
    // large stack of its own (nnef/detail/deep_stack.hpp).
    // graph.quant (spec 5.3) is optional; when present its entries must name exported tensors
    // and use quantization fragments with well-typed arguments. False (graph dropped) on an error.
    bool apply_quant(std::string name, std::string text) {
        std::uint32_t qfile = sources.add(std::move(name), std::move(text));
        if (!storage::apply_quantization(expansion->graph, program, &expansion->exported, sources, qfile, options.options,
                                         diagnostics)) {
            drop_expansion();
            return false;
        }
        return true;
    }

    // A failed load drops the graph, or keeps it as the partial graph (keep_partial).
    void drop_expansion() {
        if (options.keep_partial && expansion) partial = std::move(expansion);
        expansion.reset();
    }

    // The standard library and the plain flat fast path recurse only to a small fixed depth: with
    // ample stack they run in place (no thread made, see kInPlaceStackBytes), and only a document
    // the fast path does not take goes to the deep stack.
    bool run(std::uint32_t file) {
        if (detail::ample_stack_here()) {
            if (!load_library()) return false;
            if (run_plain_fast_path(file)) return true;
            return detail::on_deep_stack([&] { return run_full(file); });
        }
        return detail::on_deep_stack([&] { return load_library() && (run_plain_fast_path(file) || run_full(file)); });
    }

    // The front end in one pass over the text: the parser hands each statement of the graph body
    // to the checker and then to the expander as soon as it is parsed, so the body's syntax tree
    // never exists whole (a big flat graph needs memory for its graph, not for its text's tree).
    // The diagnostics are those of the stages run one after the other: each stage's go to a
    // buffer of their own, and a stage's count only when the stages before it have no error
    // (spec chapter 6: a document with a syntax error gets syntax errors only, and so on).
    class Pipeline final : public grammar::StatementSink {
    public:
        explicit Pipeline(Impl& session)
            : semantic(session.options.options.limits.max_errors),
              shape(session.options.options.limits.max_errors),
              s_(session),
              xo_(session.expand_options()) {}

        void begin_graph(const ast::Document& doc, const ast::GraphDef& header, bool syntax_errors) override {
            if (syntax_errors) return;
            checking_.emplace(doc, s_.stdlib, s_.options.options, semantic);
            checking_->check_declarations();
            if (semantic.limit_reached()) return;
            checking_->begin_graph(header);
            if (semantic.has_errors()) return;
            expanding_.emplace(checking_->program(), xo_, shape);
            expanding_->begin_graph(header);
        }

        void statement(const ast::Assignment& a, bool syntax_errors) override {
            if (syntax_errors) {  // only syntax diagnostics will count: stop the other stages
                keep_partial();
                expanding_.reset();
                return;
            }
            if (!checking_) return;
            checking_->statement(a);
            if (semantic.has_errors()) {
                if (expanding_ && s_.options.keep_partial) record_failed(a);
                keep_partial();
                expanding_.reset();
                return;
            }
            if (expanding_) expanding_->statement(a);
        }

        void end_graph(bool syntax_errors) override {
            if (syntax_errors) keep_partial();
            if (syntax_errors || !checking_) return;
            checking_->end_graph();
            if (semantic.has_errors() || !expanding_) return;
            expansion = expanding_->finish();
            expanding_.reset();
        }

        // The checked program (after a successful end_graph), pointing at `doc`.
        sema::Program take_program(const ast::Document& doc) {
            sema::Program p = checking_ ? checking_->take_program() : sema::Program{};
            p.document = &doc;
            return p;
        }

        Diagnostics semantic;
        Diagnostics shape;
        std::optional<sema::Expansion> expansion;

    private:
        // keep_partial: the graph of the statements expanded so far.
        void keep_partial() {
            if (expanding_ && s_.options.keep_partial && !s_.partial) s_.partial = expanding_->finish();
        }

        // keep_partial: what the statement of the first semantic error says.
        void record_failed(const ast::Assignment& a) {
            if (s_.failed) return;
            FailedStatement f;
            f.range = a.range;
            std::function<void(const ast::Expr&, std::vector<std::string>&)> names = [&](const ast::Expr& e,
                                                                                           std::vector<std::string>& out) {
                if (e.kind == ast::ExprKind::identifier) out.push_back(e.text.str());
                else if (e.kind != ast::ExprKind::invocation || &out == &f.arguments)
                    for (const ast::Expr& c : e.children) names(c, out);
            };
            names(a.lhs, f.results);
            if (a.rhs.kind == ast::ExprKind::invocation) f.operation = a.rhs.text.str();
            names(a.rhs, f.arguments);
            s_.failed = std::move(f);
        }

        Impl& s_;
        sema::ExpandOptions xo_;
        std::optional<sema::Checking> checking_;
        std::optional<sema::Expanding> expanding_;  // before checking_ is destroyed: it refers to its program
    };

    bool load_library() {
        Diagnostics lib_diags;
        stdlib = sema::load_stdlib(sources, options.options.strict, lib_diags);
        diagnostics.append(lib_diags);
        return stdlib && !lib_diags.has_errors();
    }

    // True when the plain flat fast path took the document (semantics/plain_flat.hpp).
    bool run_plain_fast_path(std::uint32_t file) {
        used_plain_fast_path = false;
        const sema::ExpandOptions xo = expand_options();
        if (options.plain_fast_path && sema::plain_flat_applies(xo)) {
            if (auto fast = sema::check_plain_flat(sources, file, *stdlib, xo,
                                                   options.parallel_scan ? sema::plain_parallel_from : 0)) {
                document = std::move(fast->document);
                Diagnostics none(options.options.limits.max_errors);
                sema::Checking checking(*document, stdlib, options.options, none);
                program = checking.take_program();
                program.document = &*document;
                expansion = std::move(fast->expansion);
                used_plain_fast_path = true;
                return true;
            }
        }
        return false;
    }

    // The whole front end, on the deep stack.
    bool run_full(std::uint32_t file) {
        grammar::ParseOptions po;
        po.options = options.options;
        Pipeline pipeline(*this);
        document = grammar::parse(sources, file, po, diagnostics, &pipeline);
        if (!document || diagnostics.has_errors()) return false;
        diagnostics.append(pipeline.semantic);
        if (pipeline.semantic.has_errors()) return false;
        program = pipeline.take_program(*document);
        diagnostics.append(pipeline.shape);
        if (pipeline.shape.has_errors() || !pipeline.expansion) {
            if (options.keep_partial && pipeline.expansion) partial = std::move(pipeline.expansion);
            return false;
        }
        expansion = std::move(pipeline.expansion);
        return true;
    }
};

Session::Session(FlattenOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}
Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

bool Session::load_text(std::string name, std::string text) {
    if (text.size() >= 0xFFFFFFF0u) {
        Diagnostic d;
        d.stage = Stage::io;
        d.code = "file-too-large";
        d.message = "document is larger than 4 GiB";
        d.path = name;
        impl_->diagnostics.add(std::move(d));
        return false;
    }
    std::uint32_t file = impl_->sources.add(std::move(name), std::move(text));
    return impl_->run(file);
}

bool Session::load_text(std::string name, std::string text, std::string quant_name, std::string quant_text) {
    impl_->collect_exports = true;
    impl_->need_operations = true;
    if (!load_text(std::move(name), std::move(text))) return false;
    if (!impl_->apply_quant(std::move(quant_name), std::move(quant_text))) return false;
    if (!storage::check_quantization(impl_->expansion->graph, impl_->diagnostics)) {
        impl_->drop_expansion();
        return false;
    }
    return true;
}

bool Session::load_path(const std::string& path) {
    storage::ContainerLimits limits;
    limits.max_members = impl_->options.max_archive_members;
    limits.max_total_bytes = impl_->options.max_archive_bytes;
    Result<storage::Container> c = storage::open_container(path, limits);
    impl_->diagnostics.append(c.diagnostics);
    if (!c.value) return false;
    impl_->container = std::move(*c.value);
    impl_->weights = {};
    storage::Container& con = *impl_->container;
    // Tensor data: every variable's file from a folder or archive (spec chapter 6, step 4), unless
    // only the structure is asked for or, where allowed, the model holds no tensor file at all; for
    // a bare graph.nnef file, the files beside it that exist.
    const bool graph_file = con.kind == storage::Container::Kind::graph_file;
    const bool attach =
        impl_->options.load_weights &&
        (graph_file ? storage::may_have_tensor_files_beside(con.origin)
                    : !(impl_->options.weights_optional && storage::has_no_tensor_files(con)));
    // graph.quant may name only exported tensors: the expander tells which they are.
    impl_->collect_exports = con.quant_text.has_value();
    impl_->need_operations = con.quant_text.has_value() || attach;
    // The text moves into the SourceManager (the container needs only its other members).
    if (!load_text(con.graph_name, std::move(con.graph_text))) return false;
    // graph.quant (spec 5.3) is optional; when present its entries must name exported tensors
    // and use quantization fragments with well-typed arguments.
    if (con.quant_text && !impl_->apply_quant(con.quant_name.value_or("graph.quant"), *con.quant_text)) return false;
    if (attach) {
        if (graph_file) storage::add_tensor_files_beside(con, impl_->expansion->graph);
        storage::WeightsCount count;
        const bool attached = storage::attach_weights(impl_->expansion->graph, con, impl_->options.options.limits,
                                                      impl_->diagnostics, graph_file, &count);
        impl_->weights.looked_for = true;
        impl_->weights.variables = count.variables;
        impl_->weights.checked = count.attached;
        if (!attached) {
            impl_->drop_expansion();
            return false;
        }
    }
    // graph.quant's parameters must apply to their tensors and to the data stored for them
    // (stage data, before anything runs; storage/quantization.hpp).
    if (con.quant_text && !storage::check_quantization(impl_->expansion->graph, impl_->diagnostics)) {
        impl_->drop_expansion();
        return false;
    }
    return true;
}

const Graph* Session::graph() const { return impl_->expansion ? &impl_->expansion->graph : nullptr; }
const Graph* Session::partial_graph() const { return impl_->partial ? &impl_->partial->graph : nullptr; }
const FailedStatement* Session::failed_statement() const { return impl_->failed ? &*impl_->failed : nullptr; }
const Diagnostics& Session::diagnostics() const { return impl_->diagnostics; }
const SourceManager& Session::sources() const { return impl_->sources; }
const std::vector<std::string>& Session::custom_operations() const {
    return impl_->expansion ? impl_->expansion->custom_operations : impl_->no_custom;
}
const std::vector<SourceRange>& Session::custom_operation_sites() const {
    return impl_->expansion ? impl_->expansion->custom_operation_sites : impl_->no_sites;
}
bool Session::used_plain_fast_path() const { return impl_->used_plain_fast_path; }
const WeightsReport& Session::weights() const { return impl_->weights; }

std::string WeightsReport::summary() const {
    if (!looked_for || checked == 0) return "weights not checked";
    if (checked == variables) return "weights checked";
    return "weights checked for " + std::to_string(checked) + " of " + std::to_string(variables) + " variables";
}
std::size_t Session::operation_count() const { return impl_->expansion ? impl_->expansion->operation_count : 0; }

std::string Session::flat_text(bool shapes) const {
    if (!impl_->expansion) return {};
    sema::PrintOptions po;
    po.shapes = shapes;
    return sema::print_flat(impl_->expansion->graph, impl_->program, po);
}

}  // namespace nnef
