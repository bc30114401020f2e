// The plain-flat-document scanner (see grammar/plain_flat.hpp), built from the grammar's X3 token
// parsers so that its lexical rules are the grammar's.
#include "grammar/plain_flat.hpp"

#include <boost/spirit/home/x3.hpp>

#include <charconv>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "grammar/ast.hpp"
#include "grammar/config.hpp"

namespace nnef::grammar::plain {

namespace plain_flat_cpp {

// Nesting of flat values the scanner takes (deeper ones go to the full grammar).
constexpr std::size_t max_depth = 16;
// Items in one list the scanner takes.
constexpr std::size_t max_items = 4096;
// Values (items at every level) in one statement the scanner takes.
constexpr std::size_t max_nodes = 1 << 16;

template <class Ctx>
class Scanner {
public:
    Scanner(const char* b, const char* e, const Ctx& ctx, std::size_t max_nesting, std::size_t max_string_length)
        : p_(b), end_(e), ctx_(ctx), max_nesting_(max_nesting), max_string_length_(max_string_length) {}

    bool run(Sink& sink, std::size_t parallel_from) {
        sink_ = &sink;
        Header h;
        if (!word("version")) return false;
        skip();
        h.version_begin = p_;
        tokens::number_token v;
        if (!tokens::number_parser{}.parse(p_, end_, ctx_, x3::unused, v) || !v.real) return false;
        h.version_end = p_;
        if (std::string_view(v.span.b, static_cast<std::size_t>(v.span.e - v.span.b)) != "1.0") return false;
        if (!punct(';')) return false;
        skip();
        h.graph_begin = p_;
        if (!word("graph")) return false;
        if (!name(h.graph)) return false;
        if (!names(h.params) || !punct('-') || p_ == end_ || *p_ != '>') return false;
        ++p_;
        if (!names(h.results) || !punct('{')) return false;
        if (!sink.begin_graph(h)) return false;
        std::size_t count = 0;
        if (parallel_from > 0 && static_cast<std::size_t>(end_ - p_) >= parallel_from) {
            if (!statements_in_parallel(sink, count)) return false;
        } else {
            Statement s;
            for (;;) {
                skip();
                if (p_ != end_ && *p_ == '}') break;
                if (!statement(s) || !sink.statement(s)) return false;
                ++count;
            }
        }
        ++p_;  // the '}'
        const char* graph_end = p_;
        skip();
        return count > 0 && p_ == end_ && sink.end_graph(graph_end);
    }

private:
    // ---- statements read on a second thread ---------------------------------------------------
    // The graph body is read into batches of statements on a second thread while this thread
    // hands them to the sink, in order: every sink call stays on the calling thread. At most
    // `batches` batches are in flight; each keeps its statements' storage for reuse.
    // Large batches: every hand-over can cost both threads a futex call and a context switch.
    static constexpr std::size_t batch_size = 512;
    static constexpr std::size_t batches = 4;

    struct Batch {
        std::vector<Statement> statements;
        std::size_t count = 0;
        bool closed = false;  // the body's '}' follows the last statement
        bool failed = false;  // the text leaves the subset after the last statement
    };

    class Pipe {
    public:
        Pipe() {
            for (Batch& b : store_) empty_.push_back(&b);
        }
        Batch* take_empty() { return take(empty_); }
        Batch* take_full() { return take(full_); }
        void put_empty(Batch* b) { put(empty_, b); }
        void put_full(Batch* b) { put(full_, b); }
        // Either side gives up: the other's take() answers nullptr from now on.
        void stop(std::exception_ptr error = nullptr) {
            std::lock_guard<std::mutex> lock(mutex_);
            stopped_ = true;
            if (error && !error_) error_ = error;
            changed_.notify_all();
        }
        std::exception_ptr error() const { return error_; }  // after the producer has been joined

    private:
        Batch* take(std::deque<Batch*>& queue) {
            std::unique_lock<std::mutex> lock(mutex_);
            changed_.wait(lock, [&] { return stopped_ || !queue.empty(); });
            if (queue.empty()) return nullptr;  // stopped, nothing left
            Batch* b = queue.front();
            queue.pop_front();
            return b;
        }
        void put(std::deque<Batch*>& queue, Batch* b) {
            std::lock_guard<std::mutex> lock(mutex_);
            queue.push_back(b);
            changed_.notify_all();
        }
        Batch store_[batches];
        std::deque<Batch*> empty_, full_;
        std::mutex mutex_;
        std::condition_variable changed_;
        bool stopped_ = false;
        std::exception_ptr error_;
    };

    // The producer: statements up to the body's '}' (left at p_), or up to the first that leaves
    // the subset. Runs on the second thread; touches only the scanner and the batches.
    void produce(Pipe& pipe) {
        try {
            for (;;) {
                Batch* b = pipe.take_empty();
                if (!b) return;  // the consumer stopped
                b->count = 0;
                b->closed = b->failed = false;
                while (b->count < batch_size) {
                    skip();
                    if (p_ != end_ && *p_ == '}') {
                        b->closed = true;
                        break;
                    }
                    if (b->statements.size() == b->count) b->statements.emplace_back();
                    if (!statement(b->statements[b->count])) {
                        b->failed = true;
                        break;
                    }
                    ++b->count;
                }
                const bool last = b->closed || b->failed;
                pipe.put_full(b);
                if (last) return;
            }
        } catch (const SyntaxError&) {
            pipe.stop();  // the full grammar reports it
        } catch (...) {
            pipe.stop(std::current_exception());
        }
    }

    // Announces a statement's names to the sink (its hint to start fetching them).
    static void announce(Sink& sink, const Statement& s) {
        sink.name_seen(s.lhs, s.lhs_hash);
        for (const Node& n : s.nodes)
            if (n.kind == Kind::identifier) sink.name_seen(n.text, n.hash);
    }

    bool statements_in_parallel(Sink& sink, std::size_t& count) {
        sink_ = nullptr;  // the producer must not call the sink
        Pipe pipe;
        std::thread producer([&] { produce(pipe); });
        struct Join {
            Pipe& pipe;
            std::thread& thread;
            ~Join() {
                pipe.stop();
                if (thread.joinable()) thread.join();
            }
        } join{pipe, producer};
        bool closed = false;
        while (Batch* b = pipe.take_full()) {
            bool taken = true;
            if (b->count > 0) announce(sink, b->statements[0]);
            for (std::size_t i = 0; i < b->count && taken; ++i) {
                if (i + 1 < b->count) announce(sink, b->statements[i + 1]);
                taken = sink.statement(b->statements[i]);
                count += taken;
            }
            closed = b->closed;
            const bool last = !taken || b->closed || b->failed;
            pipe.put_empty(b);
            if (!taken) return false;
            if (last) break;
        }
        pipe.stop();
        producer.join();  // p_ is the producer's again
        if (pipe.error()) std::rethrow_exception(pipe.error());
        return closed;
    }

    // The grammar's skipper, called once (x3::skip_over calls it until it stops moving).
    void skip() { p_ = tokens::skipper_parser::skip_from(p_, end_); }

    bool punct(char c) {
        skip();
        if (p_ == end_ || *p_ != c) return false;
        ++p_;
        return true;
    }

    // A whole keyword.
    bool word(const char* w) {
        Span s;
        return tokens::keyword_parser{w}.parse(p_, end_, ctx_, x3::unused, s);
    }

    // The end of the identifier characters from p on.
    const char* word_end(const char* p) const {
        while (p != end_ && tokens::is_ident_char(*p)) ++p;
        return p;
    }

    // An identifier as tokens::identifier_parser takes it (an identifier start, identifier
    // characters, not a keyword; one longer than the limit is its syntax error, so not here).
    bool plain_identifier(std::string_view w) const {
        return !w.empty() && tokens::is_ident_start(w[0]) && !tokens::is_keyword(w.data(), w.size()) &&
               w.size() <= max_string_length_;
    }

    bool identifier(std::string_view& out) {
        skip();
        if (p_ == end_ || !tokens::is_ident_start(*p_)) return false;
        const char* e = word_end(p_ + 1);
        const std::string_view w(p_, static_cast<std::size_t>(e - p_));
        if (!plain_identifier(w)) return false;
        out = w;
        p_ = e;
        return true;
    }

    bool name(Name& n) {
        skip();
        n.at = p_;
        return identifier(n.text);
    }

    // `( a, b, ... )` with at least one name.
    bool names(std::vector<Name>& out) {
        if (!punct('(')) return false;
        do {
            Name n;
            if (!name(n)) return false;
            out.push_back(n);
        } while (punct(','));
        return punct(')');
    }

    bool statement(Statement& s) {
        s.args.clear();
        s.nodes.clear();
        s.generic = PrimType::none;
        s.begin = p_;
        if (!identifier(s.lhs)) return false;
        s.lhs_hash = Graph::hash_name(s.lhs);
        if (sink_) sink_->name_seen(s.lhs, s.lhs_hash);
        if (!punct('=')) return false;
        skip();
        s.rhs_begin = p_;
        if (!identifier(s.op)) return false;
        s.op_hash = Graph::hash_name(s.op);
        skip();
        if (p_ != end_ && *p_ == '<') {
            ++p_;
            skip();
            const char* b = p_;
            while (p_ != end_ && tokens::is_ident_char(*p_)) ++p_;
            const std::string_view t(b, static_cast<std::size_t>(p_ - b));
            if (t == "scalar") s.generic = PrimType::scalar;
            else if (t == "integer") s.generic = PrimType::integer;
            else if (t == "logical") s.generic = PrimType::logical;
            else return false;
            if (!punct('>')) return false;
        }
        if (!punct('(')) return false;
        skip();
        if (p_ == end_ || *p_ != ')') {
            bool named_seen = false;
            do {
                Arg a;
                skip();
                // `name = value` or a value.
                if (p_ != end_ && tokens::is_ident_start(*p_)) {
                    const char* e = word_end(p_ + 1);
                    const char* q = e;
                    q = tokens::skipper_parser::skip_from(q, end_);
                    if (q != end_ && *q == '=' && (q + 1 == end_ || q[1] != '=')) {
                        a.name = std::string_view(p_, static_cast<std::size_t>(e - p_));
                        if (!plain_identifier(a.name)) return false;
                        a.name_hash = Graph::hash_name(a.name);
                        p_ = q + 1;
                        named_seen = true;
                    }
                }
                if (a.name.empty() && named_seen) return false;
                a.node = static_cast<std::uint32_t>(s.nodes.size());
                if (!value(s, 0)) return false;
                s.args.push_back(a);
            } while (punct(','));
        }
        if (!punct(')')) return false;
        s.rhs_end = p_;
        if (!punct(';')) return false;
        s.end = p_;
        return true;
    }

    bool value(Statement& s, std::size_t depth) {
        if (depth >= max_depth || depth >= max_nesting_ || s.nodes.size() >= max_nodes) return false;
        skip();
        if (p_ == end_) return false;
        const std::uint32_t at = static_cast<std::uint32_t>(s.nodes.size());
        s.nodes.emplace_back();
        const char c = *p_;
        const char* const b = p_;
        if (c == '[' || c == '(') {
            ++p_;
            const char close = c == '[' ? ']' : ')';
            std::uint32_t items = 0;
            skip();
            if (p_ != end_ && *p_ == close) {
                if (c == '(') return false;  // `()` is not a value
                ++p_;
            } else {
                do {
                    if (++items > max_items || !value(s, depth + 1)) return false;
                } while (punct(','));
                if (!punct(close)) return false;
                if (c == '(' && items < 2) return false;  // a parenthesized value, not a tuple
            }
            Node& n = s.nodes[at];
            n.kind = c == '[' ? Kind::array : Kind::tuple;
            n.items = items;
            n.text = std::string_view(b, static_cast<std::size_t>(p_ - b));
        } else if (c == '\'' || c == '"') {
            tokens::string_token t;
            if (!tokens::string_parser{}.parse(p_, end_, ctx_, x3::unused, t)) return false;
            Node& n = s.nodes[at];
            n.kind = Kind::string;
            n.text = t.value;
        } else if (c == '-' || tokens::is_digit(c)) {
            // A flat-syntax negative literal: '-' directly followed by the number.
            const bool negative = c == '-';
            if (negative) ++p_;
            if (p_ == end_ || !tokens::is_digit(*p_)) return false;
            // Up to 18 digits not followed by '.', an exponent or an identifier character: an
            // integer token as tokens::number_parser reads it, in range.
            std::int64_t iv = 0;
            const char* d = p_;
            for (; d != end_ && tokens::is_digit(*d) && d - p_ < 18; ++d) iv = iv * 10 + (*d - '0');
            if (d == end_ || (!tokens::is_ident_char(*d) && *d != '.')) {
                p_ = d;
                Node& n = s.nodes[at];
                n.text = std::string_view(b, static_cast<std::size_t>(p_ - b));
                n.kind = Kind::integer;
                n.ival = negative ? -iv : iv;
                s.nodes[at].next = static_cast<std::uint32_t>(s.nodes.size());
                return true;
            }
            tokens::number_token t;
            if (!tokens::number_parser{}.parse(p_, end_, ctx_, x3::unused, t)) return false;
            Node& n = s.nodes[at];
            n.text = std::string_view(b, static_cast<std::size_t>(p_ - b));
            if (t.real) {
                double v = 0.0;
                auto r = std::from_chars(t.span.b, t.span.e, v);
                if (r.ec != std::errc() || r.ptr != t.span.e) return false;  // out of range: the grammar says
                n.kind = Kind::scalar;
                n.sval = negative ? -v : v;
            } else {
                std::int64_t v = 0;
                auto r = std::from_chars(t.span.b, t.span.e, v);
                if (r.ec != std::errc() || r.ptr != t.span.e) return false;
                n.kind = Kind::integer;
                n.ival = negative ? -v : v;
            }
        } else if (tokens::is_ident_start(c)) {
            const char* e = word_end(p_ + 1);
            const std::string_view w(p_, static_cast<std::size_t>(e - p_));
            Node& n = s.nodes[at];
            if (w == "true" || w == "false") {
                n.kind = Kind::logical;
                n.bval = w == "true";
                n.text = w;
            } else {
                if (!plain_identifier(w)) return false;  // a keyword, or too long
                n.kind = Kind::identifier;
                n.text = w;
                n.hash = Graph::hash_name(w);
                if (sink_) sink_->name_seen(w, n.hash);
            }
            p_ = e;
        } else {
            return false;
        }
        s.nodes[at].next = static_cast<std::uint32_t>(s.nodes.size());
        return true;
    }

    const char* p_;
    const char* end_;
    Sink* sink_ = nullptr;
    const Ctx& ctx_;
    std::size_t max_nesting_;
    std::size_t max_string_length_;
};

}  // namespace plain_flat_cpp

bool scan_plain_flat(std::string_view text, const Options& options, Sink& sink, std::size_t parallel_from) {
    ast::Arena arena;  // string values with escapes
    ParseState st;
    st.base = text.data();
    st.end = text.data() + text.size();
    st.max_nesting = options.limits.max_nesting;
    st.max_string_length = options.limits.max_string_length;
    st.arena = &arena;
    skipper_type const skipper{};
    auto const skipper_context = x3::make_context<x3::skipper_tag>(skipper);
    auto const context = x3::make_context<state_tag>(st, skipper_context);
    plain_flat_cpp::Scanner<std::decay_t<decltype(context)>> scanner(st.base, st.end, context, options.limits.max_nesting,
                                                                     options.limits.max_string_length);
    try {
        return scanner.run(sink, parallel_from);
    } catch (const SyntaxError&) {
        return false;  // the full grammar reports it
    }
}

}  // namespace nnef::grammar::plain
