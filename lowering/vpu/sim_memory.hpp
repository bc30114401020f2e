// The memory images the simulator computes values on (sim_values.cpp, sim_tosa_kernel.cpp), and
// what both kinds of kernels share. Private to those files.
#pragma once
#include <cstdint>
#include <cstring>
#include <limits>
#include <initializer_list>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lowering/tosa/ir.hpp"
#include "lowering/vpu/task_list.hpp"

namespace nnef::vpu::sim_values_cpp {

struct ValueError {
    std::string message;
};

// Byte images of the memories, allocated only where buffers lie: for each memory (DDR, CMX of each
// cluster) one block per group of overlapping buffers, so buffers that share addresses share bytes.
class Memories {
public:
    Memories(const TaskList& l, const Target&) : list_(l) {
        std::map<std::int64_t, std::vector<std::pair<std::int64_t, std::int64_t>>> ranges;  // memory -> [lo, hi)
        for (std::size_t i = 0; i < l.buffers.size(); ++i) {
            const Buffer& b = l.buffers[i];
            index_[b.id] = i;
            ranges[key(b)].push_back({b.offset, b.offset + b.size});
        }
        for (auto& [k, list] : ranges) {
            std::sort(list.begin(), list.end());
            auto& blocks = blocks_[k];
            for (const auto& [lo, hi] : list) {
                if (!blocks.empty() && lo < blocks.back().hi) {
                    blocks.back().hi = std::max(blocks.back().hi, hi);
                    continue;
                }
                blocks.push_back({lo, hi, {}, {}});
            }
            for (Block& b : blocks) {
                b.bytes.assign(std::size_t(b.hi - b.lo), 0);
                b.written.assign(std::size_t(b.hi - b.lo), 0);
            }
        }
    }
    const Buffer& buffer(const std::string& id) const { return list_.buffers[index_.at(id)]; }
    std::uint8_t* base(const Buffer& b) { return block(b).bytes.data() + (b.offset - block(b).lo); }
    // One flag per byte: written by a task, an input or a constant.
    std::uint8_t* written(const Buffer& b) { return block(b).written.data() + (b.offset - block(b).lo); }
    // Throws when an element of `a` holds bytes nothing wrote before `what` reads them.
    void expect_written(const Access& a, const std::string& what) {
        const Buffer& b = buffer(a.buffer);
        const std::uint8_t* w = written(b);
        const std::int64_t eb = element_bytes(b.dtype);
        for_each_element(a, [&](std::int64_t off) {
            for (std::int64_t k = 0; k < eb; ++k)
                if (!w[off + k])
                    throw ValueError{what + " byte " + std::to_string(off + k) + " of buffer " + b.id + " (" +
                                     (b.memory == Memory::DDR ? std::string("DDR") : "CMX" + std::to_string(b.cluster)) + " byte " +
                                     std::to_string(b.offset + off + k) + "), which no task, input or constant wrote before"};
        });
    }
    void mark_written(const Access& a) {
        const Buffer& b = buffer(a.buffer);
        std::uint8_t* w = written(b);
        const std::int64_t eb = element_bytes(b.dtype);
        for_each_element(a, [&](std::int64_t off) { std::memset(w + off, 1, std::size_t(eb)); });
    }
    void mark_written(const Buffer& b, std::int64_t bytes) { std::memset(written(b), 1, std::size_t(bytes)); }

private:
    struct Block {
        std::int64_t lo, hi;
        std::vector<std::uint8_t> bytes, written;
    };
    Block& block(const Buffer& b) {
        auto& blocks = blocks_.at(key(b));
        auto it = std::upper_bound(blocks.begin(), blocks.end(), b.offset, [](std::int64_t v, const Block& x) { return v < x.lo; });
        return *--it;
    }
    static std::int64_t key(const Buffer& b) { return b.memory == Memory::DDR ? -1 : b.cluster; }
    const TaskList& list_;
    std::unordered_map<std::string, std::size_t> index_;
    std::map<std::int64_t, std::vector<Block>> blocks_;
};

inline double load(DataType t, const std::uint8_t* p) {
    switch (t) {
        case DataType::fp16: {
            std::uint16_t h;
            std::memcpy(&h, p, 2);
            return tosa::fp16_to_fp32(h);
        }
        case DataType::fp32: {
            float f;
            std::memcpy(&f, p, 4);
            return f;
        }
        case DataType::int8: return double(static_cast<std::int8_t>(*p));
        case DataType::uint8: return double(*p);
        case DataType::int32: {
            std::int32_t i;
            std::memcpy(&i, p, 4);
            return double(i);
        }
    }
    return 0.0;
}

// Stores v: fp16 rounds to nearest even; integer types round to nearest (ties to even) and saturate.
inline void store(DataType t, std::uint8_t* p, double v) {
    auto saturate = [&](double lo, double hi) {
        if (std::isnan(v)) return 0.0;
        return std::min(hi, std::max(lo, std::nearbyint(v)));
    };
    switch (t) {
        case DataType::fp16: {
            const std::uint16_t h = tosa::fp32_to_fp16(float(v));
            std::memcpy(p, &h, 2);
            return;
        }
        case DataType::fp32: {
            const float f = float(v);
            std::memcpy(p, &f, 4);
            return;
        }
        case DataType::int8: *p = static_cast<std::uint8_t>(static_cast<std::int8_t>(saturate(-128, 127))); return;
        case DataType::uint8: *p = static_cast<std::uint8_t>(saturate(0, 255)); return;
        case DataType::int32: {
            const std::int32_t i = static_cast<std::int32_t>(saturate(-2147483648.0, 2147483647.0));
            std::memcpy(p, &i, 4);
            return;
        }
    }
}

inline bool is_int(DataType t) { return t == DataType::int8 || t == DataType::uint8 || t == DataType::int32; }


// A box read into a dense row-major array of doubles (exact for every element type).
struct Dense {
    std::vector<std::int64_t> shape;
    std::vector<double> v;
    DataType dtype = DataType::fp16;
};

inline Dense gather(Memories& mem, const Access& a) {
    mem.expect_written(a, "reads");
    const Buffer& b = mem.buffer(a.buffer);
    Dense d;
    d.shape = a.shape;
    d.dtype = b.dtype;
    d.v.reserve(std::size_t(a.elements()));
    std::uint8_t* base = mem.base(b);
    for_each_element(a, [&](std::int64_t off) { d.v.push_back(load(b.dtype, base + off)); });
    return d;
}

inline void scatter(Memories& mem, const Access& a, const std::vector<double>& values) {
    const Buffer& b = mem.buffer(a.buffer);
    std::uint8_t* base = mem.base(b);
    std::size_t i = 0;
    for_each_element(a, [&](std::int64_t off) { store(b.dtype, base + off, values[i++]); });
    mem.mark_written(a);
}

// Throws ValueError when `p` has a parameter other than `allowed` (and "kernel").
void expect_attrs(const ShaveParams& p, std::initializer_list<const char*> allowed);
// The TOSA type of a buffer type (none for uint8).
std::optional<tosa::DType> tosa_dtype(DataType t);

// A TOSA graph that computes one SHAVE task (sim_tosa_kernel.cpp): the task's reads as its inputs
// (converted to the TOSA type an operator computes in), TOSA operators, and its results stored to
// the task's writes. The arithmetic is the TOSA interpreter's; errors throw ValueError naming
// `where` (the kernel).
class KernelGraph {
public:
    explicit KernelGraph(std::string where);
    // A read box as a graph input of type `dt` (bool: nonzero is true), of shape `shape` (the
    // box's by default; the same element count). An item that is no value of `dt` is an error.
    tosa::ValueId input(const Dense& d, tosa::DType dt);
    tosa::ValueId input(const Dense& d, tosa::DType dt, const std::vector<std::int64_t>& shape);
    tosa::ValueId constant(const tosa::ConstPtr& c);
    // A constant of `rank` dimensions of extent 1 holding v (zero points, shifts, broadcast scalars).
    tosa::ValueId scalar(tosa::DType dt, double v, std::size_t rank);
    tosa::ValueId op(tosa::OpKind kind, const std::vector<tosa::ValueId>& operands, const tosa::TensorType& result,
                     std::vector<std::pair<tosa::AttrName, tosa::Attr>> attributes = {});
    std::vector<tosa::ValueId> ops(tosa::OpKind kind, const std::vector<tosa::ValueId>& operands,
                                   const std::vector<tosa::TensorType>& results,
                                   std::vector<std::pair<tosa::AttrName, tosa::Attr>> attributes = {});
    const tosa::TensorType& type(tosa::ValueId v) const;
    // Runs the graph by the TOSA interpreter; the values of `outputs`.
    std::vector<tosa::ConstPtr> run(const std::vector<tosa::ValueId>& outputs);
    // Stores a result to a write box (its dtype's rounding and saturation; bool as 1 / 0).
    void write(Memories& mem, const Access& a, const tosa::ConstData& c) const;

private:
    std::string where_;
    tosa::Graph g_;
    std::vector<tosa::ConstPtr> inputs_;
};

// A SHAVE kernel named by any TOSA mnemonic but the native ones (sim_tosa_kernel.cpp).
void run_tosa_kernel(Memories& mem, const Task& t, tosa::OpKind kind);
// Any SHAVE kernel (sim_shave.cpp).
void run_shave(Memories& mem, const Task& t);

}  // namespace nnef::vpu::sim_values_cpp
