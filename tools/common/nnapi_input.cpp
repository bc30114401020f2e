#include "nnapi_input.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>

#include "lowering/nnapi/model.hpp"
#include "lowering/nnapi/to_tosa.hpp"
#include "lowering/tosa/mlir.hpp"
#include "lowering/tosa/validator.hpp"

namespace nnef::cli {

bool is_nnapi_json(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return false;
    std::ifstream f(path, std::ios::binary);
    std::string head(1 << 20, '\0');
    f.read(head.data(), std::streamsize(head.size()));
    head.resize(std::size_t(f.gcount()));
    std::size_t first = 0;
    while (first < head.size() && std::isspace(static_cast<unsigned char>(head[first]))) ++first;
    if (first == head.size() || head[first] != '{') return false;
    return head.find("\"operands\"") != std::string::npos && head.find("\"operations\"") != std::string::npos;
}

NnapiInput read_nnapi_input(Tool& tool, const std::string& path, bool uint8_io) {
    Diagnostics diags(tool.common.flatten.options.limits.max_errors);
    std::optional<nnapi::Model> model = nnapi::read_model(path, diags);
    if (!model || diags.has_errors()) tool.fail(diags);
    if (!nnapi::validate(*model, diags, path)) tool.fail(diags);
    nnapi::ToTosaOptions options;
    options.uint8_io = uint8_io;
    std::optional<tosa::Graph> g = nnapi::to_tosa(*model, diags, options);
    if (!g || diags.has_errors()) tool.fail(diags);
    // The lowering's result passes the TOSA validator at its profile and level 8K.
    tosa::ValidateOptions vo;
    vo.profile = g->profile;
    vo.extensions = tosa::validation_extensions(*g);
    if (!tosa::validate(*g, vo, diags)) tool.fail(diags);
    tool.report(diags);
    NnapiInput in;
    for (const auto& indexes : {model->inputIndexes, model->outputIndexes})
        for (std::uint32_t i : indexes) {
            const nnapi::Operand& o = model->operands[i];
            if (o.type != nnapi::OperandType::TENSOR_QUANT8_ASYMM) continue;
            tosa::IntegerCodes c;
            c.params.algorithm = storage::QuantAlgorithm::zero_point_linear;
            c.params.bits = 8;
            c.params.scale = {double(o.scale)};
            c.params.zero_point = {o.zeroPoint};
            c.offset = -128;
            in.codes["operand " + std::to_string(i)] = c;
        }
    in.module.graph = std::move(*g);
    return in;
}

}  // namespace nnef::cli
